using System;

namespace Zeta {

/// <summary>Warnings of the tracked log Z: bits of TrackingHealth.Warnings (the C API's ZETA_TRACKING_*
/// values).</summary>
[Flags]
public enum TrackingWarnings {
  None = 0,
  /// <summary>A neighbouring pair of rungs swapped less than 20% of the time.</summary>
  LowSwapRate = ZetaNative.ZETA_TRACKING_LOW_SWAP_RATE,
  /// <summary>Less than 20% of the beta = 1 chains changed mode.</summary>
  ColdChainsStuck = ZetaNative.ZETA_TRACKING_COLD_CHAINS_STUCK,
  /// <summary>In some update, the beta = 1 importance weights' effective sample size was below 30% of the
  /// chains.</summary>
  LowEss = ZetaNative.ZETA_TRACKING_LOW_ESS,
  /// <summary>The bridges between rungs gave fewer than 10 independent readings in the window.</summary>
  FewBridgeSamples = ZetaNative.ZETA_TRACKING_FEW_BRIDGE_SAMPLES,
}

/// <summary>The tracker's own diagnostics over its last complete window of 150 updates
/// (zeta_trainer_tracking_health). A warning says the tracked log Z's standard deviation should not be believed,
/// not that the value is wrong. Before the first complete window the values are NaN and Warnings is None.</summary>
public struct TrackingHealth {
  /// <summary>The lowest swap acceptance rate of a neighbouring pair of rungs over the window.</summary>
  public double MinSwapRate { get; }
  /// <summary>The share of beta = 1 chain slots whose mode (most probable h) changed from the window's start to
  /// its end.</summary>
  public double ColdModeChanges { get; }
  /// <summary>The lowest effective sample size of one update's beta = 1 importance weights, as a fraction of the
  /// chains.</summary>
  public double MinEssFraction { get; }
  public TrackingWarnings Warnings { get; }

  internal TrackingHealth(double minSwapRate, double coldModeChanges, double minEssFraction,
                          TrackingWarnings warnings) {
    MinSwapRate = minSwapRate;
    ColdModeChanges = coldModeChanges;
    MinEssFraction = minEssFraction;
    Warnings = warnings;
  }

  public override string ToString() =>
      $"swap rate {MinSwapRate}, cold mode changes {ColdModeChanges}, ESS fraction {MinEssFraction}, " +
      $"warnings {Warnings}";
}

/// <summary>Stochastic maximum likelihood training (CD, PCD or SML-PT) with online log Z tracking under
/// parallel tempering. The trainer borrows its Rbm and updates it in place; the Rbm's native memory lives
/// until the trainer is disposed too. Calls lock the trainer, then its Rbm.</summary>
public sealed class Trainer : Handle {
  public Rbm Rbm { get; }

  /// <summary>options are copied; see Options for the keys.</summary>
  public Trainer(Rbm rbm, Options options) : base(Create(rbm, options), ZetaNative.zeta_trainer_free, rbm) {
    Rbm = rbm;
  }

  private static IntPtr Create(Rbm rbm, Options options) {
    Require(rbm, nameof(rbm));
    Require(options, nameof(options));
    lock (rbm) {
      lock (options) {
        ZetaNative.zeta_trainer_new(rbm.Ptr, options.CPtr, out IntPtr handle);
        rbm.Borrow();
        return handle;
      }
    }
  }

  /// <summary>One update from a mini-batch of rows (rows x NVisible, row-major): binary, or values in [0, 1] with
  /// the option visible_probabilities. The rows may equally be float[] or byte[]; every type gives the same numbers
  /// for the same values, and the library reads each where it is (the marshaller pins the array). A bad value is
  /// named by row and column in the exception.</summary>
  public void Step(double[] batch) {
    lock (this) {
      lock (Rbm) {
        ZetaNative.zeta_trainer_step(Ptr, batch, Rows(batch, Rbm.NVisible, nameof(batch)));
      }
    }
  }

  /// <summary>Step on rows of float (the same rules as double).</summary>
  public void Step(float[] batch) {
    lock (this) {
      lock (Rbm) {
        ZetaNative.zeta_trainer_step_f32(Ptr, batch, Rows(batch, Rbm.NVisible, nameof(batch)));
      }
    }
  }

  /// <summary>Step on rows of bytes, each 0 or 1 whatever visible_probabilities says: the narrowest way to hand
  /// over binary data.</summary>
  public void Step(byte[] batch) {
    lock (this) {
      lock (Rbm) {
        ZetaNative.zeta_trainer_step_u8(Ptr, batch, Rows(batch, Rbm.NVisible, nameof(batch)));
      }
    }
  }

  /// <summary>nUpdates steps on consecutive mini-batches of batchSize rows of data, wrapping around; listener
  /// (may be null) runs after every update (stage "training", Value = tracked log Z). On cancellation the
  /// finished updates are kept.</summary>
  public void Train(double[] data, long batchSize, long nUpdates, Func<Progress, bool> listener = null) {
    lock (this) {
      lock (Rbm) {
        IntPtr p = Ptr;
        long n = Rows(data, Rbm.NVisible, nameof(data));
        WithListener(listener, callback =>
            ZetaNative.zeta_trainer_train(p, data, n, batchSize, nUpdates, callback));
      }
    }
  }

  /// <summary>Train on rows of float, as Step(float[]).</summary>
  public void Train(float[] data, long batchSize, long nUpdates, Func<Progress, bool> listener = null) {
    lock (this) {
      lock (Rbm) {
        IntPtr p = Ptr;
        long n = Rows(data, Rbm.NVisible, nameof(data));
        WithListener(listener, callback =>
            ZetaNative.zeta_trainer_train_f32(p, data, n, batchSize, nUpdates, callback));
      }
    }
  }

  /// <summary>Train on rows of 0/1 bytes, as Step(byte[]).</summary>
  public void Train(byte[] data, long batchSize, long nUpdates, Func<Progress, bool> listener = null) {
    lock (this) {
      lock (Rbm) {
        IntPtr p = Ptr;
        long n = Rows(data, Rbm.NVisible, nameof(data));
        WithListener(listener, callback =>
            ZetaNative.zeta_trainer_train_u8(p, data, n, batchSize, nUpdates, callback));
      }
    }
  }

  /// <summary>Tracked log Z of the current model (posterior mean and standard deviation); needs method 2
  /// (PT).</summary>
  public Estimate LogZ() {
    lock (this) {
      double[] mean = new double[1], sd = new double[1];
      ZetaNative.zeta_trainer_log_z(CPtr, mean, sd);
      return new Estimate(mean[0], sd[0]);
    }
  }

  /// <summary>The tracker's warnings and the diagnostics behind them over the last complete window of 150
  /// updates (zeta_trainer_tracking_health; NaN values and no warning before it); needs method 2 (PT).</summary>
  public TrackingHealth TrackingHealth() {
    lock (this) {
      double[] swap = new double[1], modes = new double[1], ess = new double[1];
      var warnings = new int[1];
      ZetaNative.zeta_trainer_tracking_health(CPtr, swap, modes, ess, warnings);
      return new TrackingHealth(swap[0], modes[0], ess[0], (TrackingWarnings)warnings[0]);
    }
  }

  /// <summary>log Z of the current model held fixed for <paramref name="sweeps"/> sampler iterations on a copy
  /// of the chains, the first <paramref name="burnIn"/> dropped (zeta_trainer_settled_log_z: free of the lag of
  /// the chains behind a moving model; training is unaffected); needs method 2 (PT).</summary>
  public Estimate SettledLogZ(int sweeps, int burnIn) {
    lock (this) {
      lock (Rbm) {
        double[] mean = new double[1], sd = new double[1];
        ZetaNative.zeta_trainer_settled_log_z(CPtr, sweeps, burnIn, mean, sd);
        return new Estimate(mean[0], sd[0]);
      }
    }
  }

  /// <summary>Mean log-likelihood of binary rows from the tracked log Z, with the tracker's standard
  /// deviation.</summary>
  public Estimate LogLikelihood(double[] data) {
    lock (this) {
      lock (Rbm) {
        double[] mean = new double[1], sd = new double[1];
        ZetaNative.zeta_trainer_log_likelihood(CPtr, data, Rows(data, Rbm.NVisible, nameof(data)), mean, sd);
        return new Estimate(mean[0], sd[0]);
      }
    }
  }

  /// <summary>Updates done so far.</summary>
  public long Steps {
    get {
      lock (this) {
        var steps = new long[1];
        ZetaNative.zeta_trainer_steps(CPtr, steps);
        return steps[0];
      }
    }
  }

  /// <summary>The learning rate the next update will use.</summary>
  public double LearningRate {
    get {
      lock (this) {
        var rate = new double[1];
        ZetaNative.zeta_trainer_learning_rate(CPtr, rate);
        return rate[0];
      }
    }
  }

  /// <summary>Number of temperatures M (1 for CD/PCD).</summary>
  public int NTemperatures {
    get {
      lock (this) {
        var m = new int[1];
        ZetaNative.zeta_trainer_n_temperatures(CPtr, m);
        return m[0];
      }
    }
  }

  /// <summary>Chains per temperature N.</summary>
  public int NChains {
    get {
      lock (this) {
        var n = new int[1];
        ZetaNative.zeta_trainer_n_chains(CPtr, n);
        return n[0];
      }
    }
  }

  /// <summary>Round trips beta 1 -&gt; 0 -&gt; 1 completed by the replicas.</summary>
  public long RoundTrips {
    get {
      lock (this) {
        var trips = new long[1];
        ZetaNative.zeta_trainer_round_trips(CPtr, trips);
        return trips[0];
      }
    }
  }

  /// <summary>The current ladder, beta = 1 first (M values).</summary>
  public double[] Betas() {
    lock (this) {
      var betas = new double[NTemperatures];
      ZetaNative.zeta_trainer_betas(CPtr, betas, betas.Length);
      return betas;
    }
  }

  /// <summary>Swap acceptance rate of each neighbouring pair of temperatures (M - 1 values).</summary>
  public double[] SwapRates() {
    lock (this) {
      var rates = new double[NTemperatures - 1];
      ZetaNative.zeta_trainer_swap_rates(CPtr, rates, rates.Length);
      return rates;
    }
  }

  /// <summary>The chains of rung temperatureIndex (0 = beta 1): NChains x NVisible binary values.</summary>
  public double[] Chains(int temperatureIndex) {
    lock (this) {
      var output = new double[ArrayLength(NChains, Rbm.NVisible, nameof(NChains))];
      ZetaNative.zeta_trainer_chains(CPtr, temperatureIndex, output, output.Length);
      return output;
    }
  }
}

}
