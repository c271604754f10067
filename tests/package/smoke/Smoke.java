import zeta.Estimate;
import zeta.Rbm;
import zeta.Zeta;

/**
 * The Java smoke test of the jar (tests/package): the shared model's log Z, exactly and by AIS, printed as the
 * other artefacts' smoke programs print it. Compiled and run with the jar alone on the class path.
 */
public final class Smoke {
  private static final int NV = 9;
  private static final int NH = 4;

  private Smoke() {}

  private static String bits(double x) {
    return String.format("%016x", Double.doubleToRawLongBits(x));
  }

  public static void main(String[] args) {
    double[] w = new double[NV * NH];
    double[] b = new double[NV];
    double[] c = new double[NH];
    for (int i = 0; i < NV; ++i) {
      for (int j = 0; j < NH; ++j) {
        w[i * NH + j] = ((7 * i + 3 * j) % 11 - 5) / 8.0;
      }
      b[i] = (i % 5 - 2) / 4.0;
    }
    for (int j = 0; j < NH; ++j) {
      c[j] = (j % 3 - 1) / 2.0;
    }
    try (Rbm rbm = new Rbm(NV, NH, 1)) {
      rbm.setParams(w, b, c);
      double exact = rbm.logZExact();
      Estimate ais = rbm.logZAis(100, 1000, 7);
      System.out.printf("smoke zeta=%s exact=%s ais=%s se=%s (log Z %.12f, AIS %.6f +- %.6f)%n", Zeta.version(),
          bits(exact), bits(ais.value()), bits(ais.stdDev()), exact, ais.value(), ais.stdDev());
    }
  }
}
