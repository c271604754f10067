using System;

namespace Zeta {

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

  /// <summary>One update from a mini-batch of binary rows.</summary>
  public void Step(double[] batch) {
    lock (this) {
      lock (Rbm) {
        ZetaNative.zeta_trainer_step(Ptr, batch, Rows(batch, Rbm.NVisible, nameof(batch)));
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

  /// <summary>Tracked log Z of the current model (posterior mean and standard deviation); needs method 2
  /// (PT).</summary>
  public Estimate LogZ() {
    lock (this) {
      double[] mean = new double[1], sd = new double[1];
      ZetaNative.zeta_trainer_log_z(CPtr, mean, sd);
      return new Estimate(mean[0], sd[0]);
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
