using System;
using System.Collections.Generic;
using System.Collections.ObjectModel;
using System.Runtime.InteropServices;

namespace Zeta {

/// <summary>Values of option darn_estimator: Set("darn_estimator", (double)DarnEstimator.Reinforce).</summary>
public enum DarnEstimator {
  /// <summary>The paper's estimator: low variance, biased.</summary>
  Darn = 0,
  /// <summary>REINFORCE with a learned input-dependent baseline: unbiased.</summary>
  Reinforce = 1,
}

/// <summary>A parameter block of a DARN: its name and shape (row-major Rows x Cols values).</summary>
public sealed class DarnBlock {
  public string Name { get; }
  public long Rows { get; }
  public long Cols { get; }

  internal DarnBlock(string name, long rows, long cols) {
    Name = name;
    Rows = rows;
    Cols = cols;
  }

  public override string ToString() => $"{Name} ({Rows} x {Cols})";
}

/// <summary>A deep autoregressive network (Gregor, Danihelka, Mnih, Blundell and Wierstra, 2014) with its trainer:
/// binary layers x = h0, h1, ... generated top down with exact ancestral sampling, an encoder q(h | x), training by
/// the expected description length, and exact or importance-sampled log p(x). Rows of x are binary (0.0 or 1.0),
/// sizes run from the visible layer up. Parameters are named blocks (Blocks, and zeta.h). Values are in
/// nats.</summary>
public sealed class Darn : Handle {
  /// <summary>The most layer sizes a network has (the visible layer and up to 8 stochastic layers).</summary>
  public const int MaxLayers = 9;

  private readonly int[] sizes;

  /// <summary>The parameter blocks in the library's order.</summary>
  public ReadOnlyCollection<DarnBlock> Blocks { get; }

  /// <summary>sizes[0] = visible units, sizes[1..] = stochastic layers from the bottom up (2 to 9 sizes); options
  /// (may be null: every default) are read for the darn_* keys and seed.</summary>
  public Darn(int[] sizes, Options options = null) : this(Create(sizes, options)) {}

  private Darn(IntPtr handle) : base(handle, ZetaNative.zeta_darn_free, null) {
    var s = new int[MaxLayers];
    var n = new int[1];
    ZetaNative.zeta_darn_shape(handle, s, s.Length, n);
    sizes = new int[n[0]];
    Array.Copy(s, sizes, n[0]);
    var count = new int[1];
    ZetaNative.zeta_darn_param_count(handle, count);
    var blocks = new List<DarnBlock>();
    for (int i = 0; i < count[0]; i++) {
      long[] rows = new long[1], cols = new long[1];
      ZetaNative.zeta_darn_param_info(handle, i, out IntPtr name, rows, cols);
      blocks.Add(new DarnBlock(Marshal.PtrToStringAnsi(name), rows[0], cols[0]));
    }
    Blocks = blocks.AsReadOnly();
  }

  private static IntPtr Create(int[] sizes, Options options) {
    Require(sizes, nameof(sizes));
    IntPtr handle;
    if (options == null) {
      ZetaNative.zeta_darn_new(sizes, sizes.Length, IntPtr.Zero, out handle);
    } else {
      lock (options) {
        ZetaNative.zeta_darn_new(sizes, sizes.Length, options.CPtr, out handle);
      }
    }
    return handle;
  }

  public static Darn Load(string path) {
    ZetaNative.zeta_darn_load(Require(path, nameof(path)), out IntPtr handle);
    return new Darn(handle);
  }

  public static Darn FromBytes(byte[] bytes) {
    ZetaNative.zeta_darn_from_bytes(Require(bytes, nameof(bytes)), bytes.Length, out IntPtr handle);
    return new Darn(handle);
  }

  /// <summary>An independent copy (parameters, trainer state, training generator).</summary>
  public Darn Copy() {
    lock (this) {
      ZetaNative.zeta_darn_clone(CPtr, out IntPtr handle);
      return new Darn(handle);
    }
  }

  /// <summary>The layer sizes, visible first.</summary>
  public int[] Sizes => (int[])sizes.Clone();

  public int NVisible => sizes[0];

  /// <summary>A copy of block name (row-major).</summary>
  public double[] Param(string name) {
    lock (this) {
      DarnBlock b = Block(name);
      var values = new double[ArrayLength(b.Rows, b.Cols, "rows of " + name)];
      ZetaNative.zeta_darn_get_param(CPtr, name, values, values.Length);
      return values;
    }
  }

  /// <summary>Replaces block name; strictly lower-triangular blocks ("prior.weight", "*.autoregressive") must be
  /// zero on and above the diagonal. Nothing changes unless every value is accepted.</summary>
  public void SetParam(string name, double[] values) {
    lock (this) {
      Require(name, nameof(name));
      Require(values, nameof(values));
      ZetaNative.zeta_darn_set_param(Ptr, name, values, values.Length);
    }
  }

  /// <summary>One update on a mini-batch of binary rows; returns the batch's mean description length (nats)
  /// before it.</summary>
  public double TrainBatch(double[] x) {
    lock (this) {
      long n = Rows(x, NVisible, nameof(x));
      var dl = new double[1];
      ZetaNative.zeta_darn_train_batch(Ptr, x, n, dl);
      return dl[0];
    }
  }

  /// <summary>epochs passes over the rows in mini-batches of batchSize rows, shuffled every epoch; listener (may
  /// be null) gets the epoch's running mean description length as Value, and may cancel.</summary>
  public void TrainEpochs(double[] x, int batchSize, int epochs, Func<Progress, bool> listener = null) {
    lock (this) {
      IntPtr p = Ptr;
      long n = Rows(x, NVisible, nameof(x));
      WithListener(listener, callback => ZetaNative.zeta_darn_train_epochs(p, x, n, batchSize, epochs, callback));
    }
  }

  /// <summary>Exact log p(x) of each row by enumerating the hidden configurations (at most 30 hidden units in
  /// all, else a ZetaException with Status.ERR_UNSUPPORTED).</summary>
  public double[] LogProbExact(double[] x) {
    lock (this) {
      long n = Rows(x, NVisible, nameof(x));
      var result = new double[ArrayLength(Math.Max(n, 1), 1, "rows")];
      ZetaNative.zeta_darn_log_prob_exact(CPtr, x, n, result);
      return result;
    }
  }

  /// <summary>Importance-sampled log p(x) of each row (samples &gt;= 2 draws from the encoder, generator seeded
  /// by seed), with its delta-method standard error.</summary>
  public Estimate[] LogProbImportance(double[] x, long samples, ulong seed) {
    lock (this) {
      long n = Rows(x, NVisible, nameof(x));
      var logProb = new double[ArrayLength(Math.Max(n, 1), 1, "rows")];
      var stdErr = new double[logProb.Length];
      ZetaNative.zeta_darn_log_prob_is(CPtr, x, n, samples, seed, logProb, stdErr);
      var result = new Estimate[logProb.Length];
      for (int i = 0; i < result.Length; i++) {
        result[i] = new Estimate(logProb[i], stdErr[i]);
      }
      return result;
    }
  }

  /// <summary>The expected description length of each row (an upper bound on -log p(x)), from samples
  /// draws.</summary>
  public double[] DescriptionLength(double[] x, long samples, ulong seed) {
    lock (this) {
      long n = Rows(x, NVisible, nameof(x));
      var result = new double[ArrayLength(Math.Max(n, 1), 1, "rows")];
      ZetaNative.zeta_darn_description_length(CPtr, x, n, samples, seed, result);
      return result;
    }
  }

  /// <summary>n exact independent samples of x: n x NVisible values 0.0/1.0.</summary>
  public double[] Sample(long n, ulong seed) {
    lock (this) {
      var result = new double[ArrayLength(n, NVisible, nameof(n))];
      ZetaNative.zeta_darn_sample(CPtr, n, seed, result);
      return result;
    }
  }

  public void Save(string path) {
    lock (this) {
      ZetaNative.zeta_darn_save(CPtr, Require(path, nameof(path)));
    }
  }

  public byte[] ToBytes() {
    lock (this) {
      var size = new long[1];
      ZetaNative.zeta_darn_to_bytes(CPtr, null, 0, size);
      var bytes = new byte[ArrayLength(size[0], 1, "model size")];
      ZetaNative.zeta_darn_to_bytes(CPtr, bytes, bytes.Length, size);
      return bytes;
    }
  }

  private DarnBlock Block(string name) {
    Require(name, nameof(name));
    foreach (DarnBlock b in Blocks) {
      if (b.Name == name) {
        return b;
      }
    }
    throw new ZetaArgumentException($"unknown DARN parameter block '{name}'");
  }
}

}
