using System;

namespace Zeta {

/// <summary>Which output the EBP scoring functions use (see zeta.h).</summary>
public enum EbpOutput {
  /// <summary>EBP-P: posterior-averaged output in [-1, 1].</summary>
  P = ZetaNative.ZETA_EBP_P,
  /// <summary>EBP-D: last-layer score of the deterministic net with the MAP weights.</summary>
  D = ZetaNative.ZETA_EBP_D,
  /// <summary>mu/sigma of the last layer: EBP-P's decisions without its saturation.</summary>
  PZ = ZetaNative.ZETA_EBP_P_Z,
}

/// <summary>A net of sign units trained by expectation backpropagation (Soudry, Hubara and Meir 2014), with
/// binary (+-1) or real weights (option ebp_binary_weights). Inputs are rows of NInputs finite doubles
/// (row-major). Labels: with one output -1/+1 (0 counts as -1); with K outputs class indices 0..K-1.</summary>
public sealed class EbpNet : Handle {
  private readonly int[] hiddenSizes;

  public int NInputs { get; }
  public int NOutputs { get; }

  /// <summary>Layers nInputs -&gt; hiddenSizes... -&gt; nOutputs; options (may be null: every default) are
  /// read for ebp_binary_weights, ebp_init_variance and seed.</summary>
  public EbpNet(int nInputs, int[] hiddenSizes, int nOutputs, Options options = null)
      : this(Create(nInputs, hiddenSizes, nOutputs, options)) {}

  private EbpNet(IntPtr handle) : base(handle, ZetaNative.zeta_ebp_free, null) {
    int[] inputs = new int[1], layers = new int[1], outputs = new int[1];
    ZetaNative.zeta_ebp_shape(handle, inputs, layers, outputs);
    NInputs = inputs[0];
    NOutputs = outputs[0];
    hiddenSizes = new int[layers[0]];
    ZetaNative.zeta_ebp_hidden_sizes(handle, layers[0] > 0 ? hiddenSizes : null, hiddenSizes.Length);
  }

  private static IntPtr Create(int nInputs, int[] hiddenSizes, int nOutputs, Options options) {
    int[] sizes = hiddenSizes ?? new int[0];
    IntPtr handle;
    if (options == null) {
      ZetaNative.zeta_ebp_new(nInputs, sizes.Length > 0 ? sizes : null, sizes.Length, nOutputs, IntPtr.Zero,
                              out handle);
    } else {
      lock (options) {
        ZetaNative.zeta_ebp_new(nInputs, sizes.Length > 0 ? sizes : null, sizes.Length, nOutputs, options.CPtr,
                                out handle);
      }
    }
    return handle;
  }

  public static EbpNet Load(string path) {
    ZetaNative.zeta_ebp_load(Require(path, nameof(path)), out IntPtr handle);
    return new EbpNet(handle);
  }

  public static EbpNet FromBytes(byte[] bytes) {
    ZetaNative.zeta_ebp_from_bytes(Require(bytes, nameof(bytes)), bytes.Length, out IntPtr handle);
    return new EbpNet(handle);
  }

  /// <summary>An independent copy (weights, example count, epoch generator).</summary>
  public EbpNet Copy() {
    lock (this) {
      ZetaNative.zeta_ebp_clone(CPtr, out IntPtr handle);
      return new EbpNet(handle);
    }
  }

  public int[] HiddenSizes => (int[])hiddenSizes.Clone();

  public bool BinaryWeights {
    get {
      lock (this) {
        var binary = new int[1];
        ZetaNative.zeta_ebp_binary_weights(CPtr, binary);
        return binary[0] != 0;
      }
    }
  }

  public long ExamplesSeen {
    get {
      lock (this) {
        var n = new long[1];
        ZetaNative.zeta_ebp_examples_seen(CPtr, n);
        return n[0];
      }
    }
  }

  /// <summary>One EBP update from a mini-batch (x: rows x NInputs, one label per row).</summary>
  public void TrainBatch(double[] x, int[] labels) {
    lock (this) {
      long n = Rows(x, NInputs, nameof(x));
      ZetaNative.zeta_ebp_train_batch(Ptr, x, Labels(labels, n), n);
    }
  }

  /// <summary>nEpochs passes in mini-batches of batchSize rows, in row order or shuffled each epoch; listener
  /// (may be null) runs after every mini-batch. On cancellation the finished mini-batches are kept.</summary>
  public void TrainEpochs(double[] x, int[] labels, long batchSize, int nEpochs, bool shuffle,
                          Func<Progress, bool> listener = null) {
    lock (this) {
      IntPtr p = Ptr;
      long n = Rows(x, NInputs, nameof(x));
      Labels(labels, n);
      WithListener(listener, callback =>
          ZetaNative.zeta_ebp_train_epochs(p, x, labels, n, batchSize, nEpochs, shuffle ? 1 : 0, callback));
    }
  }

  /// <summary>The chosen output for each row of x: rows x NOutputs values.</summary>
  public double[] Scores(double[] x, EbpOutput output) {
    lock (this) {
      long n = Rows(x, NInputs, nameof(x));
      var result = new double[ArrayLength(Math.Max(n, 1), NOutputs, "rows")];
      ZetaNative.zeta_ebp_scores(CPtr, x, n, (int)output, result);
      return result;
    }
  }

  /// <summary>Decisions: +1/-1 with one output, class indices with several.</summary>
  public int[] Predict(double[] x, EbpOutput output) {
    lock (this) {
      long n = Rows(x, NInputs, nameof(x));
      var labels = new int[Math.Max(n, 1)];
      ZetaNative.zeta_ebp_predict(CPtr, x, n, (int)output, labels);
      return labels;
    }
  }

  /// <summary>Fraction of rows whose decision differs from the label.</summary>
  public double ErrorRate(double[] x, int[] labels, EbpOutput output) {
    lock (this) {
      long n = Rows(x, NInputs, nameof(x));
      var rate = new double[1];
      ZetaNative.zeta_ebp_error_rate(CPtr, x, Labels(labels, n), n, (int)output, rate);
      return rate[0];
    }
  }

  public void Save(string path) {
    lock (this) {
      ZetaNative.zeta_ebp_save(CPtr, Require(path, nameof(path)));
    }
  }

  public byte[] ToBytes() {
    lock (this) {
      var size = new long[1];
      ZetaNative.zeta_ebp_to_bytes(CPtr, null, 0, size);
      var bytes = new byte[ArrayLength(size[0], 1, "model size")];
      ZetaNative.zeta_ebp_to_bytes(CPtr, bytes, bytes.Length, size);
      return bytes;
    }
  }

  internal static int[] Labels(int[] labels, long rows) {
    Require(labels, nameof(labels));
    if (labels.Length != rows) {
      throw new ZetaArgumentException($"labels has {labels.Length} entries for {rows} rows of x");
    }
    return labels;
  }
}

}
