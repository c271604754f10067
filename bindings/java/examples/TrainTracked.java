import zeta.Dataset;
import zeta.Options;
import zeta.Rbm;
import zeta.Trainer;
import zeta.Zeta;

/** Trains an RBM on the embedded Fashion-MNIST data with SML-PT and prints the tracked log-likelihood. */
public final class TrainTracked {
  public static void main(String[] args) {
    Dataset train = Zeta.defaultData(Zeta.Split.TRAIN);
    double[] test = Zeta.defaultData(Zeta.Split.TEST).rows(0, 500);
    try (Rbm rbm = new Rbm(train.cols(), 16, 1);
         Options options = new Options().set("learning_rate", 0.01).set("n_temperatures", 10)
                                        .set("chains_per_temperature", 10).set("seed", 1);
         Trainer trainer = new Trainer(rbm, options)) {
      rbm.initFromData(train.values(), 0.01);
      // The listener runs after every update; it may read the model between updates.
      trainer.train(train.values(), 50, 300, progress -> {
        if (progress.done() % 50 == 0) {
          System.out.printf("step %4d  tracked log Z %9.3f  test log-likelihood %9.3f%n", progress.done(),
                            progress.value(), trainer.logLikelihood(test).value());
        }
        return true; // false would cancel the training
      });
      System.out.printf("exact log Z %.3f, tracked %s%n", rbm.logZExact(), trainer.logZ());
    }
  }
}
