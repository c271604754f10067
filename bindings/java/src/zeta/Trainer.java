package zeta;

/**
 * Stochastic maximum likelihood training (CD, PCD or SML-PT) with online log Z tracking under parallel
 * tempering. The trainer borrows its Rbm and updates it in place; the Rbm's native memory lives until the
 * trainer is closed too (closing the Rbm first only ends its own use). Calls lock the trainer, then its Rbm.
 */
public final class Trainer extends Handle {
  private final Rbm rbm;

  /** options are copied; see Options for the keys. */
  public Trainer(Rbm rbm, Options options) {
    super(create(rbm, options), ZetaNative::zeta_trainer_free, rbm);
    this.rbm = rbm;
  }

  private static long create(Rbm rbm, Options options) {
    require(rbm, "rbm");
    require(options, "options");
    synchronized (rbm) {
      synchronized (options) {
        long[] out = new long[1];
        ZetaNative.zeta_trainer_new(rbm.ptr(), options.cptr(), out);
        rbm.borrow();
        return out[0];
      }
    }
  }

  public Rbm rbm() {
    return rbm;
  }

  /**
   * One update from a mini-batch of rows (rows x nVisible, row-major): binary, or values in [0, 1] with the option
   * visible_probabilities. The rows may equally be float[] or byte[]; every type gives the same numbers for the same
   * values, and the narrower ones cost less to hand over. A bad value is named by row and column in the exception.
   */
  public void step(double[] batch) {
    synchronized (this) {
      synchronized (rbm) {
        ZetaNative.zeta_trainer_step(ptr(), batch, rows(batch, rbm.nVisible(), "batch"));
      }
    }
  }

  /** step on rows of float (the same rules as double): read by the library where they are, no conversion here. */
  public void step(float[] batch) {
    synchronized (this) {
      synchronized (rbm) {
        ZetaNative.zeta_trainer_step_f32(ptr(), batch, rows(batch, rbm.nVisible(), "batch"));
      }
    }
  }

  /**
   * step on rows of bytes, each 0 or 1 whatever visible_probabilities says: the narrowest way to hand over binary
   * data (one byte per value). Java's byte is signed, but 0 and 1 are the same bytes either way; any other value
   * (read unsigned, so (byte) -1 is 255) is refused.
   */
  public void step(byte[] batch) {
    synchronized (this) {
      synchronized (rbm) {
        ZetaNative.zeta_trainer_step_u8(ptr(), batch, rows(batch, rbm.nVisible(), "batch"));
      }
    }
  }

  /** nUpdates steps on consecutive mini-batches of batchSize rows of data, wrapping around. */
  public void train(double[] data, long batchSize, long nUpdates) {
    train(data, batchSize, nUpdates, null);
  }

  /** As train, calling listener after every update (stage "training", value = tracked log Z); on
   *  cancellation the finished updates are kept. */
  public void train(double[] data, long batchSize, long nUpdates, ProgressListener listener) {
    synchronized (this) {
      synchronized (rbm) {
        long p = ptr();
        long n = rows(data, rbm.nVisible(), "data");
        withListener(listener, callback ->
            ZetaNative.zeta_trainer_train(p, data, n, batchSize, nUpdates, callback));
      }
    }
  }

  /** train on rows of float, as step(float[]). */
  public void train(float[] data, long batchSize, long nUpdates) {
    train(data, batchSize, nUpdates, null);
  }

  public void train(float[] data, long batchSize, long nUpdates, ProgressListener listener) {
    synchronized (this) {
      synchronized (rbm) {
        long p = ptr();
        long n = rows(data, rbm.nVisible(), "data");
        withListener(listener, callback ->
            ZetaNative.zeta_trainer_train_f32(p, data, n, batchSize, nUpdates, callback));
      }
    }
  }

  /** train on rows of 0/1 bytes, as step(byte[]). */
  public void train(byte[] data, long batchSize, long nUpdates) {
    train(data, batchSize, nUpdates, null);
  }

  public void train(byte[] data, long batchSize, long nUpdates, ProgressListener listener) {
    synchronized (this) {
      synchronized (rbm) {
        long p = ptr();
        long n = rows(data, rbm.nVisible(), "data");
        withListener(listener, callback ->
            ZetaNative.zeta_trainer_train_u8(p, data, n, batchSize, nUpdates, callback));
      }
    }
  }

  /** Tracked log Z of the current model (posterior mean and standard deviation); needs method 2 (PT). */
  public synchronized Estimate logZ() {
    double[] mean = new double[1];
    double[] sd = new double[1];
    ZetaNative.zeta_trainer_log_z(cptr(), mean, sd);
    return new Estimate(mean[0], sd[0]);
  }

  /**
   * The tracker's warnings and the diagnostics behind them over the last complete window of 150 updates
   * (zeta_trainer_tracking_health; NaN values and no warning before it); needs method 2 (PT).
   */
  public synchronized TrackingHealth trackingHealth() {
    double[] swap = new double[1];
    double[] modes = new double[1];
    double[] ess = new double[1];
    int[] warnings = new int[1];
    ZetaNative.zeta_trainer_tracking_health(cptr(), swap, modes, ess, warnings);
    return new TrackingHealth(swap[0], modes[0], ess[0], warnings[0]);
  }

  /**
   * log Z of the current model held fixed for {@code sweeps} sampler iterations on a copy of the chains, the first
   * {@code burnIn} dropped (zeta_trainer_settled_log_z: free of the lag of the chains behind a moving model; training
   * is unaffected); needs method 2 (PT).
   */
  public Estimate settledLogZ(int sweeps, int burnIn) {
    synchronized (this) {
      synchronized (rbm) {
        double[] mean = new double[1];
        double[] sd = new double[1];
        ZetaNative.zeta_trainer_settled_log_z(cptr(), sweeps, burnIn, mean, sd);
        return new Estimate(mean[0], sd[0]);
      }
    }
  }

  /** Mean log-likelihood of binary rows from the tracked log Z, with the tracker's standard deviation. */
  public Estimate logLikelihood(double[] data) {
    synchronized (this) {
      synchronized (rbm) {
        double[] mean = new double[1];
        double[] sd = new double[1];
        ZetaNative.zeta_trainer_log_likelihood(cptr(), data, rows(data, rbm.nVisible(), "data"), mean, sd);
        return new Estimate(mean[0], sd[0]);
      }
    }
  }

  /** Updates done so far. */
  public synchronized long steps() {
    long[] steps = new long[1];
    ZetaNative.zeta_trainer_steps(cptr(), steps);
    return steps[0];
  }

  /** The learning rate the next update will use. */
  public synchronized double learningRate() {
    double[] rate = new double[1];
    ZetaNative.zeta_trainer_learning_rate(cptr(), rate);
    return rate[0];
  }

  /** Number of temperatures M (1 for CD/PCD). */
  public synchronized int nTemperatures() {
    int[] m = new int[1];
    ZetaNative.zeta_trainer_n_temperatures(cptr(), m);
    return m[0];
  }

  /** Chains per temperature N. */
  public synchronized int nChains() {
    int[] n = new int[1];
    ZetaNative.zeta_trainer_n_chains(cptr(), n);
    return n[0];
  }

  /** The current ladder, beta = 1 first (M values). */
  public synchronized double[] betas() {
    double[] betas = new double[nTemperatures()];
    ZetaNative.zeta_trainer_betas(cptr(), betas, betas.length);
    return betas;
  }

  /** Swap acceptance rate of each neighbouring pair of temperatures (M - 1 values). */
  public synchronized double[] swapRates() {
    double[] rates = new double[nTemperatures() - 1];
    ZetaNative.zeta_trainer_swap_rates(cptr(), rates, rates.length);
    return rates;
  }

  /** Round trips beta 1 -> 0 -> 1 completed by the replicas. */
  public synchronized long roundTrips() {
    long[] trips = new long[1];
    ZetaNative.zeta_trainer_round_trips(cptr(), trips);
    return trips[0];
  }

  /** The chains of rung temperatureIndex (0 = beta 1): nChains x nVisible binary values. */
  public synchronized double[] chains(int temperatureIndex) {
    double[] out = new double[arrayLength(nChains(), rbm.nVisible(), "nChains")];
    ZetaNative.zeta_trainer_chains(cptr(), temperatureIndex, out, out.length);
    return out;
  }
}
