package zeta;

/** Rows of binary values (row-major, rows x cols) with a label per row. */
public final class Dataset {
  private final double[] values;
  private final int[] labels;
  private final int rows;
  private final int cols;

  Dataset(double[] values, int[] labels, int rows, int cols) {
    this.values = values;
    this.labels = labels;
    this.rows = rows;
    this.cols = cols;
  }

  /** The rows x cols values (the array itself, not a copy). */
  public double[] values() {
    return values;
  }

  public int[] labels() {
    return labels;
  }

  public int rows() {
    return rows;
  }

  public int cols() {
    return cols;
  }

  /** Rows [from, to) as a new row-major array. */
  public double[] rows(int from, int to) {
    if (from < 0 || to > rows || from >= to) {
      throw new ZetaArgumentException("rows [" + from + ", " + to + ") outside [0, " + rows + ")");
    }
    double[] out = new double[(to - from) * cols];
    System.arraycopy(values, from * cols, out, 0, out.length);
    return out;
  }
}
