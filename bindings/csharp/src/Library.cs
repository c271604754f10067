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

/// <summary>Library-wide functions: version and the data set compiled into libzeta.</summary>
public static class Library {
  /// <summary>"MAJOR.MINOR.PATCH" of the loaded libzeta.</summary>
  public static string Version => ZetaNative.zeta_version();

  public static int AbiVersion => ZetaNative.zeta_abi_version();

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
