package zeta;

/** Library-wide functions: version and the data set compiled into libzeta. */
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
