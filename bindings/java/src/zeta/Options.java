package zeta;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * Key/value knobs with documented defaults (see zeta.h for the keys: learning_rate, lr_decay, n_temperatures,
 * chains_per_temperature, gibbs_steps, adaptive_tempering, seed, ...). Objects created from options copy them.
 */
public final class Options extends Handle {
  public Options() {
    super(create(), ZetaNative::zeta_options_free, null);
  }

  private static long create() {
    long[] out = new long[1];
    ZetaNative.zeta_options_new(out);
    return out[0];
  }

  /** Sets a key; an unknown key or a value out of range throws ZetaArgumentException. Returns this. */
  public synchronized Options set(String key, double value) {
    ZetaNative.zeta_options_set(ptr(), require(key, "key"), value);
    return this;
  }

  /** The current value of a key (its default unless set). */
  public synchronized double get(String key) {
    double[] value = new double[1];
    ZetaNative.zeta_options_get(cptr(), require(key, "key"), value);
    return value[0];
  }

  /** Every key the library knows. */
  public static List<String> keys() {
    int n = ZetaNative.zeta_options_count();
    List<String> keys = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      keys.add(ZetaNative.zeta_options_key(i));
    }
    return Collections.unmodifiableList(keys);
  }
}
