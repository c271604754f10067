using System;

namespace Zeta {

/// <summary>The two splits of the embedded data set.</summary>
public enum Split {
  Train = ZetaNative.ZETA_DATA_TRAIN,
  Test = ZetaNative.ZETA_DATA_TEST,
}

/// <summary>Rows of binary values (row-major, Rows x Cols) with a label per row.</summary>
public sealed class Dataset {
  /// <summary>The Rows x Cols values (the array itself, not a copy).</summary>
  public double[] Values { get; }
  public int[] Labels { get; }
  public int Rows { get; }
  public int Cols { get; }

  internal Dataset(double[] values, int[] labels, int rows, int cols) {
    Values = values;
    Labels = labels;
    Rows = rows;
    Cols = cols;
  }

  /// <summary>Rows [from, to) as a new row-major array.</summary>
  public double[] Slice(int from, int to) {
    if (from < 0 || to > Rows || from >= to) {
      throw new ZetaArgumentException($"rows [{from}, {to}) outside [0, {Rows})");
    }
    var output = new double[(to - from) * Cols];
    Array.Copy(Values, from * Cols, output, 0, output.Length);
    return output;
  }
}

/// <summary>Library-wide functions: version, build, thread count and the data set compiled into libzeta.</summary>
public static class Library {
  /// <summary>"MAJOR.MINOR.PATCH" of the loaded libzeta.</summary>
  public static string Version => ZetaNative.zeta_version();

  public static int AbiVersion => ZetaNative.zeta_abi_version();

  /// <summary>What a seed's numbers depend on besides the thread count, as lines of text (zeta_build_info, the
  /// same as <c>zeta --version</c>): the version, the backend of the large products, the vector extensions of the
  /// build.</summary>
  public static string BuildInfo => ZetaNative.zeta_build_info();

  /// <summary>Threads of the parallel work (products, sampling, enumeration) of zeta calls made from the calling
  /// thread: n &gt;= 1, or 0 for the default (OMP_NUM_THREADS, else the number of cores). Other threads keep their
  /// own setting, so each worker of a pool can give zeta its share; a task that may resume on another pool thread
  /// should set it where it calls zeta. The thread count is part of what a seed's numbers depend on.</summary>
  public static void SetNumThreads(int n) => ZetaNative.zeta_set_num_threads(n);

  /// <summary>The thread count zeta calls from the calling thread use.</summary>
  public static int NumThreads {
    get {
      var n = new int[1];
      ZetaNative.zeta_get_num_threads(n);
      return n[0];
    }
  }

  /// <summary>The ABI version this binding was generated for (compare with AbiVersion).</summary>
  public static int BindingAbiVersion => ZetaNative.ZETA_ABI_VERSION;

  /// <summary>The embedded binarised Fashion-MNIST split: 784 columns of 0.0/1.0, labels 0..9.</summary>
  public static Dataset DefaultData(Split split) {
    var rows = new long[1];
    var cols = new int[1];
    ZetaNative.zeta_data_default_shape((int)split, rows, cols);
    var values = new double[Handle.ArrayLength(rows[0], cols[0], "rows")];
    var labels = new int[rows[0]];
    ZetaNative.zeta_data_default((int)split, values, values.Length);
    ZetaNative.zeta_data_default_labels((int)split, labels, labels.Length);
    return new Dataset(values, labels, (int)rows[0], cols[0]);
  }
}

}
