package zeta;

/**
 * Many-class softmax regression trained by sampled normalisation (Barber and Botev). The training objective is
 * option softmax_method (see {@link Method}); rows are nFeatures finite doubles, labels class indices.
 */
public final class Softmax extends Handle {
  /** Values of option softmax_method. */
  public enum Method {
    EXACT(ZetaNativeConstants.ZETA_SOFTMAX_EXACT),
    IMPORTANCE(ZetaNativeConstants.ZETA_SOFTMAX_IMPORTANCE),
    BERNOULLI(ZetaNativeConstants.ZETA_SOFTMAX_BERNOULLI),
    RANKING(ZetaNativeConstants.ZETA_SOFTMAX_RANKING),
    NEGATIVE_SAMPLING(ZetaNativeConstants.ZETA_SOFTMAX_NEGATIVE_SAMPLING),
    NCE(ZetaNativeConstants.ZETA_SOFTMAX_NCE),
    BLACKOUT(ZetaNativeConstants.ZETA_SOFTMAX_BLACKOUT);

    private final int code;

    Method(int code) {
      this.code = code;
    }

    /** The option value: {@code options.set("softmax_method", Method.NCE.code())}. */
    public int code() {
      return code;
    }
  }

  private final int nFeatures;
  private final int nClasses;

  /** options (may be null: every default) are read for the softmax_* keys and seed. */
  public Softmax(int nFeatures, int nClasses, Options options) {
    this(create(nFeatures, nClasses, options));
  }

  private Softmax(long ptr) {
    super(ptr, ZetaNative::zeta_softmax_free, null);
    int[] f = new int[1];
    int[] c = new int[1];
    ZetaNative.zeta_softmax_shape(ptr, f, c);
    nFeatures = f[0];
    nClasses = c[0];
  }

  private static long create(int nFeatures, int nClasses, Options options) {
    long[] out = new long[1];
    if (options == null) {
      ZetaNative.zeta_softmax_new(nFeatures, nClasses, 0, out);
    } else {
      synchronized (options) {
        ZetaNative.zeta_softmax_new(nFeatures, nClasses, options.cptr(), out);
      }
    }
    return out[0];
  }

  public static Softmax load(String path) {
    long[] out = new long[1];
    ZetaNative.zeta_softmax_load(require(path, "path"), out);
    return new Softmax(out[0]);
  }

  public static Softmax fromBytes(byte[] bytes) {
    long[] out = new long[1];
    ZetaNative.zeta_softmax_from_bytes(require(bytes, "bytes"), bytes.length, out);
    return new Softmax(out[0]);
  }

  /** An independent copy (parameters, momentum, class counts, generators). */
  public synchronized Softmax copy() {
    long[] out = new long[1];
    ZetaNative.zeta_softmax_clone(cptr(), out);
    return new Softmax(out[0]);
  }

  public int nFeatures() {
    return nFeatures;
  }

  public int nClasses() {
    return nClasses;
  }

  public synchronized long steps() {
    long[] steps = new long[1];
    ZetaNative.zeta_softmax_steps(cptr(), steps);
    return steps[0];
  }

  /** Class counts (nClasses entries >= 0) for the proposal and Bernoulli distributions. */
  public synchronized void setClassCounts(long[] counts) {
    require(counts, "counts");
    if (counts.length != nClasses) {
      throw new ZetaArgumentException("counts has " + counts.length + " entries, expected " + nClasses);
    }
    ZetaNative.zeta_softmax_set_class_counts(ptr(), counts, counts.length);
  }

  /** One momentum update from a mini-batch; returns the batch mean of the objective before the update. */
  public synchronized double trainBatch(double[] x, int[] labels) {
    double[] objective = new double[1];
    ZetaNative.zeta_softmax_train_batch(ptr(), x, labels(labels, x), rows(x, nFeatures, "x"), objective);
    return objective[0];
  }

  /** nEpochs passes in mini-batches of batchSize rows; listener (may be null) gets each batch's objective. */
  public synchronized void trainEpochs(double[] x, int[] labels, long batchSize, int nEpochs, boolean shuffle,
                                       ProgressListener listener) {
    long p = ptr();
    long n = rows(x, nFeatures, "x");
    labels(labels, x);
    withListener(listener, callback ->
        ZetaNative.zeta_softmax_train_epochs(p, x, labels, n, batchSize, nEpochs, shuffle ? 1 : 0, callback));
  }

  /** p(c|x): rows x nClasses values. */
  public synchronized double[] probabilities(double[] x) {
    long n = rows(x, nFeatures, "x");
    double[] out = new double[arrayLength(Math.max(n, 1), nClasses, "rows")];
    ZetaNative.zeta_softmax_probabilities(cptr(), x, n, out);
    return out;
  }

  /** log p(c|x): rows x nClasses values. */
  public synchronized double[] logProbabilities(double[] x) {
    long n = rows(x, nFeatures, "x");
    double[] out = new double[arrayLength(Math.max(n, 1), nClasses, "rows")];
    ZetaNative.zeta_softmax_log_probabilities(cptr(), x, n, out);
    return out;
  }

  /** argmax_c p(c|x) of each row. */
  public synchronized int[] predict(double[] x) {
    long n = rows(x, nFeatures, "x");
    int[] labels = new int[(int) Math.max(n, 1)];
    ZetaNative.zeta_softmax_predict(cptr(), x, n, labels);
    return labels;
  }

  /** Exact mean log-likelihood of a labelled data set. */
  public synchronized double logLikelihood(double[] x, int[] labels) {
    double[] mean = new double[1];
    ZetaNative.zeta_softmax_log_likelihood(cptr(), x, labels(labels, x), rows(x, nFeatures, "x"), mean);
    return mean[0];
  }

  /** Fraction of rows whose argmax class is not the label. */
  public synchronized double errorRate(double[] x, int[] labels) {
    double[] rate = new double[1];
    ZetaNative.zeta_softmax_error_rate(cptr(), x, labels(labels, x), rows(x, nFeatures, "x"), rate);
    return rate[0];
  }

  public synchronized void save(String path) {
    ZetaNative.zeta_softmax_save(cptr(), require(path, "path"));
  }

  public synchronized byte[] toBytes() {
    long[] size = new long[1];
    ZetaNative.zeta_softmax_to_bytes(cptr(), null, 0, size);
    byte[] bytes = new byte[arrayLength(size[0], 1, "model size")];
    ZetaNative.zeta_softmax_to_bytes(cptr(), bytes, bytes.length, size);
    return bytes;
  }

  private int[] labels(int[] labels, double[] x) {
    require(labels, "labels");
    if (x != null && (long) labels.length * nFeatures != x.length) {
      throw new ZetaArgumentException("labels has " + labels.length + " entries for " + x.length / nFeatures
                                      + " rows of x");
    }
    return labels;
  }
}
