package zeta;

/** An estimate and its uncertainty: AIS log Z with its standard error, or a tracked figure with its
 *  posterior standard deviation. */
public final class Estimate {
  private final double value;
  private final double stdDev;

  Estimate(double value, double stdDev) {
    this.value = value;
    this.stdDev = stdDev;
  }

  public double value() {
    return value;
  }

  /** Standard error (AIS) or posterior standard deviation (tracker); +infinity when nothing is known yet. */
  public double stdDev() {
    return stdDev;
  }

  @Override
  public String toString() {
    return value + " +- " + stdDev;
  }
}
