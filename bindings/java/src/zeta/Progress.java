package zeta;

/** Progress of a long call, as passed to a {@link ProgressListener}. */
public final class Progress {
  private final String stage;
  private final long done;
  private final long total;
  private final double value;

  Progress(String stage, long done, long total, double value) {
    this.stage = stage;
    this.done = done;
    this.total = total;
    this.value = value;
  }

  /** "exact log Z", "AIS", "training" or "pruning". */
  public String stage() {
    return stage;
  }

  /** Units of work finished so far. */
  public long done() {
    return done;
  }

  /** Units of work in the call. */
  public long total() {
    return total;
  }

  /** Running figure of the stage (AIS: running log Z; training: tracked log Z; pruning: the number of hidden
   *  units), else NaN. */
  public double value() {
    return value;
  }

  @Override
  public String toString() {
    return stage + " " + done + "/" + total + " (" + value + ")";
  }
}
