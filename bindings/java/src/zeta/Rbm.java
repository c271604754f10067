package zeta;

/**
 * A binary restricted Boltzmann machine, E(v,h) = -v'Wh - b'v - c'h. Arrays are row-major: W is
 * nVisible x nHidden, data sets are rows of nVisible values (0.0/1.0 where binary data is required).
 * Close it (try-with-resources) to free its native memory at once.
 */
public final class Rbm extends Handle {
  private final int nVisible;
  private volatile int nHidden; // falls when units are removed (removeHidden, a Pruner)
  private final long shapePtr; // for refreshShape: a borrowing Pruner keeps the native model alive after close()

  /** A model with W = 0, b = 0, c = 0; seed seeds its own generator (used by sample). */
  public Rbm(int nVisible, int nHidden, long seed) {
    this(create(nVisible, nHidden, seed));
  }

  private Rbm(long ptr) {
    super(ptr, ZetaNative::zeta_rbm_free, null);
    shapePtr = ptr;
    int[] v = new int[1];
    int[] h = new int[1];
    ZetaNative.zeta_rbm_shape(ptr, v, h);
    nVisible = v[0];
    nHidden = h[0];
  }

  private static long create(int nVisible, int nHidden, long seed) {
    long[] out = new long[1];
    ZetaNative.zeta_rbm_new(nVisible, nHidden, seed, out);
    return out[0];
  }

  /** Loads a model file written by save (ZetaException ERR_IO / ERR_FORMAT on failure). */
  public static Rbm load(String path) {
    long[] out = new long[1];
    ZetaNative.zeta_rbm_load(require(path, "path"), out);
    return new Rbm(out[0]);
  }

  /** Reads the bytes written by toBytes. */
  public static Rbm fromBytes(byte[] bytes) {
    long[] out = new long[1];
    ZetaNative.zeta_rbm_from_bytes(require(bytes, "bytes"), bytes.length, out);
    return new Rbm(out[0]);
  }

  /** An independent copy (parameters, base rates and generator state). */
  public synchronized Rbm copy() {
    long[] out = new long[1];
    ZetaNative.zeta_rbm_clone(cptr(), out);
    return new Rbm(out[0]);
  }

  public int nVisible() {
    return nVisible;
  }

  public int nHidden() {
    return nHidden;
  }

  /** Re-reads the number of hidden units after a call that may have removed some; the caller holds this monitor
   *  and keeps the native model alive (its own call, or a Pruner borrowing it). */
  void refreshShape() {
    int[] h = new int[1];
    ZetaNative.zeta_rbm_shape(shapePtr, null, h);
    nHidden = h[0];
  }

  public synchronized void setSeed(long seed) {
    ZetaNative.zeta_rbm_set_seed(ptr(), seed);
  }

  /** W (nVisible x nHidden, row-major), b (nVisible), c (nHidden); all finite, else nothing changes. */
  public synchronized void setParams(double[] weights, double[] visibleBias, double[] hiddenBias) {
    length(weights, (long) nVisible * nHidden, "weights");
    length(visibleBias, nVisible, "visibleBias");
    length(hiddenBias, nHidden, "hiddenBias");
    ZetaNative.zeta_rbm_set_params(ptr(), weights, visibleBias, hiddenBias);
  }

  /** Fills the three arrays (lengths as for setParams). */
  public synchronized void getParams(double[] weights, double[] visibleBias, double[] hiddenBias) {
    length(weights, (long) nVisible * nHidden, "weights");
    length(visibleBias, nVisible, "visibleBias");
    length(hiddenBias, nHidden, "hiddenBias");
    ZetaNative.zeta_rbm_get_params(cptr(), weights, visibleBias, hiddenBias);
  }

  public double[] weights() {
    double[] w = new double[nVisible * nHidden];
    getParams(w, new double[nVisible], new double[nHidden]);
    return w;
  }

  public double[] visibleBias() {
    double[] b = new double[nVisible];
    getParams(new double[nVisible * nHidden], b, new double[nHidden]);
    return b;
  }

  public double[] hiddenBias() {
    double[] c = new double[nHidden];
    getParams(new double[nVisible * nHidden], new double[nVisible], c);
    return c;
  }

  /** Hinton's initialisation from binary rows: W ~ N(0, weightSd^2), c = 0, b = logit of the column means. */
  public synchronized void initFromData(double[] data, double weightSd) {
    ZetaNative.zeta_rbm_init_from_data(ptr(), data, rows(data, nVisible, "data"), weightSd);
  }

  /** Free energy of each binary row of v. */
  public synchronized double[] freeEnergy(double[] v) {
    long n = rows(v, nVisible, "v");
    double[] out = new double[(int) n];
    ZetaNative.zeta_rbm_free_energy(cptr(), v, n, out);
    return out;
  }

  /** Mean log-likelihood of binary rows given log Z. */
  public synchronized double meanLogLikelihood(double[] data, double logZ) {
    double[] out = new double[1];
    ZetaNative.zeta_rbm_mean_log_likelihood(cptr(), data, rows(data, nVisible, "data"), logZ, out);
    return out[0];
  }

  /** p(h = 1 | v) for rows of v in [0, 1]: rows x nHidden values. */
  public synchronized double[] hiddenProbs(double[] v) {
    long n = rows(v, nVisible, "v");
    double[] out = new double[(int) n * nHidden];
    ZetaNative.zeta_rbm_hidden_probs(cptr(), v, n, out);
    return out;
  }

  /** p(v = 1 | h) for rows of h in [0, 1]: rows x nVisible values. */
  public synchronized double[] visibleProbs(double[] h) {
    long n = rows(h, nHidden, "h");
    double[] out = new double[(int) n * nVisible];
    ZetaNative.zeta_rbm_visible_probs(cptr(), h, n, out);
    return out;
  }

  /** Exact log Z (at most 30 units in the smaller layer, else ZetaException ERR_UNSUPPORTED). */
  public double logZExact() {
    return logZExact(null);
  }

  public synchronized double logZExact(ProgressListener listener) {
    double[] logZ = new double[1];
    long p = cptr();
    withListener(listener, callback -> ZetaNative.zeta_rbm_log_z_exact_progress(p, callback, logZ));
    return logZ[0];
  }

  /** AIS estimate of log Z with nRuns >= 2 runs and nBetas >= 3 temperatures, its own generator seeded by
   *  seed; stdDev() of the result is the standard error. */
  public Estimate logZAis(int nRuns, int nBetas, long seed) {
    return logZAis(nRuns, nBetas, seed, null);
  }

  public synchronized Estimate logZAis(int nRuns, int nBetas, long seed, ProgressListener listener) {
    double[] logZ = new double[1];
    double[] stdErr = new double[1];
    long p = cptr();
    withListener(listener, callback ->
        ZetaNative.zeta_rbm_log_z_ais_progress(p, nRuns, nBetas, seed, callback, logZ, stdErr));
    return new Estimate(logZ[0], stdErr[0]);
  }

  /** nSamples x nVisible binary values from independent chains of nGibbsSteps sweeps each. */
  public synchronized double[] sample(long nSamples, int nGibbsSteps) {
    double[] out = new double[arrayLength(nSamples, nVisible, "nSamples")];
    ZetaNative.zeta_rbm_sample(ptr(), nSamples, nGibbsSteps, out);
    return out;
  }

  /**
   * nSteps >= 1 block-Gibbs sweeps (h ~ p(h | v), then v ~ p(v | h)) from each row of v (values in [0, 1]: the first h
   * is drawn from p(h | v) of the row as it is), one chain per row, drawn with this model's generator: the last
   * visible states, rows x nVisible values 0.0/1.0 (scikit-learn's BernoulliRBM.gibbs for nSteps = 1).
   */
  public synchronized double[] gibbs(double[] v, int nSteps) {
    long n = rows(v, nVisible, "v");
    double[] out = new double[v.length];
    ZetaNative.zeta_rbm_gibbs(ptr(), v, n, nSteps, out);
    return out;
  }

  /**
   * The removal cost C_k of every hidden unit against binary rows of data: the exact change of KL(data || model)
   * when unit k alone is deleted (C_k <= 0: the unit can go without the fit getting worse), p(h_k = 0) by
   * enumeration (at most 30 units in the smaller layer, else ZetaException ERR_UNSUPPORTED). nHidden values.
   */
  public synchronized double[] removalCostsExact(double[] data) {
    double[] costs = new double[nHidden];
    ZetaNative.zeta_rbm_removal_costs_exact(cptr(), data, rows(data, nVisible, "data"), costs);
    return costs;
  }

  /** Deletes hidden unit k (0 <= k < nHidden, and nHidden >= 2): W loses column k, c entry k; later units move
   *  down by one. A Trainer made before refuses to step afterwards; a Pruner follows. */
  public synchronized void removeHidden(int k) {
    ZetaNative.zeta_rbm_remove_hidden(ptr(), k);
    refreshShape();
  }

  /** Writes a model file (atomically: a failed save leaves no partial file). */
  public synchronized void save(String path) {
    ZetaNative.zeta_rbm_save(cptr(), require(path, "path"));
  }

  /** The model file's bytes. */
  public synchronized byte[] toBytes() {
    long[] size = new long[1];
    ZetaNative.zeta_rbm_to_bytes(cptr(), null, 0, size);
    if (size[0] > Integer.MAX_VALUE) {
      throw new ZetaException(Status.ERR_UNSUPPORTED, "model of " + size[0] + " bytes does not fit a Java array");
    }
    byte[] bytes = new byte[(int) size[0]];
    ZetaNative.zeta_rbm_to_bytes(cptr(), bytes, bytes.length, size);
    return bytes;
  }
}
