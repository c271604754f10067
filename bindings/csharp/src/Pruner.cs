using System;

namespace Zeta {

/// <summary>Removes hidden units of a trained Rbm while the fit holds (Saito &amp; Kato, "Decreasing the Size of
/// the Restricted Boltzmann Machine", 2019): each step removes every unit whose sampled removal cost passes
/// C_k + m sd_k &lt;= 0, or else moves the parameters so that the cheapest unit's cost and the KL divergence both
/// fall, and tracks log Z across the updates and the removals. The pruner borrows its Rbm and shrinks it in place
/// (its NHidden follows when each call returns); the Rbm's native memory lives until the pruner is disposed too.
/// Calls lock the pruner, then its Rbm. Options: the prune_* keys, n_temperatures, tempering, single_precision,
/// tracker_sigma_b2 and seed.</summary>
public sealed class Pruner : Handle {
  public Rbm Rbm { get; }

  /// <summary>options (may be null: every default, the paper's Bars-and-Stripes settings) are copied.</summary>
  public Pruner(Rbm rbm, Options options = null) : base(Create(rbm, options), ZetaNative.zeta_pruner_free, rbm) {
    Rbm = rbm;
  }

  private static IntPtr Create(Rbm rbm, Options options) {
    Require(rbm, nameof(rbm));
    lock (rbm) {
      IntPtr handle;
      if (options == null) {
        ZetaNative.zeta_pruner_new(rbm.Ptr, IntPtr.Zero, out handle);
      } else {
        lock (options) {
          ZetaNative.zeta_pruner_new(rbm.Ptr, options.CPtr, out handle);
        }
      }
      rbm.Borrow();
      return handle;
    }
  }

  /// <summary>One step on a mini-batch of binary rows; returns the number of units it removed.</summary>
  public int Step(double[] batch) {
    lock (this) {
      lock (Rbm) {
        var removed = new int[1];
        try {
          ZetaNative.zeta_pruner_step(Ptr, batch, Rows(batch, Rbm.NVisible, nameof(batch)), removed);
        } finally {
          Rbm.RefreshShape();
        }
        return removed[0];
      }
    }
  }

  /// <summary>steps steps on consecutive mini-batches of batchSize rows of data, wrapping around; listener (may be
  /// null) runs after every step (stage "pruning", Value = the number of hidden units). On cancellation the
  /// finished steps are kept.</summary>
  public void Run(double[] data, int batchSize, long steps, Func<Progress, bool> listener = null) {
    lock (this) {
      lock (Rbm) {
        IntPtr p = Ptr;
        long n = Rows(data, Rbm.NVisible, nameof(data));
        try {
          WithListener(listener, callback => ZetaNative.zeta_pruner_run(p, data, n, batchSize, steps, callback));
        } finally {
          Rbm.RefreshShape();
        }
      }
    }
  }

  /// <summary>The removal costs C_k the last step estimated, one per hidden unit (NaN before the first step and
  /// after the Rbm was changed outside the pruner).</summary>
  public double[] Costs() {
    return CostsAndErrors().Item1;
  }

  /// <summary>Their standard errors (+infinity where the costs are unknown).</summary>
  public double[] CostStdErrs() {
    return CostsAndErrors().Item2;
  }

  private Tuple<double[], double[]> CostsAndErrors() {
    lock (this) {
      lock (Rbm) {
        int n = Rbm.NHidden;
        double[] costs = new double[n], errors = new double[n];
        ZetaNative.zeta_pruner_costs(CPtr, costs, errors, n);
        return Tuple.Create(costs, errors);
      }
    }
  }

  /// <summary>Steps done so far.</summary>
  public long Steps {
    get {
      lock (this) {
        var steps = new long[1];
        ZetaNative.zeta_pruner_steps(CPtr, steps);
        return steps[0];
      }
    }
  }

  /// <summary>Anchors a single rung's (n_temperatures 1) log Z tracking at an independent estimate of log Z of the
  /// model as it is now (e.g. from AIS); the updates and removals then carry it (zeta_pruner_anchor_log_z).
  /// Anchoring again is a check that calibrates the carried value's drift (LastLogZCheck).</summary>
  public void AnchorLogZ(double mean, double stdDev) {
    lock (this) {
      ZetaNative.zeta_pruner_anchor_log_z(CPtr, mean, stdDev);
    }
  }

  /// <summary>Anchors a single rung's log Z by AIS (runs runs, nBetas temperatures) whose runs' final states go on
  /// as weighted witnesses that carry it across the updates and removals (zeta_pruner_anchor_ais): unbiased in Z
  /// however slowly the chains mix, where AnchorLogZ's carried value runs away on large models, but behind where
  /// the model moves mass to where no witness is. Anchoring again is a check (LastLogZCheck) that calibrates the
  /// witnesses' own drift.</summary>
  public void AnchorAis(int runs, int nBetas) {
    lock (this) {
      ZetaNative.zeta_pruner_anchor_ais(CPtr, runs, nBetas);
    }
  }

  /// <summary>Sweeps run before the first step's costs (prune_burn_in plus settling).</summary>
  public long SettlingSweeps {
    get {
      lock (this) {
        var sweeps = new long[1];
        ZetaNative.zeta_pruner_settling(CPtr, sweeps, null);
        return sweeps[0];
      }
    }
  }

  /// <summary>1: the chains from the base rates and from the data agreed before the first costs; 0: not within
  /// prune_settle_max_sweeps (the costs rest on chains not at equilibrium); -1: not known (before the first step,
  /// or settling off).</summary>
  public int Settled {
    get {
      lock (this) {
        var settled = new int[1];
        ZetaNative.zeta_pruner_settling(CPtr, null, settled);
        return settled[0];
      }
    }
  }

  /// <summary>The chains of every rung stacked (rung i in rows [i N, (i+1) N), 0 = beta 1, N = prune_chains),
  /// NVisible binary values per row, for checkpoints (zeta_pruner_chains).</summary>
  public double[] Chains() {
    lock (this) {
      var rows = new long[1];
      ZetaNative.zeta_pruner_chains(CPtr, null, 0, rows);
      var output = new double[ArrayLength(rows[0], Rbm.NVisible, "chains")];
      ZetaNative.zeta_pruner_chains(CPtr, output, output.Length, rows);
      return output;
    }
  }

  /// <summary>Starts the chains from given states, stacked as Chains() gives them, or a PCD trainer's persistent
  /// chains (trainer.Chains(0), as many): taken as they are, no burn-in or settling
  /// (zeta_pruner_set_chains).</summary>
  public void SetChains(double[] chains) {
    lock (this) {
      lock (Rbm) {
        ZetaNative.zeta_pruner_set_chains(CPtr, chains, Rows(chains, Rbm.NVisible, nameof(chains)));
      }
    }
  }

  /// <summary>The last check of a single rung's carried log Z: AnchorLogZ on an anchored pruner compares the
  /// carried value with the new estimate (zeta_pruner_log_z_check).</summary>
  public sealed class LogZCheck {
    /// <summary>Pruner steps at the check; -1: no check yet.</summary>
    public long Step { get; }
    /// <summary>Carried value minus the new estimate (NaN before a check).</summary>
    public double Difference { get; }
    /// <summary>The difference over its standard deviation; |z| &gt; 3: the carried value had drifted beyond its
    /// error bars.</summary>
    public double Z { get; }
    /// <summary>Drift variance per update pooled over the checks; it widens LogZ().StdDev from then on.</summary>
    public double DriftVariance { get; }

    internal LogZCheck(long step, double difference, double z, double driftVariance) {
      Step = step;
      Difference = difference;
      Z = z;
      DriftVariance = driftVariance;
    }
  }

  /// <summary>The last check of the carried log Z (see LogZCheck).</summary>
  public LogZCheck LastLogZCheck() {
    lock (this) {
      var step = new long[1];
      double[] difference = new double[1], z = new double[1], drift = new double[1];
      ZetaNative.zeta_pruner_log_z_check(CPtr, step, difference, z, drift);
      return new LogZCheck(step[0], difference[0], z[0], drift[0]);
    }
  }

  /// <summary>Tracked log Z of the model as the last step left it (posterior mean and standard deviation; before
  /// the first step the W = 0 guess with StdDev +infinity).</summary>
  public Estimate LogZ() {
    lock (this) {
      double[] mean = new double[1], sd = new double[1];
      ZetaNative.zeta_pruner_log_z(CPtr, mean, sd);
      return new Estimate(mean[0], sd[0]);
    }
  }
}

}
