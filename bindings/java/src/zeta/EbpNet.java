package zeta;

/**
 * A net of sign units trained by expectation backpropagation (Soudry, Hubara and Meir 2014), with binary (+-1)
 * or real weights (option ebp_binary_weights). Inputs are rows of nInputs finite doubles (row-major). Labels:
 * with one output -1/+1 (0 counts as -1); with K outputs class indices 0..K-1.
 */
public final class EbpNet extends Handle {
  /** Which output the scoring functions use (see zeta.h). */
  public enum Output {
    /** EBP-P: posterior-averaged output in [-1, 1]. */
    P(ZetaNativeConstants.ZETA_EBP_P),
    /** EBP-D: last-layer score of the deterministic net with the MAP weights. */
    D(ZetaNativeConstants.ZETA_EBP_D),
    /** mu/sigma of the last layer: EBP-P's decisions without its saturation. */
    P_Z(ZetaNativeConstants.ZETA_EBP_P_Z);

    final int code;

    Output(int code) {
      this.code = code;
    }
  }

  private final int nInputs;
  private final int nOutputs;
  private final int[] hiddenSizes;

  /** Layers nInputs -> hiddenSizes... -> nOutputs; options (may be null: every default) are read for
   *  ebp_binary_weights, ebp_init_variance and seed. */
  public EbpNet(int nInputs, int[] hiddenSizes, int nOutputs, Options options) {
    this(create(nInputs, hiddenSizes, nOutputs, options));
  }

  private EbpNet(long ptr) {
    super(ptr, ZetaNative::zeta_ebp_free, null);
    int[] in = new int[1];
    int[] layers = new int[1];
    int[] out = new int[1];
    ZetaNative.zeta_ebp_shape(ptr, in, layers, out);
    nInputs = in[0];
    nOutputs = out[0];
    hiddenSizes = new int[layers[0]];
    ZetaNative.zeta_ebp_hidden_sizes(ptr, layers[0] > 0 ? hiddenSizes : null, hiddenSizes.length);
  }

  private static long create(int nInputs, int[] hiddenSizes, int nOutputs, Options options) {
    int[] sizes = hiddenSizes == null ? new int[0] : hiddenSizes;
    long[] out = new long[1];
    if (options == null) {
      ZetaNative.zeta_ebp_new(nInputs, sizes.length > 0 ? sizes : null, sizes.length, nOutputs, 0, out);
    } else {
      synchronized (options) {
        ZetaNative.zeta_ebp_new(nInputs, sizes.length > 0 ? sizes : null, sizes.length, nOutputs, options.cptr(),
                                out);
      }
    }
    return out[0];
  }

  public static EbpNet load(String path) {
    long[] out = new long[1];
    ZetaNative.zeta_ebp_load(require(path, "path"), out);
    return new EbpNet(out[0]);
  }

  public static EbpNet fromBytes(byte[] bytes) {
    long[] out = new long[1];
    ZetaNative.zeta_ebp_from_bytes(require(bytes, "bytes"), bytes.length, out);
    return new EbpNet(out[0]);
  }

  /** An independent copy (weights, example count, epoch generator). */
  public synchronized EbpNet copy() {
    long[] out = new long[1];
    ZetaNative.zeta_ebp_clone(cptr(), out);
    return new EbpNet(out[0]);
  }

  public int nInputs() {
    return nInputs;
  }

  public int nOutputs() {
    return nOutputs;
  }

  public int[] hiddenSizes() {
    return hiddenSizes.clone();
  }

  public synchronized boolean binaryWeights() {
    int[] binary = new int[1];
    ZetaNative.zeta_ebp_binary_weights(cptr(), binary);
    return binary[0] != 0;
  }

  public synchronized long examplesSeen() {
    long[] n = new long[1];
    ZetaNative.zeta_ebp_examples_seen(cptr(), n);
    return n[0];
  }

  /** One EBP update from a mini-batch (x: rows x nInputs, one label per row). */
  public synchronized void trainBatch(double[] x, int[] labels) {
    ZetaNative.zeta_ebp_train_batch(ptr(), x, labels(labels, x), rows(x, nInputs, "x"));
  }

  /** nEpochs passes in mini-batches of batchSize rows, in row order or shuffled each epoch; listener (may be
   *  null) runs after every mini-batch. On cancellation the finished mini-batches are kept. */
  public synchronized void trainEpochs(double[] x, int[] labels, long batchSize, int nEpochs, boolean shuffle,
                                       ProgressListener listener) {
    long p = ptr();
    long n = rows(x, nInputs, "x");
    labels(labels, x);
    withListener(listener, callback ->
        ZetaNative.zeta_ebp_train_epochs(p, x, labels, n, batchSize, nEpochs, shuffle ? 1 : 0, callback));
  }

  /** The chosen output for each row of x: rows x nOutputs values. */
  public synchronized double[] scores(double[] x, Output output) {
    long n = rows(x, nInputs, "x");
    double[] out = new double[arrayLength(Math.max(n, 1), nOutputs, "rows")];
    ZetaNative.zeta_ebp_scores(cptr(), x, n, require(output, "output").code, out);
    return out;
  }

  /** Decisions: +1/-1 with one output, class indices with several. */
  public synchronized int[] predict(double[] x, Output output) {
    long n = rows(x, nInputs, "x");
    int[] labels = new int[(int) Math.max(n, 1)];
    ZetaNative.zeta_ebp_predict(cptr(), x, n, require(output, "output").code, labels);
    return labels;
  }

  /** Fraction of rows whose decision differs from the label. */
  public synchronized double errorRate(double[] x, int[] labels, Output output) {
    double[] rate = new double[1];
    ZetaNative.zeta_ebp_error_rate(cptr(), x, labels(labels, x), rows(x, nInputs, "x"),
                                   require(output, "output").code, rate);
    return rate[0];
  }

  public synchronized void save(String path) {
    ZetaNative.zeta_ebp_save(cptr(), require(path, "path"));
  }

  public synchronized byte[] toBytes() {
    long[] size = new long[1];
    ZetaNative.zeta_ebp_to_bytes(cptr(), null, 0, size);
    byte[] bytes = new byte[arrayLength(size[0], 1, "model size")];
    ZetaNative.zeta_ebp_to_bytes(cptr(), bytes, bytes.length, size);
    return bytes;
  }

  private int[] labels(int[] labels, double[] x) {
    require(labels, "labels");
    if (x != null && (long) labels.length * nInputs != x.length) {
      throw new ZetaArgumentException("labels has " + labels.length + " entries for " + x.length / nInputs
                                      + " rows of x");
    }
    return labels;
  }
}
