using System;

namespace Zeta {

/// <summary>A binary restricted Boltzmann machine, E(v,h) = -v'Wh - b'v - c'h. Arrays are row-major: W is
/// NVisible x NHidden, data sets are rows of NVisible values (0.0/1.0 where binary data is required).
/// Dispose it (using) to free its native memory at once.</summary>
public sealed class Rbm : Handle {
  public int NVisible { get; }
  public int NHidden => nHidden;
  private volatile int nHidden;  // falls when units are removed (RemoveHidden, a Pruner)
  private readonly IntPtr shapeHandle;  // for RefreshShape: a borrowing Pruner keeps the native model alive

  /// <summary>A model with W = 0, b = 0, c = 0; seed seeds its own generator (used by Sample).</summary>
  public Rbm(int nVisible, int nHidden, ulong seed) : this(Create(nVisible, nHidden, seed)) {}

  private Rbm(IntPtr handle) : base(handle, ZetaNative.zeta_rbm_free, null) {
    int[] v = new int[1], h = new int[1];
    ZetaNative.zeta_rbm_shape(handle, v, h);
    NVisible = v[0];
    nHidden = h[0];
    shapeHandle = handle;
  }

  /// <summary>Re-reads the number of hidden units after a call that may have removed some; the caller holds the
  /// lock and keeps the native model alive (its own call, or a Pruner borrowing it).</summary>
  internal void RefreshShape() {
    var h = new int[1];
    ZetaNative.zeta_rbm_shape(shapeHandle, null, h);
    nHidden = h[0];
  }

  private static IntPtr Create(int nVisible, int nHidden, ulong seed) {
    ZetaNative.zeta_rbm_new(nVisible, nHidden, seed, out IntPtr handle);
    return handle;
  }

  /// <summary>Loads a model file written by Save (ZetaException ERR_IO / ERR_FORMAT on failure).</summary>
  public static Rbm Load(string path) {
    ZetaNative.zeta_rbm_load(Require(path, nameof(path)), out IntPtr handle);
    return new Rbm(handle);
  }

  /// <summary>Reads the bytes written by ToBytes.</summary>
  public static Rbm FromBytes(byte[] bytes) {
    ZetaNative.zeta_rbm_from_bytes(Require(bytes, nameof(bytes)), bytes.Length, out IntPtr handle);
    return new Rbm(handle);
  }

  /// <summary>An independent copy (parameters, base rates and generator state).</summary>
  public Rbm Copy() {
    lock (this) {
      ZetaNative.zeta_rbm_clone(CPtr, out IntPtr handle);
      return new Rbm(handle);
    }
  }

  public void SetSeed(ulong seed) {
    lock (this) {
      ZetaNative.zeta_rbm_set_seed(Ptr, seed);
    }
  }

  /// <summary>W (NVisible x NHidden, row-major), b (NVisible), c (NHidden); all finite, else nothing
  /// changes.</summary>
  public void SetParams(double[] weights, double[] visibleBias, double[] hiddenBias) {
    lock (this) {
      CheckParams(weights, visibleBias, hiddenBias);
      ZetaNative.zeta_rbm_set_params(Ptr, weights, visibleBias, hiddenBias);
    }
  }

  /// <summary>Fills the three arrays (lengths as for SetParams).</summary>
  public void GetParams(double[] weights, double[] visibleBias, double[] hiddenBias) {
    lock (this) {
      CheckParams(weights, visibleBias, hiddenBias);
      ZetaNative.zeta_rbm_get_params(CPtr, weights, visibleBias, hiddenBias);
    }
  }

  private void CheckParams(double[] weights, double[] visibleBias, double[] hiddenBias) {
    Length(weights, (long)NVisible * NHidden, nameof(weights));
    Length(visibleBias, NVisible, nameof(visibleBias));
    Length(hiddenBias, NHidden, nameof(hiddenBias));
  }

  public double[] Weights() {
    var w = new double[NVisible * NHidden];
    GetParams(w, new double[NVisible], new double[NHidden]);
    return w;
  }

  public double[] VisibleBias() {
    var b = new double[NVisible];
    GetParams(new double[NVisible * NHidden], b, new double[NHidden]);
    return b;
  }

  public double[] HiddenBias() {
    var c = new double[NHidden];
    GetParams(new double[NVisible * NHidden], new double[NVisible], c);
    return c;
  }

  /// <summary>Hinton's initialisation from binary rows: W ~ N(0, weightSd^2), c = 0, b = logit of the column
  /// means.</summary>
  public void InitFromData(double[] data, double weightSd) {
    lock (this) {
      ZetaNative.zeta_rbm_init_from_data(Ptr, data, Rows(data, NVisible, nameof(data)), weightSd);
    }
  }

  /// <summary>Free energy of each binary row of v.</summary>
  public double[] FreeEnergy(double[] v) {
    lock (this) {
      long n = Rows(v, NVisible, nameof(v));
      var output = new double[n];
      ZetaNative.zeta_rbm_free_energy(CPtr, v, n, output);
      return output;
    }
  }

  /// <summary>Mean log-likelihood of binary rows given log Z.</summary>
  public double MeanLogLikelihood(double[] data, double logZ) {
    lock (this) {
      var output = new double[1];
      ZetaNative.zeta_rbm_mean_log_likelihood(CPtr, data, Rows(data, NVisible, nameof(data)), logZ, output);
      return output[0];
    }
  }

  /// <summary>p(h = 1 | v) for rows of v in [0, 1]: rows x NHidden values.</summary>
  public double[] HiddenProbs(double[] v) {
    lock (this) {
      long n = Rows(v, NVisible, nameof(v));
      var output = new double[n * NHidden];
      ZetaNative.zeta_rbm_hidden_probs(CPtr, v, n, output);
      return output;
    }
  }

  /// <summary>p(v = 1 | h) for rows of h in [0, 1]: rows x NVisible values.</summary>
  public double[] VisibleProbs(double[] h) {
    lock (this) {
      long n = Rows(h, NHidden, nameof(h));
      var output = new double[n * NVisible];
      ZetaNative.zeta_rbm_visible_probs(CPtr, h, n, output);
      return output;
    }
  }

  /// <summary>Exact log Z (at most 30 units in the smaller layer, else ZetaException
  /// ERR_UNSUPPORTED).</summary>
  public double LogZExact(Func<Progress, bool> listener = null) {
    lock (this) {
      var logZ = new double[1];
      IntPtr p = CPtr;
      WithListener(listener, callback => ZetaNative.zeta_rbm_log_z_exact_progress(p, callback, logZ));
      return logZ[0];
    }
  }

  /// <summary>AIS estimate of log Z with nRuns &gt;= 2 runs and nBetas &gt;= 3 temperatures, its own
  /// generator seeded by seed; StdDev of the result is the standard error.</summary>
  public Estimate LogZAis(int nRuns, int nBetas, ulong seed, Func<Progress, bool> listener = null) {
    lock (this) {
      var logZ = new double[1];
      var stdErr = new double[1];
      IntPtr p = CPtr;
      WithListener(listener, callback =>
          ZetaNative.zeta_rbm_log_z_ais_progress(p, nRuns, nBetas, seed, callback, logZ, stdErr));
      return new Estimate(logZ[0], stdErr[0]);
    }
  }

  /// <summary>nSamples x NVisible binary values from independent chains of nGibbsSteps sweeps
  /// each.</summary>
  public double[] Sample(long nSamples, int nGibbsSteps) {
    lock (this) {
      var output = new double[ArrayLength(nSamples, NVisible, nameof(nSamples))];
      ZetaNative.zeta_rbm_sample(Ptr, nSamples, nGibbsSteps, output);
      return output;
    }
  }

  /// <summary>nSteps &gt;= 1 block-Gibbs sweeps (h ~ p(h | v), then v ~ p(v | h)) from each row of v (values in
  /// [0, 1]: the first h is drawn from p(h | v) of the row as it is), one chain per row, drawn with this model's
  /// generator: the last visible states, rows x NVisible values 0.0/1.0 (scikit-learn's BernoulliRBM.gibbs for
  /// nSteps = 1).</summary>
  public double[] Gibbs(double[] v, int nSteps) {
    lock (this) {
      long n = Rows(v, NVisible, nameof(v));
      var output = new double[v.Length];
      ZetaNative.zeta_rbm_gibbs(Ptr, v, n, nSteps, output);
      return output;
    }
  }

  /// <summary>The removal cost C_k of every hidden unit against binary rows of data: the exact change of
  /// KL(data || model) when unit k alone is deleted (C_k &lt;= 0: the unit can go without the fit getting worse),
  /// p(h_k = 0) by enumeration (at most 30 units in the smaller layer, else ZetaException ERR_UNSUPPORTED).
  /// NHidden values.</summary>
  public double[] RemovalCostsExact(double[] data) {
    lock (this) {
      var costs = new double[NHidden];
      ZetaNative.zeta_rbm_removal_costs_exact(CPtr, data, Rows(data, NVisible, nameof(data)), costs);
      return costs;
    }
  }

  /// <summary>Deletes hidden unit k (0 &lt;= k &lt; NHidden, and NHidden &gt;= 2): W loses column k, c entry k;
  /// later units move down by one. A Trainer made before refuses to step afterwards; a Pruner follows.</summary>
  public void RemoveHidden(int k) {
    lock (this) {
      ZetaNative.zeta_rbm_remove_hidden(Ptr, k);
      RefreshShape();
    }
  }

  /// <summary>Writes a model file (atomically: a failed save leaves no partial file).</summary>
  public void Save(string path) {
    lock (this) {
      ZetaNative.zeta_rbm_save(CPtr, Require(path, nameof(path)));
    }
  }

  /// <summary>The model file's bytes.</summary>
  public byte[] ToBytes() {
    lock (this) {
      var size = new long[1];
      ZetaNative.zeta_rbm_to_bytes(CPtr, null, 0, size);
      var bytes = new byte[ArrayLength(size[0], 1, "model size")];
      ZetaNative.zeta_rbm_to_bytes(CPtr, bytes, bytes.Length, size);
      return bytes;
    }
  }
}

}
