using System;
using Zeta;

/// Trains an RBM on the embedded Fashion-MNIST data with SML-PT and prints the tracked log-likelihood.
public static class TrainTracked {
  public static void Main() {
    Dataset train = Library.DefaultData(Split.Train);
    double[] test = Library.DefaultData(Split.Test).Slice(0, 500);
    using (var rbm = new Rbm(train.Cols, 16, 1))
    using (var options = new Options().Set("learning_rate", 0.01).Set("n_temperatures", 10)
                                      .Set("chains_per_temperature", 10).Set("seed", 1))
    using (var trainer = new Trainer(rbm, options)) {
      rbm.InitFromData(train.Values, 0.01);
      // The listener runs after every update; it may read the model between updates.
      trainer.Train(train.Values, 50, 300, progress => {
        if (progress.Done % 50 == 0) {
          Console.WriteLine($"step {progress.Done,4}  tracked log Z {progress.Value,9:F3}  " +
                            $"test log-likelihood {trainer.LogLikelihood(test).Value,9:F3}");
        }
        return true; // false would cancel the training
      });
      Console.WriteLine($"exact log Z {rbm.LogZExact():F3}, tracked {trainer.LogZ()}");
    }
  }
}
