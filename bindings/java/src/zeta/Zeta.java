package zeta;

/** Library-wide functions: version, build, thread count and the data set compiled into libzeta. */
public final class Zeta {
  /** The two splits of the embedded data set. */
  public enum Split {
    TRAIN(ZetaNativeConstants.ZETA_DATA_TRAIN),
    TEST(ZetaNativeConstants.ZETA_DATA_TEST);

    final int code;

    Split(int code) {
      this.code = code;
    }
  }

  private Zeta() {}

  /** "MAJOR.MINOR.PATCH" of the loaded libzeta. */
  public static String version() {
    return ZetaNative.zeta_version();
  }

  public static int abiVersion() {
    return ZetaNative.zeta_abi_version();
  }

  /**
   * What a seed's numbers depend on besides the thread count, as lines of text (zeta_build_info, the same as
   * {@code zeta --version}): the version, the backend of the large products, the vector extensions of the build.
   */
  public static String buildInfo() {
    return ZetaNative.zeta_build_info();
  }

  /**
   * Threads of the parallel work (products, sampling, enumeration) of zeta calls made from the calling Java thread:
   * n >= 1, or 0 for the default (OMP_NUM_THREADS, else the number of cores). Other threads keep their own setting,
   * so each worker of a pool can give zeta its share (a virtual thread can move between carrier threads: set it on
   * platform threads). The thread count is part of what a seed's numbers depend on.
   */
  public static void setNumThreads(int n) {
    ZetaNative.zeta_set_num_threads(n);
  }

  /** The thread count zeta calls from the calling Java thread use. */
  public static int numThreads() {
    int[] n = new int[1];
    ZetaNative.zeta_get_num_threads(n);
    return n[0];
  }

  /** The ABI version this binding was generated for (compare with abiVersion()). */
  public static int bindingAbiVersion() {
    return ZetaNativeConstants.ZETA_ABI_VERSION;
  }

  /** The embedded binarised Fashion-MNIST split: 784 columns of 0.0/1.0, labels 0..9. */
  public static Dataset defaultData(Split split) {
    require(split);
    long[] rows = new long[1];
    int[] cols = new int[1];
    ZetaNative.zeta_data_default_shape(split.code, rows, cols);
    int n = Handle.arrayLength(rows[0], cols[0], "rows");
    double[] values = new double[n];
    int[] labels = new int[(int) rows[0]];
    ZetaNative.zeta_data_default(split.code, values, values.length);
    ZetaNative.zeta_data_default_labels(split.code, labels, labels.length);
    return new Dataset(values, labels, (int) rows[0], cols[0]);
  }

  private static void require(Split split) {
    Handle.require(split, "split");
  }
}
