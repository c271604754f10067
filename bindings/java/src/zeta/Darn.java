package zeta;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;

/**
 * A deep autoregressive network (Gregor, Danihelka, Mnih, Blundell and Wierstra, 2014) with its trainer: binary
 * layers x = h0, h1, ... generated top down with exact ancestral sampling, an encoder q(h | x), training by the
 * expected description length, and exact or importance-sampled log p(x). Rows of x are binary (0.0 or 1.0), sizes
 * run from the visible layer up. Parameters are named blocks (see {@link #blocks()} and zeta.h). Values are in nats.
 */
public final class Darn extends Handle {
  /** Values of option darn_estimator. */
  public enum Estimator {
    /** The paper's estimator: low variance, biased. */
    DARN(0),
    /** REINFORCE with a learned input-dependent baseline: unbiased. */
    REINFORCE(1);

    private final int code;

    Estimator(int code) {
      this.code = code;
    }

    /** The option value: {@code options.set("darn_estimator", Estimator.REINFORCE.code())}. */
    public int code() {
      return code;
    }
  }

  /** A parameter block: its name and its shape (row-major rows x cols values). */
  public static final class Block {
    private final String name;
    private final long rows;
    private final long cols;

    Block(String name, long rows, long cols) {
      this.name = name;
      this.rows = rows;
      this.cols = cols;
    }

    public String name() {
      return name;
    }

    public long rows() {
      return rows;
    }

    public long cols() {
      return cols;
    }

    @Override
    public String toString() {
      return name + " (" + rows + " x " + cols + ")";
    }
  }

  /** The most layer sizes a network has (the visible layer and up to 8 stochastic layers). */
  public static final int MAX_LAYERS = 9;

  private final int[] sizes;
  private final List<Block> blocks;

  /** sizes[0] = visible units, sizes[1..] = stochastic layers from the bottom up (2 to 9 sizes); options (may be
   *  null: every default) are read for the darn_* keys and seed. */
  public Darn(int[] sizes, Options options) {
    this(create(sizes, options));
  }

  private Darn(long ptr) {
    super(ptr, ZetaNative::zeta_darn_free, null);
    int[] s = new int[MAX_LAYERS];
    int[] n = new int[1];
    ZetaNative.zeta_darn_shape(ptr, s, s.length, n);
    int[] count = new int[1];
    ZetaNative.zeta_darn_param_count(ptr, count);
    List<Block> list = new ArrayList<>();
    for (int i = 0; i < count[0]; i++) {
      String[] name = new String[1];
      long[] rows = new long[1];
      long[] cols = new long[1];
      ZetaNative.zeta_darn_param_info(ptr, i, name, rows, cols);
      list.add(new Block(name[0], rows[0], cols[0]));
    }
    sizes = Arrays.copyOf(s, n[0]);
    blocks = Collections.unmodifiableList(list);
  }

  private static long create(int[] sizes, Options options) {
    require(sizes, "sizes");
    long[] out = new long[1];
    if (options == null) {
      ZetaNative.zeta_darn_new(sizes, sizes.length, 0, out);
    } else {
      synchronized (options) {
        ZetaNative.zeta_darn_new(sizes, sizes.length, options.cptr(), out);
      }
    }
    return out[0];
  }

  public static Darn load(String path) {
    long[] out = new long[1];
    ZetaNative.zeta_darn_load(require(path, "path"), out);
    return new Darn(out[0]);
  }

  public static Darn fromBytes(byte[] bytes) {
    long[] out = new long[1];
    ZetaNative.zeta_darn_from_bytes(require(bytes, "bytes"), bytes.length, out);
    return new Darn(out[0]);
  }

  /** An independent copy (parameters, trainer state, training generator). */
  public synchronized Darn copy() {
    long[] out = new long[1];
    ZetaNative.zeta_darn_clone(cptr(), out);
    return new Darn(out[0]);
  }

  /** The layer sizes, visible first. */
  public int[] sizes() {
    return sizes.clone();
  }

  public int nVisible() {
    return sizes[0];
  }

  /** The parameter blocks in the library's order. */
  public List<Block> blocks() {
    return blocks;
  }

  /** A copy of block name (row-major). */
  public synchronized double[] param(String name) {
    Block b = block(name);
    double[] out = new double[arrayLength(b.rows(), b.cols(), "rows of " + name)];
    ZetaNative.zeta_darn_get_param(cptr(), name, out, out.length);
    return out;
  }

  /** Replaces block name; strictly lower-triangular blocks ("prior.weight", "*.autoregressive") must be zero on
   *  and above the diagonal. Nothing changes unless every value is accepted. */
  public synchronized void setParam(String name, double[] values) {
    require(name, "name");
    require(values, "values");
    ZetaNative.zeta_darn_set_param(ptr(), name, values, values.length);
  }

  /** One update on a mini-batch of binary rows; returns the batch's mean description length (nats) before it. */
  public synchronized double trainBatch(double[] x) {
    double[] dl = new double[1];
    ZetaNative.zeta_darn_train_batch(ptr(), x, rows(x, nVisible(), "x"), dl);
    return dl[0];
  }

  /** epochs passes over the rows in mini-batches of batchSize rows, shuffled every epoch; listener (may be null)
   *  gets the epoch's running mean description length as value, and may cancel. */
  public synchronized void trainEpochs(double[] x, int batchSize, int epochs, ProgressListener listener) {
    long p = ptr();
    long n = rows(x, nVisible(), "x");
    withListener(listener, callback -> ZetaNative.zeta_darn_train_epochs(p, x, n, batchSize, epochs, callback));
  }

  /** Exact log p(x) of each row by enumerating the hidden configurations (at most 30 hidden units in all, else
   *  a ZetaException with status ERR_UNSUPPORTED). */
  public synchronized double[] logProbExact(double[] x) {
    long n = rows(x, nVisible(), "x");
    double[] out = new double[arrayLength(Math.max(n, 1), 1, "rows")];
    ZetaNative.zeta_darn_log_prob_exact(cptr(), x, n, out);
    return out;
  }

  /** Importance-sampled log p(x) of each row (samples >= 2 draws from the encoder, generator seeded by seed),
   *  with its delta-method standard error. */
  public synchronized Estimate[] logProbImportance(double[] x, long samples, long seed) {
    long n = rows(x, nVisible(), "x");
    double[] logProb = new double[arrayLength(Math.max(n, 1), 1, "rows")];
    double[] stdErr = new double[logProb.length];
    ZetaNative.zeta_darn_log_prob_is(cptr(), x, n, samples, seed, logProb, stdErr);
    Estimate[] out = new Estimate[logProb.length];
    for (int i = 0; i < out.length; i++) {
      out[i] = new Estimate(logProb[i], stdErr[i]);
    }
    return out;
  }

  /** The expected description length of each row (an upper bound on -log p(x)), from samples draws. */
  public synchronized double[] descriptionLength(double[] x, long samples, long seed) {
    long n = rows(x, nVisible(), "x");
    double[] out = new double[arrayLength(Math.max(n, 1), 1, "rows")];
    ZetaNative.zeta_darn_description_length(cptr(), x, n, samples, seed, out);
    return out;
  }

  /** n exact independent samples of x: n x nVisible() values 0.0/1.0. */
  public synchronized double[] sample(long n, long seed) {
    double[] out = new double[arrayLength(n, nVisible(), "n")];
    ZetaNative.zeta_darn_sample(cptr(), n, seed, out);
    return out;
  }

  public synchronized void save(String path) {
    ZetaNative.zeta_darn_save(cptr(), require(path, "path"));
  }

  public synchronized byte[] toBytes() {
    long[] size = new long[1];
    ZetaNative.zeta_darn_to_bytes(cptr(), null, 0, size);
    byte[] bytes = new byte[arrayLength(size[0], 1, "model size")];
    ZetaNative.zeta_darn_to_bytes(cptr(), bytes, bytes.length, size);
    return bytes;
  }

  private Block block(String name) {
    require(name, "name");
    for (Block b : blocks) {
      if (b.name().equals(name)) {
        return b;
      }
    }
    throw new ZetaArgumentException("unknown DARN parameter block '" + name + "'");
  }
}
