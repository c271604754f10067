using System;

namespace Zeta {

/// <summary>Values of option softmax_method: Set("softmax_method", (double)SoftmaxMethod.Nce).</summary>
public enum SoftmaxMethod {
  Exact = ZetaNative.ZETA_SOFTMAX_EXACT,
  Importance = ZetaNative.ZETA_SOFTMAX_IMPORTANCE,
  Bernoulli = ZetaNative.ZETA_SOFTMAX_BERNOULLI,
  Ranking = ZetaNative.ZETA_SOFTMAX_RANKING,
  NegativeSampling = ZetaNative.ZETA_SOFTMAX_NEGATIVE_SAMPLING,
  Nce = ZetaNative.ZETA_SOFTMAX_NCE,
  BlackOut = ZetaNative.ZETA_SOFTMAX_BLACKOUT,
}

/// <summary>Many-class softmax regression trained by sampled normalisation (Barber and Botev). The training
/// objective is option softmax_method; rows are NFeatures finite doubles, labels class indices.</summary>
public sealed class Softmax : Handle {
  public int NFeatures { get; }
  public int NClasses { get; }

  /// <summary>options (may be null: every default) are read for the softmax_* keys and seed.</summary>
  public Softmax(int nFeatures, int nClasses, Options options = null) : this(Create(nFeatures, nClasses, options)) {}

  private Softmax(IntPtr handle) : base(handle, ZetaNative.zeta_softmax_free, null) {
    int[] f = new int[1], c = new int[1];
    ZetaNative.zeta_softmax_shape(handle, f, c);
    NFeatures = f[0];
    NClasses = c[0];
  }

  private static IntPtr Create(int nFeatures, int nClasses, Options options) {
    IntPtr handle;
    if (options == null) {
      ZetaNative.zeta_softmax_new(nFeatures, nClasses, IntPtr.Zero, out handle);
    } else {
      lock (options) {
        ZetaNative.zeta_softmax_new(nFeatures, nClasses, options.CPtr, out handle);
      }
    }
    return handle;
  }

  public static Softmax Load(string path) {
    ZetaNative.zeta_softmax_load(Require(path, nameof(path)), out IntPtr handle);
    return new Softmax(handle);
  }

  public static Softmax FromBytes(byte[] bytes) {
    ZetaNative.zeta_softmax_from_bytes(Require(bytes, nameof(bytes)), bytes.Length, out IntPtr handle);
    return new Softmax(handle);
  }

  /// <summary>An independent copy (parameters, momentum, class counts, generators).</summary>
  public Softmax Copy() {
    lock (this) {
      ZetaNative.zeta_softmax_clone(CPtr, out IntPtr handle);
      return new Softmax(handle);
    }
  }

  public long Steps {
    get {
      lock (this) {
        var steps = new long[1];
        ZetaNative.zeta_softmax_steps(CPtr, steps);
        return steps[0];
      }
    }
  }

  /// <summary>Class counts (NClasses entries &gt;= 0) for the proposal and Bernoulli distributions.</summary>
  public void SetClassCounts(long[] counts) {
    lock (this) {
      Require(counts, nameof(counts));
      if (counts.Length != NClasses) {
        throw new ZetaArgumentException($"counts has {counts.Length} entries, expected {NClasses}");
      }
      ZetaNative.zeta_softmax_set_class_counts(Ptr, counts, counts.Length);
    }
  }

  /// <summary>One momentum update from a mini-batch; returns the batch mean of the objective before the
  /// update.</summary>
  public double TrainBatch(double[] x, int[] labels) {
    lock (this) {
      long n = Rows(x, NFeatures, nameof(x));
      var objective = new double[1];
      ZetaNative.zeta_softmax_train_batch(Ptr, x, EbpNet.Labels(labels, n), n, objective);
      return objective[0];
    }
  }

  /// <summary>nEpochs passes in mini-batches of batchSize rows; listener (may be null) gets each batch's
  /// objective as Value.</summary>
  public void TrainEpochs(double[] x, int[] labels, long batchSize, int nEpochs, bool shuffle,
                          Func<Progress, bool> listener = null) {
    lock (this) {
      IntPtr p = Ptr;
      long n = Rows(x, NFeatures, nameof(x));
      EbpNet.Labels(labels, n);
      WithListener(listener, callback =>
          ZetaNative.zeta_softmax_train_epochs(p, x, labels, n, batchSize, nEpochs, shuffle ? 1 : 0, callback));
    }
  }

  /// <summary>p(c|x): rows x NClasses values.</summary>
  public double[] Probabilities(double[] x) {
    lock (this) {
      long n = Rows(x, NFeatures, nameof(x));
      var result = new double[ArrayLength(Math.Max(n, 1), NClasses, "rows")];
      ZetaNative.zeta_softmax_probabilities(CPtr, x, n, result);
      return result;
    }
  }

  /// <summary>log p(c|x): rows x NClasses values.</summary>
  public double[] LogProbabilities(double[] x) {
    lock (this) {
      long n = Rows(x, NFeatures, nameof(x));
      var result = new double[ArrayLength(Math.Max(n, 1), NClasses, "rows")];
      ZetaNative.zeta_softmax_log_probabilities(CPtr, x, n, result);
      return result;
    }
  }

  /// <summary>argmax_c p(c|x) of each row.</summary>
  public int[] Predict(double[] x) {
    lock (this) {
      long n = Rows(x, NFeatures, nameof(x));
      var labels = new int[Math.Max(n, 1)];
      ZetaNative.zeta_softmax_predict(CPtr, x, n, labels);
      return labels;
    }
  }

  /// <summary>Exact mean log-likelihood of a labelled data set.</summary>
  public double LogLikelihood(double[] x, int[] labels) {
    lock (this) {
      long n = Rows(x, NFeatures, nameof(x));
      var mean = new double[1];
      ZetaNative.zeta_softmax_log_likelihood(CPtr, x, EbpNet.Labels(labels, n), n, mean);
      return mean[0];
    }
  }

  /// <summary>Fraction of rows whose argmax class is not the label.</summary>
  public double ErrorRate(double[] x, int[] labels) {
    lock (this) {
      long n = Rows(x, NFeatures, nameof(x));
      var rate = new double[1];
      ZetaNative.zeta_softmax_error_rate(CPtr, x, EbpNet.Labels(labels, n), n, rate);
      return rate[0];
    }
  }

  public void Save(string path) {
    lock (this) {
      ZetaNative.zeta_softmax_save(CPtr, Require(path, nameof(path)));
    }
  }

  public byte[] ToBytes() {
    lock (this) {
      var size = new long[1];
      ZetaNative.zeta_softmax_to_bytes(CPtr, null, 0, size);
      var bytes = new byte[ArrayLength(size[0], 1, "model size")];
      ZetaNative.zeta_softmax_to_bytes(CPtr, bytes, bytes.Length, size);
      return bytes;
    }
  }
}

}
