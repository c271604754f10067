using System;
using System.Collections.Generic;

namespace Zeta {

/// <summary>Key/value knobs with documented defaults (see zeta.h for the keys: learning_rate, lr_decay,
/// n_temperatures, chains_per_temperature, gibbs_steps, adaptive_tempering, seed, ...). Objects created from
/// options copy them.</summary>
public sealed class Options : Handle {
  public Options() : base(Create(), ZetaNative.zeta_options_free, null) {}

  private static IntPtr Create() {
    ZetaNative.zeta_options_new(out IntPtr handle);
    return handle;
  }

  /// <summary>Sets a key; an unknown key or a value out of range throws ZetaArgumentException. Returns
  /// this.</summary>
  public Options Set(string key, double value) {
    lock (this) {
      ZetaNative.zeta_options_set(Ptr, Require(key, nameof(key)), value);
      return this;
    }
  }

  /// <summary>The current value of a key (its default unless set).</summary>
  public double Get(string key) {
    lock (this) {
      var value = new double[1];
      ZetaNative.zeta_options_get(CPtr, Require(key, nameof(key)), value);
      return value[0];
    }
  }

  /// <summary>Every key the library knows.</summary>
  public static IReadOnlyList<string> Keys {
    get {
      int n = ZetaNative.zeta_options_count();
      var keys = new List<string>(n);
      for (int i = 0; i < n; i++) {
        keys.Add(ZetaNative.zeta_options_key(i));
      }
      return keys.AsReadOnly();
    }
  }
}

}
