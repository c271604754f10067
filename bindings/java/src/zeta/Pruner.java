package zeta;

/**
 * Removes hidden units of a trained Rbm while the fit holds (Saito &amp; Kato, "Decreasing the Size of the
 * Restricted Boltzmann Machine", 2019): each step removes every unit whose sampled removal cost passes
 * C_k + m sd_k &lt;= 0, or else moves the parameters so that the cheapest unit's cost and the KL divergence both
 * fall, and tracks log Z across the updates and the removals. The pruner borrows its Rbm and shrinks it in place
 * (its nHidden() follows when each call returns); the Rbm's native memory lives until the pruner is closed too.
 * Calls lock the pruner, then its Rbm. Options: the prune_* keys, n_temperatures, tempering, single_precision, tracker_sigma_b2 and seed.
 */
public final class Pruner extends Handle {
  private final Rbm rbm;

  /** Every option at its default (the paper's Bars-and-Stripes settings). */
  public Pruner(Rbm rbm) {
    this(rbm, null);
  }

  /** options (may be null: every default) are copied. */
  public Pruner(Rbm rbm, Options options) {
    super(create(rbm, options), ZetaNative::zeta_pruner_free, rbm);
    this.rbm = rbm;
  }

  private static long create(Rbm rbm, Options options) {
    require(rbm, "rbm");
    synchronized (rbm) {
      long[] out = new long[1];
      if (options == null) {
        ZetaNative.zeta_pruner_new(rbm.ptr(), 0, out);
      } else {
        synchronized (options) {
          ZetaNative.zeta_pruner_new(rbm.ptr(), options.cptr(), out);
        }
      }
      rbm.borrow();
      return out[0];
    }
  }

  public Rbm rbm() {
    return rbm;
  }

  /** One step on a mini-batch of binary rows; returns the number of units it removed. */
  public int step(double[] batch) {
    synchronized (this) {
      synchronized (rbm) {
        int[] removed = new int[1];
        try {
          ZetaNative.zeta_pruner_step(ptr(), batch, rows(batch, rbm.nVisible(), "batch"), removed);
        } finally {
          rbm.refreshShape();
        }
        return removed[0];
      }
    }
  }

  /** steps steps on consecutive mini-batches of batchSize rows of data, wrapping around. */
  public void run(double[] data, int batchSize, long steps) {
    run(data, batchSize, steps, null);
  }

  /** As run, calling listener after every step (stage "pruning", value = the number of hidden units); on
   *  cancellation the finished steps are kept. */
  public void run(double[] data, int batchSize, long steps, ProgressListener listener) {
    synchronized (this) {
      synchronized (rbm) {
        long p = ptr();
        long n = rows(data, rbm.nVisible(), "data");
        try {
          withListener(listener, callback ->
              ZetaNative.zeta_pruner_run(p, data, n, batchSize, steps, callback));
        } finally {
          rbm.refreshShape();
        }
      }
    }
  }

  /** The removal costs C_k the last step estimated, one per hidden unit (NaN before the first step and after the
   *  Rbm was changed outside the pruner). */
  public double[] costs() {
    return costsAndErrors()[0];
  }

  /** Their standard errors (+infinity where the costs are unknown). */
  public double[] costStdErrs() {
    return costsAndErrors()[1];
  }

  private double[][] costsAndErrors() {
    synchronized (this) {
      synchronized (rbm) {
        int n = rbm.nHidden();
        double[][] out = {new double[n], new double[n]};
        ZetaNative.zeta_pruner_costs(cptr(), out[0], out[1], n);
        return out;
      }
    }
  }

  /** Steps done so far. */
  public synchronized long steps() {
    long[] steps = new long[1];
    ZetaNative.zeta_pruner_steps(cptr(), steps);
    return steps[0];
  }

  /** Anchors a single rung's (n_temperatures 1) log Z tracking at an independent estimate of log Z of the model as
   *  it is now (e.g. {@code rbm.logZAis(...)}); the updates and removals then carry it (zeta_pruner_anchor_log_z).
   *  Anchoring again is a check that calibrates the carried value's drift ({@link #logZCheck}). */
  public synchronized void anchorLogZ(double mean, double stdDev) {
    synchronized (rbm) {
      ZetaNative.zeta_pruner_anchor_log_z(cptr(), mean, stdDev);
    }
  }

  /** Anchors a single rung's log Z by AIS ({@code runs} runs, {@code nBetas} temperatures) whose runs' final states
   *  go on as weighted witnesses that carry it across the updates and removals (zeta_pruner_anchor_ais): unbiased
   *  in Z however slowly the chains mix, where {@link #anchorLogZ}'s carried value runs away on large models, but
   *  behind where the model moves mass to where no witness is. Anchoring again is a check ({@link #logZCheck})
   *  that calibrates the witnesses' own drift. */
  public synchronized void anchorAis(int runs, int nBetas) {
    synchronized (rbm) {
      ZetaNative.zeta_pruner_anchor_ais(cptr(), runs, nBetas);
    }
  }

  /** Sweeps run before the first step's costs (prune_burn_in plus settling). */
  public synchronized long settlingSweeps() {
    long[] sweeps = new long[1];
    ZetaNative.zeta_pruner_settling(cptr(), sweeps, null);
    return sweeps[0];
  }

  /** 1: the chains from the base rates and from the data agreed before the first costs; 0: not within
   *  prune_settle_max_sweeps (the costs rest on chains not at equilibrium); -1: not known (before the first step,
   *  or settling off). */
  public synchronized int settled() {
    int[] settled = new int[1];
    ZetaNative.zeta_pruner_settling(cptr(), null, settled);
    return settled[0];
  }

  /** The chains of every rung stacked (rung i in rows [i N, (i+1) N), 0 = beta 1, N = prune_chains), nVisible
   *  binary values per row, for checkpoints (zeta_pruner_chains). */
  public synchronized double[] chains() {
    long[] rows = new long[1];
    ZetaNative.zeta_pruner_chains(cptr(), null, 0, rows);
    double[] out = new double[arrayLength(rows[0], rbm.nVisible(), "chains")];
    ZetaNative.zeta_pruner_chains(cptr(), out, out.length, rows);
    return out;
  }

  /** Starts the chains from given states, stacked as {@link #chains} gives them, or a PCD trainer's persistent
   *  chains ({@code trainer.chains(0)}, as many): taken as they are, no burn-in or settling
   *  (zeta_pruner_set_chains). */
  public synchronized void setChains(double[] chains) {
    synchronized (rbm) {
      ZetaNative.zeta_pruner_set_chains(cptr(), chains, rows(chains, rbm.nVisible(), "chains"));
    }
  }

  /** The last check of a single rung's carried log Z: {@link #anchorLogZ} on an anchored pruner compares the
   *  carried value with the new estimate (zeta_pruner_log_z_check). */
  public static final class LogZCheck {
    /** Pruner steps at the check; -1: no check yet. */
    public final long step;
    /** Carried value minus the new estimate (NaN before a check). */
    public final double difference;
    /** The difference over its standard deviation; |z| > 3: the carried value had drifted beyond its error bars. */
    public final double z;
    /** Drift variance per update pooled over the checks; it widens logZ().stdDev() from then on. */
    public final double driftVariance;

    LogZCheck(long step, double difference, double z, double driftVariance) {
      this.step = step;
      this.difference = difference;
      this.z = z;
      this.driftVariance = driftVariance;
    }
  }

  /** The last check of the carried log Z (see {@link LogZCheck}). */
  public synchronized LogZCheck logZCheck() {
    long[] step = new long[1];
    double[] difference = new double[1];
    double[] z = new double[1];
    double[] drift = new double[1];
    ZetaNative.zeta_pruner_log_z_check(cptr(), step, difference, z, drift);
    return new LogZCheck(step[0], difference[0], z[0], drift[0]);
  }

  /** Tracked log Z of the model as the last step left it (posterior mean and standard deviation; before the first
   *  step the W = 0 guess with stdDev +infinity). */
  public synchronized Estimate logZ() {
    double[] mean = new double[1];
    double[] sd = new double[1];
    ZetaNative.zeta_pruner_log_z(cptr(), mean, sd);
    return new Estimate(mean[0], sd[0]);
  }
}
