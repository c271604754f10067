import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import zeta.Darn;
import zeta.Dataset;
import zeta.EbpNet;
import zeta.Estimate;
import zeta.Options;
import zeta.Pruner;
import zeta.Rbm;
import zeta.Softmax;
import zeta.Status;
import zeta.TrackingHealth;
import zeta.Trainer;
import zeta.Zeta;
import zeta.ZetaArgumentException;
import zeta.ZetaException;

/**
 * Tests of the Java binding (plain main runner; prints one line per failed check and a summary).
 * Usage: ZetaBindingTest REFERENCE_EXE SCRATCH_DIR, where REFERENCE_EXE computes log Z through the C API alone.
 */
public final class ZetaBindingTest {
  private static final int NV = 16; // 4x4 bars and stripes
  private static final int NH = 8;
  private static int checks;
  private static int failures;

  private ZetaBindingTest() {}

  private static void check(boolean ok, String what) {
    checks++;
    if (!ok) {
      failures++;
      System.out.println("FAIL: " + what);
    }
  }

  /** Runs body and checks that it throws type with a message containing text (and, for zeta's own
   *  exceptions, the expected status). */
  private static void expect(Class<? extends Throwable> type, Status status, String text, Runnable body) {
    checks++;
    try {
      body.run();
      failures++;
      System.out.println("FAIL: expected " + type.getSimpleName() + " (" + text + "), nothing thrown");
    } catch (Throwable t) {
      boolean ok = type.isInstance(t) && t.getMessage() != null && t.getMessage().contains(text);
      if (ok && status != null) {
        ok = t instanceof ZetaException ? ((ZetaException) t).status() == status
                                        : ((ZetaArgumentException) t).status() == status;
      }
      if (!ok) {
        failures++;
        System.out.println("FAIL: expected " + type.getSimpleName() + " " + status + " (" + text + "), got " + t);
      }
    }
  }

  /** All 30 distinct 4x4 bars-and-stripes images, repeated to 64 rows. */
  private static double[] barsAndStripes() {
    double[][] patterns = new double[32][NV];
    for (int mask = 0; mask < 16; mask++) {
      for (int i = 0; i < 4; i++) {
        for (int j = 0; j < 4; j++) {
          patterns[mask][i * 4 + j] = (mask >> i) & 1;      // rows on/off
          patterns[16 + mask][i * 4 + j] = (mask >> j) & 1; // columns on/off
        }
      }
    }
    double[] data = new double[64 * NV];
    for (int r = 0; r < 64; r++) {
      System.arraycopy(patterns[(r * 7) % 32], 0, data, r * NV, NV);
    }
    return data;
  }

  private static void setSomeParams(Rbm rbm) {
    double[] w = new double[rbm.nVisible() * rbm.nHidden()];
    double[] b = new double[rbm.nVisible()];
    double[] c = new double[rbm.nHidden()];
    for (int i = 0; i < w.length; i++) {
      w[i] = 0.5 * Math.sin(1.3 * i + 0.2);
    }
    for (int i = 0; i < b.length; i++) {
      b[i] = 0.3 * Math.cos(0.7 * i);
    }
    for (int j = 0; j < c.length; j++) {
      c[j] = -0.2 + 0.05 * j;
    }
    rbm.setParams(w, b, c);
  }

  private static Options trainerOptions() {
    return new Options().set("learning_rate", 0.05).set("n_temperatures", 5).set("chains_per_temperature", 10)
        .set("seed", 7);
  }

  private static Map<String, double[]> reference(String exe, Path model, int runs, int betas, long seed,
                                                String... extra) throws IOException, InterruptedException {
    java.util.List<String> command = new java.util.ArrayList<>(Arrays.asList(
        exe, model.toString(), Integer.toString(runs), Integer.toString(betas), Long.toString(seed)));
    command.addAll(Arrays.asList(extra));
    return reference(command.toArray(new String[0]));
  }

  private static Map<String, double[]> reference(String... command) throws IOException, InterruptedException {
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    Map<String, double[]> out = new HashMap<>();
    try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
      for (String line = r.readLine(); line != null; line = r.readLine()) {
        String[] f = line.trim().split(" ");
        double[] v = new double[f.length - 1];
        // Each value arrives as its IEEE-754 bit pattern in hex, so the comparison with the C result is bit-exact.
        for (int i = 1; i < f.length; i++) {
          v[i - 1] = Double.longBitsToDouble(Long.parseUnsignedLong(f[i], 16));
        }
        out.put(f[0], v);
      }
    }
    check(p.waitFor() == 0, "reference program exit status");
    return out;
  }

  private static void testBasics() {
    check(Zeta.version().matches("\\d+\\.\\d+\\.\\d+"), "version " + Zeta.version());
    check(Zeta.version().equals(Zeta.class.getPackage().getImplementationVersion()),
          "the jar's Implementation-Version " + Zeta.class.getPackage().getImplementationVersion());
    check(Zeta.abiVersion() == Zeta.bindingAbiVersion(), "ABI version");
    check(Options.keys().contains("learning_rate") && Options.keys().contains("seed"), "option keys");
    try (Rbm rbm = new Rbm(NV, NH, 1)) {
      check(rbm.nVisible() == NV && rbm.nHidden() == NH, "shape");
      setSomeParams(rbm);
      double[] w = rbm.weights();
      check(w.length == NV * NH && w[5] == 0.5 * Math.sin(1.3 * 5 + 0.2), "get W");
      check(rbm.visibleBias()[3] == 0.3 * Math.cos(0.7 * 3), "get b");
      check(rbm.hiddenBias()[2] == -0.2 + 0.05 * 2, "get c");
      double[] data = barsAndStripes();
      double logZ = rbm.logZExact();
      double[] f = rbm.freeEnergy(data);
      double mean = 0;
      for (double x : f) {
        mean += x;
      }
      mean /= f.length;
      check(Math.abs(rbm.meanLogLikelihood(data, logZ) - (-mean - logZ)) < 1e-9, "mean log-likelihood");
      check(rbm.hiddenProbs(data).length == 64 * NH && rbm.visibleProbs(new double[NH]).length == NV, "probs");
      double[] s = rbm.sample(5, 3);
      check(s.length == 5 * NV && Arrays.stream(s).allMatch(x -> x == 0.0 || x == 1.0), "sample");
      try (Rbm copy = rbm.copy()) {
        check(Arrays.equals(copy.toBytes(), rbm.toBytes()), "copy");
      }
    }
    try (Options o = new Options()) {
      check(o.get("learning_rate") == 1e-3, "default learning_rate");
      check(o.set("gibbs_steps", 3).get("gibbs_steps") == 3, "set/get option");
    }
    Dataset d = Zeta.defaultData(Zeta.Split.TEST);
    check(d.rows() == 1000 && d.cols() == 784 && d.values().length == 784000 && d.labels().length == 1000,
          "default data shape");
  }

  private static void testBitForBit(String exe, Path dir) throws IOException, InterruptedException {
    Path model = dir.resolve("java_reference.zeta");
    try (Rbm rbm = new Rbm(NV, NH, 1)) {
      setSomeParams(rbm);
      rbm.save(model.toString());
      Map<String, double[]> ref = reference(exe, model, 40, 300, 12345);
      double exact = rbm.logZExact();
      Estimate ais = rbm.logZAis(40, 300, 12345);
      check(ref.containsKey("exact") && exact == ref.get("exact")[0],
            "exact log Z " + exact + " equals C " + Arrays.toString(ref.get("exact")));
      check(ref.containsKey("ais") && ais.value() == ref.get("ais")[0] && ais.stdDev() == ref.get("ais")[1],
            "AIS log Z " + ais + " equals C " + Arrays.toString(ref.get("ais")));
      int[] calls = {0};
      Estimate ais2 = rbm.logZAis(40, 300, 12345, p -> ++calls[0] > 0);
      check(calls[0] > 0 && ais2.value() == ais.value(), "AIS with a listener: same bits");
      check(rbm.logZExact(p -> true) == exact, "exact with a listener: same bits");
      check(Math.abs(ais.value() - exact) < 5 * ais.stdDev() + 0.05, "AIS near exact");
    }
  }

  private static void testTrainingAndFiles(Path dir) {
    double[] data = barsAndStripes();
    Path file = dir.resolve("java_trained.zeta");
    try (Rbm rbm = new Rbm(NV, NH, 3); Options opts = trainerOptions()) {
      rbm.initFromData(data, 0.01);
      try (Trainer t = new Trainer(rbm, opts)) {
        check(t.nTemperatures() == 5 && t.nChains() == 10 && t.betas()[0] == 1.0, "trainer shape");
        for (int i = 0; i < 100; i++) {
          t.step(Arrays.copyOfRange(data, (i % 4) * 16 * NV, ((i % 4) + 1) * 16 * NV));
        }
        long[] seen = {0};
        t.train(data, 16, 200, p -> {
          seen[0] = p.done();
          return "training".equals(p.stage()) && !Double.isNaN(p.value());
        });
        check(seen[0] == 200 && t.steps() == 300, "300 tracked steps (" + t.steps() + ")");
        Estimate tracked = t.logZ();
        double exact = rbm.logZExact();
        check(Math.abs(tracked.value() - exact) < 1.0,
              "tracked log Z " + tracked + " near exact " + exact);
        Estimate ll = t.logLikelihood(data);
        check(Math.abs(ll.value() - rbm.meanLogLikelihood(data, tracked.value())) < 1e-9, "tracked likelihood");
        Estimate settled = t.settledLogZ(1000, 200);
        check(settled.stdDev() > 0 && Math.abs(settled.value() - exact) < 4 * settled.stdDev(),
              "settled log Z " + settled + " near exact " + exact);
        check(t.logZ().value() == tracked.value() && t.steps() == 300, "settling leaves the trainer as it was");
        check(t.swapRates().length == 4 && t.chains(0).length == 10 * NV && t.roundTrips() >= 0
              && t.learningRate() > 0, "trainer getters");
      }
      rbm.save(file.toString());
      byte[] bytes = rbm.toBytes();
      try (Rbm loaded = Rbm.load(file.toString()); Rbm fromBytes = Rbm.fromBytes(bytes)) {
        check(Arrays.equals(loaded.weights(), rbm.weights()) && Arrays.equals(loaded.visibleBias(), rbm.visibleBias())
              && Arrays.equals(loaded.hiddenBias(), rbm.hiddenBias()), "file round trip: parameters");
        check(Arrays.equals(fromBytes.toBytes(), bytes), "bytes round trip");
        check(loaded.logZExact() == rbm.logZExact(), "round trip: same log Z bits");
      }
    }
  }

  /** The rows as float and as 0/1 bytes. */
  private static float[] asFloats(double[] data) {
    float[] out = new float[data.length];
    for (int i = 0; i < data.length; i++) {
      out[i] = (float) data[i];
    }
    return out;
  }

  private static byte[] asBytes(double[] data) {
    byte[] out = new byte[data.length];
    for (int i = 0; i < data.length; i++) {
      out[i] = (byte) data[i];
    }
    return out;
  }

  /** One trainer per row type (double, float, byte) on twin models, the same steps and train calls (11 batches of 8
   *  from 64 rows wrap around; with and without a listener): the same model bytes and tracked log Z to the last
   *  bit, under PCD and PT (as the C API's test_trainer_row_types). Bad values are named by row and column and
   *  change nothing; with visible_probabilities, float rows in [0, 1] train as double ones. */
  private static void testRowTypes() {
    double[] data = barsAndStripes();
    float[] floats = asFloats(data);
    byte[] bytes = asBytes(data);
    int b = 8;
    for (int method = 1; method <= 2; method++) {
      Rbm[] rbms = new Rbm[3];
      Trainer[] trainers = new Trainer[3];
      double[] logZ = new double[3];
      double[] sd = new double[3];
      for (int kind = 0; kind < 3; kind++) {
        rbms[kind] = new Rbm(NV, NH, 1);
        setSomeParams(rbms[kind]);
        try (Options o = trainerOptions().set("method", method)) {
          trainers[kind] = new Trainer(rbms[kind], o);
        }
        Trainer t = trainers[kind];
        for (int i = 0; i < 5; i++) {
          int from = i * b * NV;
          int to = from + b * NV;
          if (kind == 0) {
            t.step(Arrays.copyOfRange(data, from, to));
          } else if (kind == 1) {
            t.step(Arrays.copyOfRange(floats, from, to));
          } else {
            t.step(Arrays.copyOfRange(bytes, from, to));
          }
        }
        long[] calls = {0};
        if (kind == 0) {
          t.train(data, b, 11);
          t.train(data, b, 3, p -> ++calls[0] > 0);
        } else if (kind == 1) {
          t.train(floats, b, 11);
          t.train(floats, b, 3, p -> ++calls[0] > 0);
        } else {
          t.train(bytes, b, 11);
          t.train(bytes, b, 3, p -> ++calls[0] > 0);
        }
        check(t.steps() == 19 && calls[0] == 3, "row type " + kind + ": 19 updates, 3 reported");
        if (method == 2) {
          logZ[kind] = t.logZ().value();
          sd[kind] = t.logZ().stdDev();
        }
      }
      byte[] reference = rbms[0].toBytes();
      check(Arrays.equals(rbms[1].toBytes(), reference), "method " + method + ": float rows train as double ones");
      check(Arrays.equals(rbms[2].toBytes(), reference), "method " + method + ": byte rows train as double ones");
      if (method == 2) {
        check(logZ[1] == logZ[0] && logZ[2] == logZ[0] && sd[1] == sd[0] && sd[2] == sd[0],
              "tracked log Z the same for every row type: " + Arrays.toString(logZ));
      }

      float[] badF = floats.clone();
      badF[3 * NV + 5] = 0.5f;
      Trainer tf = trainers[1];
      Trainer tb = trainers[2];
      expect(ZetaArgumentException.class, Status.ERR_ARGUMENT, "row 3, column 5 is 0.5",
             () -> tf.step(Arrays.copyOf(badF, b * NV)));
      expect(ZetaArgumentException.class, Status.ERR_ARGUMENT, "binary", () -> tf.train(badF, b, 2));
      badF[3 * NV + 5] = Float.NaN;
      expect(ZetaArgumentException.class, Status.ERR_ARGUMENT, "non-finite value (row 3, column 5)",
             () -> tf.step(Arrays.copyOf(badF, b * NV)));
      byte[] badB = bytes.clone();
      badB[7] = 2;
      expect(ZetaArgumentException.class, Status.ERR_ARGUMENT, "row 0, column 7 is 2",
             () -> tb.step(Arrays.copyOf(badB, b * NV)));
      badB[7] = -1; // Java's signed byte: the library reads it unsigned
      expect(ZetaArgumentException.class, Status.ERR_ARGUMENT, "row 0, column 7 is 255",
             () -> tb.train(badB, b, 2, p -> true));
      expect(ZetaArgumentException.class, Status.ERR_ARGUMENT, "batch", () -> tf.step((float[]) null));
      expect(ZetaArgumentException.class, Status.ERR_ARGUMENT, "data", () -> tb.train((byte[]) null, b, 2));
      expect(ZetaArgumentException.class, Status.ERR_ARGUMENT, "multiple", () -> tb.step(new byte[NV + 1]));
      expect(ZetaArgumentException.class, Status.ERR_ARGUMENT, "multiple", () -> tf.train(new float[NV - 1], 1, 1));
      expect(ZetaArgumentException.class, Status.ERR_ARGUMENT, "n_rows", () -> tb.step(new byte[0]));
      expect(ZetaArgumentException.class, Status.ERR_ARGUMENT, "batch_size", () -> tf.train(floats, 0, 2));
      check(Arrays.equals(rbms[1].toBytes(), reference) && Arrays.equals(rbms[2].toBytes(), reference)
            && tf.steps() == 19 && tb.steps() == 19, "method " + method + ": bad rows changed nothing");
      for (int kind = 0; kind < 3; kind++) {
        trainers[kind].close();
        rbms[kind].close();
      }
    }

    // Mean-field rows k/16 (exact in float) with visible_probabilities: float and double rows train alike; bytes
    // must still be 0 or 1.
    double[] grey = new double[32 * NV];
    for (int i = 0; i < grey.length; i++) {
      grey[i] = ((i * 37) % 17) / 16.0;
    }
    try (Options o = trainerOptions().set("visible_probabilities", 1); Rbm a = new Rbm(NV, NH, 1);
         Rbm c = new Rbm(NV, NH, 1); Trainer ta = new Trainer(a, o); Trainer tc = new Trainer(c, o)) {
      setSomeParams(a);
      setSomeParams(c);
      ta.train(grey, 8, 20);
      tc.train(asFloats(grey), 8, 20);
      check(Arrays.equals(a.toBytes(), c.toBytes()), "visible probabilities: float rows train as double ones");
      byte[] threes = new byte[8 * NV];
      Arrays.fill(threes, (byte) 1);
      threes[4] = 3;
      expect(ZetaArgumentException.class, Status.ERR_ARGUMENT, "binary", () -> ta.step(threes));
    }
    try (Options o = trainerOptions(); Rbm a = new Rbm(NV, NH, 1); Trainer ta = new Trainer(a, o)) {
      expect(ZetaArgumentException.class, Status.ERR_ARGUMENT, "binary",
             () -> ta.step(asFloats(Arrays.copyOf(grey, 8 * NV))));
    }
  }

  /** Gibbs sweeps from mean-field rows: the C API's draws to the last bit, 0/1 states, repeated after reseeding,
   *  bad input named. */
  private static void testGibbs(String exe, Path dir) throws IOException, InterruptedException {
    double[] v = barsAndStripes();
    for (int i = 0; i < v.length; i++) {
      v[i] = 0.125 + 0.75 * v[i];
    }
    Path model = dir.resolve("java_gibbs.zeta");
    try (Rbm rbm = new Rbm(NV, NH, 1)) {
      setSomeParams(rbm);
      rbm.save(model.toString());
      Map<String, double[]> ref = reference(exe, "gibbs", model.toString(), "21", "3");
      rbm.setSeed(21);
      double[] out = rbm.gibbs(v, 3);
      check(sameBits(out, ref.get("gibbs")), "gibbs equals the C API's draws");
      check(out.length == v.length && Arrays.stream(out).allMatch(x -> x == 0.0 || x == 1.0),
            "gibbs: 0/1 states");
      rbm.setSeed(21);
      check(Arrays.equals(rbm.gibbs(v, 3), out), "gibbs: reseeded, the same draws");
      check(!Arrays.equals(rbm.gibbs(v, 3), out), "gibbs: the generator advances");
      double[] bad = v.clone();
      bad[NV + 1] = 1.25;
      expect(ZetaArgumentException.class, Status.ERR_ARGUMENT, "[0, 1]: row 1, column 1 is 1.25",
             () -> rbm.gibbs(bad, 1));
      expect(ZetaArgumentException.class, Status.ERR_ARGUMENT, "n_steps", () -> rbm.gibbs(v, 0));
      expect(ZetaArgumentException.class, Status.ERR_ARGUMENT, "n_rows", () -> rbm.gibbs(new double[0], 1));
      expect(ZetaArgumentException.class, Status.ERR_ARGUMENT, "multiple", () -> rbm.gibbs(new double[NV + 2], 1));
    }
  }

  /** Seeded training: a new model trained by CD, PCD and PT with a seed gets the C API's W, b, c and tracked log Z
   *  to the last bit (zeta_bindings_reference train, whose output the C# and Python tests also demand). */
  private static void testSeededTraining(String exe) throws IOException, InterruptedException {
    double[] v = barsAndStripes();
    for (int i = 0; i < v.length; i++) {
      v[i] = 0.125 + 0.75 * v[i];
    }
    double[] head = Arrays.copyOf(v, 60 * NV);
    double[] tail = Arrays.copyOfRange(v, 60 * NV, 64 * NV);
    for (int method = 0; method < 3; method++) {
      Map<String, double[]> ref = reference(exe, "train", Integer.toString(method), "11", "2");
      try (Options o = new Options().set("method", method).set("learning_rate", 0.05)
               .set("chains_per_temperature", 10).set("visible_probabilities", 1).set("seed", 11)
               .set("n_temperatures", method == 2 ? 5 : 1);
           Rbm rbm = new Rbm(NV, 8, 11); Trainer t = new Trainer(rbm, o)) {
        for (int pass = 0; pass < 2; pass++) {
          t.train(head, 20, 3);
          t.step(tail);
        }
        check(sameBits(rbm.weights(), ref.get("train_W")) && sameBits(rbm.visibleBias(), ref.get("train_b"))
              && sameBits(rbm.hiddenBias(), ref.get("train_c")), "method " + method + ": the C API's model");
        if (method == 2) {
          Estimate e = t.logZ();
          check(sameBits(new double[] {e.value(), e.stdDev()}, ref.get("train_log_z")), "the C API's tracked log Z");
        }
      }
    }
  }

  /** The build's description; the thread count is the calling thread's own. */
  private static void testBuildInfoAndThreads() throws InterruptedException {
    String info = Zeta.buildInfo();
    check(info.startsWith("zeta " + Zeta.version() + "\n") && info.contains("\nproducts: ")
          && info.contains("\nSIMD: "), "build info:\n" + info);
    int initial = Zeta.numThreads();
    check(initial >= 1, "thread count " + initial);
    Zeta.setNumThreads(3);
    check(Zeta.numThreads() == 3, "set 3 threads");
    int[] other = {0};
    Thread t = new Thread(() -> other[0] = Zeta.numThreads());
    t.start();
    t.join();
    check(other[0] == initial, "another thread keeps its own count (" + other[0] + ")");
    Zeta.setNumThreads(0);
    check(Zeta.numThreads() == initial, "0: the default again");
    expect(ZetaArgumentException.class, Status.ERR_ARGUMENT, "n must be 0", () -> Zeta.setNumThreads(-2));
  }

  /** The tracker's warnings: NaN and none before the first window of 150 updates, then values in [0, 1] whose bits
   *  are their thresholds (swap rate 0.2, mode changes 0.2, ESS 0.3); the default options (data moves, a zero model
   *  initialised from the first batch) train and track; a rate of 1 raises LOW_ESS; PCD has no tracker. */
  private static void testTrackingHealth() {
    double[] data = barsAndStripes();
    try (Rbm rbm = new Rbm(NV, NH, 5); Options opts = trainerOptions(); Trainer t = new Trainer(rbm, opts)) {
      check(opts.get("data_move_rungs") == 1 && opts.get("init_from_data") == 1,
            "defaults: data moves, a zero model initialised from the data");
      t.train(data, 16, 100);
      check(Arrays.stream(rbm.visibleBias()).anyMatch(x -> x != 0), "the zero model was initialised from the data");
      TrackingHealth early = t.trackingHealth();
      check(Double.isNaN(early.minSwapRate()) && Double.isNaN(early.coldModeChanges())
            && Double.isNaN(early.minEssFraction()) && early.warningBits() == 0 && early.warnings().isEmpty(),
            "no window before 150 updates: " + early);
      t.train(data, 16, 200);
      TrackingHealth h = t.trackingHealth();
      check(h.minSwapRate() >= 0 && h.minSwapRate() <= 1 && h.coldModeChanges() >= 0 && h.coldModeChanges() <= 1
            && h.minEssFraction() > 0 && h.minEssFraction() <= 1, "health values in [0, 1]: " + h);
      EnumSet<TrackingHealth.Warning> expected = EnumSet.noneOf(TrackingHealth.Warning.class);
      if (h.minSwapRate() < 0.2) {
        expected.add(TrackingHealth.Warning.LOW_SWAP_RATE);
      }
      if (h.coldModeChanges() < 0.2) {
        expected.add(TrackingHealth.Warning.COLD_CHAINS_STUCK);
      }
      if (h.minEssFraction() < 0.3) {
        expected.add(TrackingHealth.Warning.LOW_ESS);
      }
      int bits = 0;
      for (TrackingHealth.Warning w : expected) {
        bits |= w.bit();
      }
      // FEW_BRIDGE_SAMPLES rests on the bridges' autocorrelation time, which the C API does not report.
      EnumSet<TrackingHealth.Warning> thresholded = EnumSet.copyOf(h.warnings());
      thresholded.remove(TrackingHealth.Warning.FEW_BRIDGE_SAMPLES);
      check(thresholded.equals(expected) && (h.warningBits() & ~TrackingHealth.Warning.FEW_BRIDGE_SAMPLES.bit()) == bits,
            "warnings are their thresholds: " + h);
      double exact = rbm.logZExact();
      check(Math.abs(t.logZ().value() - exact) < 1.0, "default options track: " + t.logZ() + " vs exact " + exact);
    }
    check(TrackingHealth.Warning.LOW_SWAP_RATE.bit() == 1 && TrackingHealth.Warning.COLD_CHAINS_STUCK.bit() == 2
          && TrackingHealth.Warning.LOW_ESS.bit() == 4 && TrackingHealth.Warning.FEW_BRIDGE_SAMPLES.bit() == 8,
          "warning bits as in zeta.h");
    // A rate of 1 moves the model further per update than the beta = 1 importance weights can follow.
    try (Rbm rbm = new Rbm(NV, NH, 5); Options opts = trainerOptions().set("learning_rate", 1);
         Trainer t = new Trainer(rbm, opts)) {
      t.train(data, 16, 150);
      TrackingHealth h = t.trackingHealth();
      check(h.minEssFraction() < 0.3 && h.warnings().contains(TrackingHealth.Warning.LOW_ESS),
            "rate 1 raises LOW_ESS: " + h);
    }
    try (Rbm rbm = new Rbm(NV, NH, 5); Options opts = trainerOptions().set("method", 1);
         Trainer t = new Trainer(rbm, opts)) {
      t.train(data, 16, 10);
      expect(ZetaException.class, Status.ERR_UNSUPPORTED, "method", t::trackingHealth);
    }
  }

  private static void testBadInput(Path dir) {
    double[] data = barsAndStripes();
    Rbm rbm = new Rbm(NV, NH, 1);
    setSomeParams(rbm);
    byte[] before = rbm.toBytes();

    // NULL where an object or array is needed
    expect(ZetaArgumentException.class, Status.ERR_ARGUMENT, "rbm", () -> new Trainer(null, new Options()));
    expect(ZetaArgumentException.class, Status.ERR_ARGUMENT, "options", () -> new Trainer(rbm, null));
    expect(ZetaArgumentException.class, Status.ERR_ARGUMENT, "weights", () -> rbm.setParams(null, new double[NV],
                                                                                        new double[NH]));
    expect(ZetaArgumentException.class, Status.ERR_ARGUMENT, "v", () -> rbm.freeEnergy(null));
    expect(ZetaArgumentException.class, Status.ERR_ARGUMENT, "path", () -> Rbm.load(null));
    expect(ZetaArgumentException.class, Status.ERR_ARGUMENT, "key", () -> new Options().set(null, 1));

    // non-positive sizes (from the library, message naming the argument) and mismatched lengths
    expect(ZetaArgumentException.class, Status.ERR_ARGUMENT, "n_visible", () -> new Rbm(0, 3, 0));
    expect(ZetaArgumentException.class, Status.ERR_ARGUMENT, "n_hidden", () -> new Rbm(3, -1, 0));
    expect(ZetaArgumentException.class, Status.ERR_ARGUMENT, "n_rows", () -> rbm.freeEnergy(new double[0]));
    expect(ZetaArgumentException.class, Status.ERR_ARGUMENT, "n_rows", () -> rbm.initFromData(new double[0], 0.01));
    expect(ZetaArgumentException.class, Status.ERR_ARGUMENT, "n_runs", () -> rbm.logZAis(0, 10, 0));
    expect(ZetaArgumentException.class, Status.ERR_ARGUMENT, "n_betas", () -> rbm.logZAis(10, -1, 0));
    expect(ZetaArgumentException.class, Status.ERR_ARGUMENT, "n_gibbs_steps", () -> rbm.sample(3, 0));
    expect(ZetaArgumentException.class, Status.ERR_ARGUMENT, "nSamples", () -> rbm.sample(-3, 1));
    expect(ZetaArgumentException.class, Status.ERR_ARGUMENT, "multiple", () -> rbm.freeEnergy(new double[NV + 1]));
    expect(ZetaArgumentException.class, Status.ERR_ARGUMENT, "expected", () -> rbm.setParams(new double[3],
                                                                                        new double[NV], new double[NH]));
    expect(ZetaArgumentException.class, Status.ERR_ARGUMENT, "size", () -> Rbm.fromBytes(new byte[0]));

    // non-finite numbers: nothing changes
    double[] w = rbm.weights();
    w[7] = Double.NaN;
    expect(ZetaArgumentException.class, Status.ERR_ARGUMENT, "W", () -> rbm.setParams(w, rbm.visibleBias(),
                                                                                 rbm.hiddenBias()));
    double[] b = rbm.visibleBias();
    b[2] = Double.POSITIVE_INFINITY;
    expect(ZetaArgumentException.class, Status.ERR_ARGUMENT, "b", () -> rbm.setParams(rbm.weights(), b,
                                                                                 rbm.hiddenBias()));
    expect(ZetaArgumentException.class, Status.ERR_ARGUMENT, "log_z", () -> rbm.meanLogLikelihood(data, Double.NaN));
    expect(ZetaArgumentException.class, Status.ERR_ARGUMENT, "weight_sd", () -> rbm.initFromData(data, -1));
    double[] bad = data.clone();
    bad[4] = Double.NaN;
    expect(ZetaArgumentException.class, Status.ERR_ARGUMENT, "non-finite", () -> rbm.freeEnergy(bad));

    // non-binary data
    bad[4] = 0.5;
    expect(ZetaArgumentException.class, Status.ERR_ARGUMENT, "binary", () -> rbm.freeEnergy(bad));
    expect(ZetaArgumentException.class, Status.ERR_ARGUMENT, "binary", () -> rbm.initFromData(bad, 0.01));
    bad[4] = 1.5;
    expect(ZetaArgumentException.class, Status.ERR_ARGUMENT, "[0, 1]", () -> rbm.hiddenProbs(bad));
    check(Arrays.equals(rbm.toBytes(), before), "bad input left the model as it was");

    // unknown option keys and values out of range
    try (Options o = new Options()) {
      expect(ZetaArgumentException.class, Status.ERR_ARGUMENT, "no_such_key", () -> o.set("no_such_key", 1));
      expect(ZetaArgumentException.class, Status.ERR_ARGUMENT, "no_such_key", () -> o.get("no_such_key"));
      expect(ZetaArgumentException.class, Status.ERR_ARGUMENT, "learning_rate", () -> o.set("learning_rate", -1));
      expect(ZetaArgumentException.class, Status.ERR_ARGUMENT, "gibbs_steps", () -> o.set("gibbs_steps", 1.5));
    }

    // too large for exact enumeration; too large to allocate; files and bytes
    try (Rbm big = new Rbm(40, 40, 0)) {
      expect(ZetaException.class, Status.ERR_UNSUPPORTED, "AIS", big::logZExact);
    }
    expect(ZetaException.class, Status.ERR_MEMORY, "memory", () -> new Rbm(Integer.MAX_VALUE, Integer.MAX_VALUE, 0));
    expect(ZetaException.class, Status.ERR_IO, "missing.zeta", () -> Rbm.load("/nonexistent/missing.zeta"));
    byte[] text = "this is not a zeta model, but it is long enough to have a header".getBytes(StandardCharsets.UTF_8);
    expect(ZetaException.class, Status.ERR_FORMAT, "magic", () -> Rbm.fromBytes(text));
    byte[] corrupt = before.clone();
    corrupt[corrupt.length / 2] ^= 0x10;
    expect(ZetaException.class, Status.ERR_FORMAT, "", () -> Rbm.fromBytes(corrupt));
    expect(ZetaException.class, Status.ERR_FORMAT, "", () -> Rbm.fromBytes(Arrays.copyOf(before, before.length - 3)));

    // bad trainer input: non-binary batch, PT-only getters under CD
    try (Options o = trainerOptions(); Trainer t = new Trainer(rbm, o)) {
      expect(ZetaArgumentException.class, Status.ERR_ARGUMENT, "binary", () -> t.step(bad));
      expect(ZetaArgumentException.class, Status.ERR_ARGUMENT, "n_rows", () -> t.step(new double[0]));
      expect(ZetaArgumentException.class, Status.ERR_ARGUMENT, "batch_size", () -> t.train(data, 0, 10));
      check(t.steps() == 0, "bad batches did no update");
    }
    try (Options o = trainerOptions().set("method", 1); Trainer t = new Trainer(rbm, o)) {
      expect(ZetaException.class, Status.ERR_UNSUPPORTED, "", t::logZ);
    }

    // closed handles: an exception, never a crash; close twice is fine
    Options opts = trainerOptions();
    Trainer trainer = new Trainer(rbm, opts);
    // a model closed under its trainer stays alive natively until the trainer goes
    rbm.close();
    expect(IllegalStateException.class, null, "closed", rbm::logZExact);
    trainer.step(Arrays.copyOf(data, 16 * NV));
    check(trainer.steps() == 1, "trainer still works on a closed (borrowed) model");
    trainer.close();
    trainer.close();
    expect(IllegalStateException.class, null, "closed", trainer::steps);
    expect(IllegalStateException.class, null, "closed", () -> trainer.step(data));
    rbm.close();
    check(rbm.isClosed() && trainer.isClosed(), "isClosed");
    expect(IllegalStateException.class, null, "closed", rbm::logZExact);
    expect(IllegalStateException.class, null, "closed", () -> rbm.setParams(new double[NV * NH], new double[NV],
                                                                           new double[NH]));
    expect(IllegalStateException.class, null, "closed", () -> new Trainer(rbm, opts));
    opts.close();
    expect(IllegalStateException.class, null, "closed", () -> opts.set("seed", 1));
  }

  @SuppressWarnings("try") // closes a resource inside its try block on purpose (must be refused)
  private static void testCancellation() {
    double[] data = barsAndStripes();
    try (Rbm rbm = new Rbm(NV, 20, 1); Options opts = trainerOptions()) {
      rbm.initFromData(data, 0.1);
      double before = rbm.logZExact();
      int[] calls = {0};
      expect(ZetaException.class, Status.ERR_CANCELLED, "", () -> rbm.logZExact(p -> ++calls[0] < 2));
      check(calls[0] == 2, "exact log Z: listener called until it cancelled (" + calls[0] + ")");
      calls[0] = 0;
      expect(ZetaException.class, Status.ERR_CANCELLED, "", () -> rbm.logZAis(20, 500, 1, p -> ++calls[0] < 3));
      check(rbm.logZExact() == before, "model usable after cancellation");

      // a listener's exception cancels the call and comes back out of it
      expect(UnsupportedOperationException.class, null, "from the listener", () -> rbm.logZExact(p -> {
        throw new UnsupportedOperationException("thrown from the listener");
      }));
      // re-entry: the object of the running call refuses to be used or closed from its listener
      expect(IllegalStateException.class, null, "listener", () -> rbm.logZExact(p -> {
        rbm.setSeed(3);
        return true;
      }));
      // reading the same object from its listener is allowed (const calls may nest)
      check(rbm.logZExact(p -> rbm.logZExact() == before) == before, "const call from the listener");
      check(!rbm.isClosed() && rbm.logZExact() == before, "model intact after re-entry attempts");

      try (Trainer t = new Trainer(rbm, opts)) {
        expect(ZetaException.class, Status.ERR_CANCELLED, "", () -> t.train(data, 16, 100, p -> p.done() < 5));
        check(t.steps() == 5, "training cancelled after 5 updates, which are kept (" + t.steps() + ")");
        t.train(data, 16, 3, p -> true);
        check(t.steps() == 8, "trainer usable after cancellation");
        // between steps the listener may use the borrowed model (read its parameters, here)
        t.train(data, 16, 2, p -> rbm.weights().length == NV * 20);
        check(t.steps() == 10, "listener reading the model");
      }
      // closing from the listener: the call finishes (cancelled here), then the model is freed
      Rbm doomed = rbm.copy();
      expect(ZetaException.class, Status.ERR_CANCELLED, "", () -> doomed.logZExact(p -> {
        doomed.close();
        return false;
      }));
      check(doomed.isClosed(), "closed from its own listener");
    }
  }

  /** Equal to the last bit, and as long. */
  private static boolean sameBits(double[] a, double[] b) {
    if (a == null || b == null || a.length != b.length) {
      return false;
    }
    for (int i = 0; i < a.length; i++) {
      if (Double.doubleToRawLongBits(a[i]) != Double.doubleToRawLongBits(b[i])) {
        return false;
      }
    }
    return true;
  }

  /** Hidden-unit removal: exact costs and a pruner run equal the C library's to the last bit; removeHidden;
   *  cancellation; bad input; a trainer made before a removal refuses to step. */
  @SuppressWarnings("try") // closes the pruner's model inside its try block on purpose (it stays borrowed)
  private static void testPruning(String exe, Path dir) throws IOException, InterruptedException {
    double[] data = barsAndStripes();
    Path model = dir.resolve("java_prune_reference.zeta");
    try (Rbm rbm = new Rbm(NV, NH, 1);
         Options o = new Options().set("prune_chains", 50).set("n_temperatures", 3)
             .set("prune_tempered_steps", 10).set("seed", 3)) {
      setSomeParams(rbm);
      rbm.save(model.toString());
      Map<String, double[]> ref = reference(exe, model, 2, 3, 1, "prune");
      check(sameBits(rbm.removalCostsExact(data), ref.get("removal_costs")), "exact removal costs equal C's");
      try (Pruner pruner = new Pruner(rbm, o)) {
        check(Double.isNaN(pruner.costs()[0]) && pruner.costStdErrs()[0] == Double.POSITIVE_INFINITY,
              "costs unknown before the first step");
        check(pruner.settled() == -1 && pruner.settlingSweeps() == 0, "settling unknown before the first step");
        long[] seen = {0};
        pruner.run(data, 16, 5, p -> {
          seen[0] = p.done();
          return "pruning".equals(p.stage()) && p.value() >= 1;
        });
        check(seen[0] == 5 && pruner.steps() == 5, "5 pruning steps (" + pruner.steps() + ")");
        check((pruner.settled() == 0 || pruner.settled() == 1) && pruner.settlingSweeps() >= 10,
              "settled (" + pruner.settled() + ") in " + pruner.settlingSweeps() + " sweeps by default");
        check(rbm.nHidden() == ref.get("pruner_costs").length && rbm.weights().length == NV * rbm.nHidden(),
              "the Rbm's shape follows the pruner (" + rbm.nHidden() + " units)");
        check(sameBits(pruner.costs(), ref.get("pruner_costs"))
              && sameBits(pruner.costStdErrs(), ref.get("pruner_std_errs")), "pruner costs equal C's");
        Estimate logZ = pruner.logZ();
        check(sameBits(new double[] {logZ.value(), logZ.stdDev()}, ref.get("pruner_log_z")),
              "tracked log Z " + logZ + " equals C's");
        int removed = pruner.step(Arrays.copyOf(data, 16 * NV));
        check(removed >= 0 && pruner.steps() == 6, "one more step");

        expect(ZetaException.class, Status.ERR_CANCELLED, "", () -> pruner.run(data, 16, 10, p -> p.done() < 2));
        check(pruner.steps() == 8, "cancelled after 2 steps, which are kept (" + pruner.steps() + ")");
        double[] bad = data.clone();
        bad[3] = 0.5;
        byte[] before = rbm.toBytes();
        expect(ZetaArgumentException.class, Status.ERR_ARGUMENT, "binary", () -> pruner.step(bad));
        expect(ZetaArgumentException.class, Status.ERR_ARGUMENT, "batch", () -> pruner.step(null));
        expect(ZetaArgumentException.class, Status.ERR_ARGUMENT, "batch_size", () -> pruner.run(data, 0, 1));
        expect(ZetaArgumentException.class, Status.ERR_ARGUMENT, "steps", () -> pruner.run(data, 16, 0));
        check(Arrays.equals(rbm.toBytes(), before) && pruner.steps() == 8, "bad input changed nothing");
      }
    }
    expect(ZetaArgumentException.class, Status.ERR_ARGUMENT, "rbm", () -> new Pruner(null));
    try (Rbm rbm = new Rbm(NV, NH, 1); Options wrong = new Options().set("learning_rate", 0.1)) {
      setSomeParams(rbm);
      expect(ZetaArgumentException.class, Status.ERR_ARGUMENT, "learning_rate", () -> new Pruner(rbm, wrong));
      expect(ZetaArgumentException.class, Status.ERR_ARGUMENT, "prune_chains",
             () -> new Options().set("prune_chains", 1));
      // One rung: no ladder to track with, until anchored at an estimate.
      try (Options one = new Options().set("n_temperatures", 1); Pruner single = new Pruner(rbm, one)) {
        expect(ZetaException.class, Status.ERR_UNSUPPORTED, "anchor", single::logZ);
        expect(ZetaArgumentException.class, Status.ERR_ARGUMENT, "standard deviation",
               () -> single.anchorLogZ(5.0, 0.0));
        single.anchorLogZ(5.0, 0.25);
        Estimate anchored = single.logZ();
        check(anchored.value() == 5.0 && Math.abs(anchored.stdDev() - 0.25) < 1e-12, "anchored log Z " + anchored);
        Pruner.LogZCheck none = single.logZCheck();
        check(none.step == -1 && Double.isNaN(none.z) && none.driftVariance == 0.0, "no check before the first");
        // Anchored by AIS: the witnesses carry it on.
        expect(ZetaArgumentException.class, Status.ERR_ARGUMENT, "runs", () -> single.anchorAis(10, 100));
        single.anchorAis(40, 200);
        Estimate witnessed = single.logZ();
        check(Double.isFinite(witnessed.value()) && witnessed.stdDev() > 0.0, "AIS-anchored log Z " + witnessed);
      }
      // Anchoring again checks the carried value (on a copy, with no removals: an update step to carry across).
      try (Rbm copy = Rbm.fromBytes(rbm.toBytes());
           Options keep = new Options().set("n_temperatures", 1).set("prune_criterion", 1e6);
           Pruner single = new Pruner(copy, keep)) {
        single.anchorLogZ(5.0, 0.25);
        single.step(Arrays.copyOf(data, 16 * NV));
        Estimate carried = single.logZ();
        single.anchorLogZ(carried.value() - 1.0, 0.25);
        Pruner.LogZCheck first = single.logZCheck();
        double sd = Math.sqrt(carried.stdDev() * carried.stdDev() + 0.0625);
        check(first.step == 1 && Math.abs(first.difference - 1.0) < 1e-9 && Math.abs(first.z - 1.0 / sd) < 1e-9
              && first.driftVariance >= 0.0, "log Z check " + first.step + " " + first.difference + " " + first.z);
        // The chains, for checkpoints, and set from given states (a checkpoint's, or a PCD trainer's).
        double[] chains = single.chains();
        check(chains.length == 1000 * NV, "chains " + chains.length);
        chains[0] = 1.0 - chains[0];
        single.setChains(chains);
        check(Arrays.equals(single.chains(), chains), "setChains");
        double[] fewer = Arrays.copyOf(chains, chains.length - NV);
        expect(ZetaArgumentException.class, Status.ERR_ARGUMENT, "chains", () -> single.setChains(fewer));
      }

      // removeHidden: the column and bias go, later units move down; the last unit stays
      double[] w = rbm.weights();
      double[] c = rbm.hiddenBias();
      rbm.removeHidden(2);
      double[] w2 = rbm.weights();
      check(rbm.nHidden() == NH - 1 && w2.length == NV * (NH - 1) && w2[2] == w[3] && w2[NH - 1] == w[NH]
            && rbm.hiddenBias()[2] == c[3], "removeHidden(2)");
      expect(ZetaArgumentException.class, Status.ERR_ARGUMENT, "k", () -> rbm.removeHidden(NH - 1));
      try (Rbm one = new Rbm(NV, 1, 1)) {
        expect(ZetaArgumentException.class, Status.ERR_ARGUMENT, "only hidden unit", () -> one.removeHidden(0));
      }
      try (Rbm big = new Rbm(31, 31, 1)) {
        expect(ZetaException.class, Status.ERR_UNSUPPORTED, "enumerate", () -> big.removalCostsExact(new double[31]));
      }
      // a trainer is made for one size; a pruner borrows a model closed under it
      try (Options to = trainerOptions(); Trainer trainer = new Trainer(rbm, to)) {
        trainer.step(data);
        rbm.removeHidden(0);
        expect(ZetaArgumentException.class, Status.ERR_ARGUMENT, "hidden units", () -> trainer.step(data));
      }
      try (Options po = new Options().set("prune_chains", 20).set("n_temperatures", 2)) {
        Pruner pruner = new Pruner(rbm, po);
        rbm.close();
        pruner.step(data);
        check(pruner.steps() == 1 && pruner.costs().length == rbm.nHidden() && rbm.nHidden() <= NH - 2,
              "a pruner works on a closed (borrowed) model");
        pruner.close();
        expect(IllegalStateException.class, null, "closed", pruner::steps);
      }
    }
  }

  /** Rows of nFeatures values in {-1, +1} and labels from a fixed linear rule (deterministic). */
  private static double[] linearData(int rows, int nFeatures, int[] labels, int nClasses) {
    double[] x = new double[rows * nFeatures];
    long state = 12345;
    for (int r = 0; r < rows; r++) {
      double[] score = new double[nClasses];
      for (int f = 0; f < nFeatures; f++) {
        state = state * 6364136223846793005L + 1442695040888963407L;
        double v = (state >>> 63) == 0 ? -1.0 : 1.0;
        x[r * nFeatures + f] = v;
        for (int c = 0; c < nClasses; c++) {
          score[c] += v * Math.sin(1.7 * f + 2.3 * c + 0.5);
        }
      }
      int best = 0;
      for (int c = 1; c < nClasses; c++) {
        best = score[c] > score[best] ? c : best;
      }
      labels[r] = nClasses == 1 ? (score[0] > 0 ? 1 : -1) : best;
    }
    return x;
  }

  private static void testClassifiers(Path dir) {
    // EBP: a binary net learns a linear rule; files and bytes round-trip; bad input and cancellation
    int[] y = new int[400];
    double[] x = linearData(400, 12, y, 1);
    try (Options o = new Options().set("seed", 5); EbpNet net = new EbpNet(12, new int[] {20}, 1, o)) {
      check(net.nInputs() == 12 && net.nOutputs() == 1 && net.hiddenSizes()[0] == 20 && net.binaryWeights(),
            "EBP shape");
      double before = net.errorRate(x, y, EbpNet.Output.P);
      long[] batches = {0};
      net.trainEpochs(x, y, 10, 5, true, p -> ++batches[0] > 0);
      double after = net.errorRate(x, y, EbpNet.Output.P);
      check(batches[0] == 200 && net.examplesSeen() == 2000, "EBP epochs and listener (" + batches[0] + ")");
      check(after < 0.15 && after < before, "EBP learns (error " + before + " -> " + after + ")");
      net.trainBatch(Arrays.copyOf(x, 24), Arrays.copyOf(y, 2));
      check(net.predict(x, EbpNet.Output.D).length == 400 && net.scores(x, EbpNet.Output.P_Z).length == 400,
            "EBP predict/scores");
      Path file = dir.resolve("java_ebp.zeta");
      net.save(file.toString());
      try (EbpNet loaded = EbpNet.load(file.toString()); EbpNet copy = EbpNet.fromBytes(net.toBytes())) {
        check(Arrays.equals(loaded.scores(x, EbpNet.Output.P), net.scores(x, EbpNet.Output.P))
              && Arrays.equals(copy.toBytes(), net.toBytes()), "EBP round trips");
      }
      expect(ZetaArgumentException.class, Status.ERR_ARGUMENT, "labels", () -> net.trainBatch(x, new int[3]));
      expect(ZetaArgumentException.class, Status.ERR_ARGUMENT, "batch_size",
             () -> net.trainEpochs(x, y, 0, 1, false, null));
      double[] bad = x.clone();
      bad[3] = Double.NaN;
      expect(ZetaArgumentException.class, Status.ERR_ARGUMENT, "", () -> net.trainBatch(bad, y));
      expect(ZetaException.class, Status.ERR_CANCELLED, "", () -> net.trainEpochs(x, y, 10, 1, false,
                                                                                  p -> p.done() < 3));
    }
    expect(ZetaArgumentException.class, Status.ERR_ARGUMENT, "", () -> new EbpNet(12, new int[] {0}, 1, null));
    expect(ZetaArgumentException.class, Status.ERR_ARGUMENT, "learning_rate",
           () -> new EbpNet(12, null, 1, new Options().set("learning_rate", 0.1)));

    // Softmax: exact and NCE training improve the likelihood; bytes round trip; bad input
    int[] c = new int[500];
    double[] f = linearData(500, 6, c, 10);
    long[] counts = new long[10];
    for (int label : c) {
      counts[label]++;
    }
    for (Softmax.Method method : new Softmax.Method[] {Softmax.Method.EXACT, Softmax.Method.NCE}) {
      try (Options o = new Options().set("softmax_method", method.code()).set("softmax_negatives", 5)
               .set("softmax_learning_rate", 0.1).set("seed", 2);
           Softmax sm = new Softmax(6, 10, o)) {
        sm.setClassCounts(counts);
        double before = sm.logLikelihood(f, c);
        sm.trainEpochs(f, c, 25, 10, true, p -> true);
        double after = sm.logLikelihood(f, c);
        check(after > before + 0.1 && sm.steps() == 200, method + ": log-likelihood " + before + " -> " + after);
        double[] probs = sm.probabilities(Arrays.copyOf(f, 6));
        check(Math.abs(Arrays.stream(probs).sum() - 1) < 1e-12 && sm.predict(f).length == 500, method + " probs");
        try (Softmax copy = Softmax.fromBytes(sm.toBytes())) {
          check(Arrays.equals(copy.logProbabilities(f), sm.logProbabilities(f)), method + " bytes round trip");
        }
        expect(ZetaArgumentException.class, Status.ERR_ARGUMENT, "counts", () -> sm.setClassCounts(new long[3]));
        int[] wrong = c.clone();
        wrong[0] = 10;
        expect(ZetaArgumentException.class, Status.ERR_ARGUMENT, "", () -> sm.trainBatch(f, wrong));
      }
    }
    expect(ZetaArgumentException.class, Status.ERR_ARGUMENT, "softmax_method",
           () -> new Options().set("softmax_method", 7));
    expect(ZetaArgumentException.class, Status.ERR_ARGUMENT, "n_classes", () -> new Softmax(6, 1, null));
  }

  /** A DARN through the binding: blocks and their checks, exact log p(x) summing to 1, training with a listener
   *  that can cancel, importance sampling and the bound, exact samples, round trips, bad input, and the C API's
   *  numbers to the last bit (the reference program scores the same model file). */
  private static void testDarn(String exe, Path dir) throws IOException, InterruptedException {
    try (Darn small = new Darn(new int[] {4, 3}, new Options().set("seed", 2).set("darn_single_precision", 0))) {
      check(Arrays.equals(small.sizes(), new int[] {4, 3}) && small.nVisible() == 4, "DARN sizes");
      String names = small.blocks().toString();
      check(names.equals("[prior.bias (3 x 1), prior.weight (3 x 3), decoder.bias (4 x 1), decoder.weight (4 x 3), "
                         + "encoder.bias (3 x 1), encoder.weight (3 x 4)]"), "DARN blocks " + names);
      double[] w = {0, 0, 0, 0.5, 0, 0, -1, 2, 0};
      small.setParam("prior.weight", w);
      check(Arrays.equals(small.param("prior.weight"), w), "DARN set/get block");
      byte[] before = small.toBytes();
      expect(ZetaArgumentException.class, Status.ERR_ARGUMENT, "(0, 1)",
             () -> small.setParam("prior.weight", new double[] {0, 1, 0, 0, 0, 0, 0, 0, 0}));
      expect(ZetaArgumentException.class, Status.ERR_ARGUMENT, "no.such", () -> small.param("no.such"));
      expect(ZetaArgumentException.class, Status.ERR_ARGUMENT, "decoder.bias",
             () -> small.setParam("decoder.bias", new double[3]));
      expect(ZetaArgumentException.class, Status.ERR_ARGUMENT, "finite",
             () -> small.setParam("decoder.bias", new double[] {0, Double.NaN, 0, 0}));
      expect(ZetaArgumentException.class, Status.ERR_ARGUMENT, "binary",
             () -> small.trainBatch(new double[] {0, 1, 0.5, 0}));
      expect(ZetaArgumentException.class, Status.ERR_ARGUMENT, "columns", () -> small.trainBatch(new double[5]));
      expect(ZetaArgumentException.class, Status.ERR_ARGUMENT, "n_samples",
             () -> small.logProbImportance(new double[4], 1, 1));
      check(Arrays.equals(small.toBytes(), before), "DARN unchanged by bad input");
      double[] all = new double[16 * 4];
      for (int c = 0; c < 16; c++) {
        for (int k = 0; k < 4; k++) {
          all[c * 4 + k] = (c >> k) & 1;
        }
      }
      double total = 0;
      for (double lp : small.logProbExact(all)) {
        total += Math.exp(lp);
      }
      check(Math.abs(total - 1) < 1e-12, "DARN exact probabilities sum to 1 (" + total + ")");
    }

    double[] data = barsAndStripes();
    try (Darn darn = new Darn(new int[] {NV, 6}, new Options().set("seed", 3).set("darn_learning_rate", 3e-3))) {
      double first = darn.trainBatch(Arrays.copyOf(data, 16 * NV));
      long[] calls = {0};
      darn.trainEpochs(data, 16, 20, p -> {
        calls[0]++;
        return "training".equals(p.stage()) && Double.isFinite(p.value());
      });
      check(calls[0] == 80 && first > 0, "DARN epochs with a listener (" + calls[0] + " calls)");
      byte[] trained = darn.toBytes();
      expect(ZetaException.class, Status.ERR_CANCELLED, "", () -> darn.trainEpochs(data, 16, 5, p -> p.done() < 3));
      check(!Arrays.equals(darn.toBytes(), trained), "DARN: cancelled epochs keep their finished batches");
      double[] exact = darn.logProbExact(data);
      Estimate[] is = darn.logProbImportance(data, 2000, 4);
      double[] dl = darn.descriptionLength(data, 50, 5);
      boolean close = true;
      for (int r = 0; r < exact.length; r++) {
        close &= Math.abs(is[r].value() - exact[r]) < 5 * is[r].stdDev() + 1e-3 && dl[r] > -exact[r] - 0.5;
      }
      check(close && exact.length == 64, "DARN importance sampling and bound agree with exact log p(x)");
      double[] s = darn.sample(7, 9);
      check(s.length == 7 * NV && Arrays.stream(s).allMatch(v -> v == 0.0 || v == 1.0)
            && Arrays.equals(s, darn.sample(7, 9)), "DARN samples");
      Path file = dir.resolve("java_darn.zeta");
      darn.save(file.toString());
      try (Darn loaded = Darn.load(file.toString()); Darn copy = darn.copy();
           Darn again = Darn.fromBytes(darn.toBytes())) {
        check(Arrays.equals(loaded.toBytes(), darn.toBytes()) && Arrays.equals(copy.toBytes(), darn.toBytes())
              && Arrays.equals(again.logProbExact(data), exact), "DARN round trips");
        check(loaded.trainBatch(data) == darn.trainBatch(data) && Arrays.equals(loaded.toBytes(), darn.toBytes()),
              "DARN trains on identically after loading");
      }
    }
    expect(ZetaArgumentException.class, Status.ERR_ARGUMENT, "n_layers", () -> new Darn(new int[] {4}, null));
    expect(ZetaArgumentException.class, Status.ERR_ARGUMENT, "learning_rate",
           () -> new Darn(new int[] {4, 2}, new Options().set("learning_rate", 0.1)));
    try (Darn wide = new Darn(new int[] {4, 31}, null)) {
      expect(ZetaException.class, Status.ERR_UNSUPPORTED, "2^31", () -> wide.logProbExact(new double[4]));
    }

    // The C API's numbers, bit for bit, on a model trained on the embedded data.
    Dataset train = Zeta.defaultData(Zeta.Split.TRAIN);
    Dataset test = Zeta.defaultData(Zeta.Split.TEST);
    Path model = dir.resolve("java_darn_reference.zeta");
    try (Darn darn = new Darn(new int[] {784, 8}, new Options().set("seed", 4).set("darn_learning_rate", 1e-3))) {
      darn.trainEpochs(train.rows(0, 300), 100, 1, null);
      darn.save(model.toString());
      Map<String, double[]> ref = reference(exe, "darn", model.toString(), "200", "77");
      double[] x = test.rows(0, 8);
      Estimate[] is = darn.logProbImportance(x, 200, 77);
      double[] value = new double[8];
      double[] err = new double[8];
      for (int r = 0; r < 8; r++) {
        value[r] = is[r].value();
        err[r] = is[r].stdDev();
      }
      double[] samples = darn.sample(8, 77);
      double[] sums = new double[8];
      for (int r = 0; r < 8; r++) {
        for (int k = 0; k < 784; k++) {
          sums[r] += samples[r * 784 + k];
        }
      }
      check(Arrays.equals(ref.get("darn_exact"), darn.logProbExact(x)), "DARN exact log p(x) equals C");
      check(Arrays.equals(ref.get("darn_is"), value) && Arrays.equals(ref.get("darn_se"), err),
            "DARN importance sampling equals C");
      check(Arrays.equals(ref.get("darn_bound"), darn.descriptionLength(x, 200, 77)), "DARN bound equals C");
      check(Arrays.equals(ref.get("darn_sample_sums"), sums), "DARN samples equal C's");
    }
  }

  /** Threads share a model and a trainer while another thread closes them: results stay exact, and a call
   *  after the close throws IllegalStateException; nothing else may happen. */
  private static void testThreads() throws InterruptedException {
    double[] data = barsAndStripes();
    Rbm rbm = new Rbm(NV, NH, 1);
    setSomeParams(rbm);
    Options opts = trainerOptions();
    Trainer trainer = new Trainer(rbm, opts);
    AtomicInteger wrong = new AtomicInteger();
    AtomicInteger closed = new AtomicInteger();
    AtomicInteger calls = new AtomicInteger();
    Thread[] threads = new Thread[4];
    for (int k = 0; k < threads.length; k++) {
      final int kind = k;
      threads[k] = new Thread(() -> {
        try {
          while (true) { // until the close ends it
            if (kind == 0) {
              trainer.step(Arrays.copyOf(data, 16 * NV)); // changes the shared model
            } else if (kind == 1) {
              if (!Double.isFinite(trainer.logZ().value()) && trainer.steps() > 0) {
                wrong.incrementAndGet();
              }
            } else {
              double[] w = rbm.weights();
              if (w.length != NV * NH || rbm.freeEnergy(data).length != 64) {
                wrong.incrementAndGet();
              }
            }
            calls.incrementAndGet();
          }
        } catch (IllegalStateException e) {
          closed.incrementAndGet(); // the handle was closed under this thread: the documented outcome
        } catch (Throwable t) {
          wrong.incrementAndGet();
          System.out.println("FAIL: thread " + kind + " threw " + t);
        }
      });
      threads[k].start();
    }
    Thread.sleep(300);
    trainer.close();
    rbm.close();
    opts.close();
    for (Thread t : threads) {
      t.join();
    }
    check(wrong.get() == 0, "threads saw only correct results (" + wrong.get() + " wrong)");
    check(closed.get() == threads.length, "every thread stopped by IllegalStateException after the close ("
                                          + closed.get() + ", after " + calls.get() + " calls)");
  }

  private static long rssKiB() {
    try {
      for (String line : Files.readAllLines(Paths.get("/proc/self/status"))) {
        if (line.startsWith("VmRSS:")) {
          return Long.parseLong(line.replaceAll("[^0-9]", ""));
        }
      }
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
    throw new IllegalStateException("no VmRSS in /proc/self/status");
  }

  private static void churn(int n) {
    for (int i = 0; i < n; i++) {
      try (Rbm rbm = new Rbm(64, 32, i); Options o = new Options().set("n_temperatures", 2)
               .set("chains_per_temperature", 1); Trainer t = new Trainer(rbm, o)) {
        if (t.nTemperatures() != 2) {
          throw new IllegalStateException("unexpected trainer");
        }
      }
    }
  }

  private static void testNoLeak() {
    // Native memory per iteration is about 20 KiB (64x32 doubles, twice, plus the trainer), so a leak of any
    // of the three handles over 100k iterations would be hundreds of MiB; the limit allows for JIT/GC noise.
    churn(10_000);
    System.gc();
    long before = rssKiB();
    long t0 = System.nanoTime();
    churn(100_000);
    System.gc();
    long after = rssKiB();
    System.out.printf("100k x (Rbm + Options + Trainer) created and closed in %.1f s; RSS %d -> %d KiB%n",
                      (System.nanoTime() - t0) * 1e-9, before, after);
    check(after - before < 32 * 1024, "RSS growth " + (after - before) + " KiB over 100k handle triples");

    // Unclosed handles are freed by the Cleaner, never twice, in any order: exercise that path, including
    // trainers collected together with their models.
    for (int i = 0; i < 20_000; i++) {
      Rbm rbm = new Rbm(8, 4, i);
      if (i % 10 == 0) {
        new Trainer(rbm, new Options().set("n_temperatures", 2).set("chains_per_temperature", 1)).nChains();
      }
    }
    System.gc();
  }

  public static void main(String[] args) throws Exception {
    if (args.length != 2) {
      System.err.println("usage: ZetaBindingTest REFERENCE_EXE SCRATCH_DIR");
      System.exit(2);
    }
    Path dir = Paths.get(args[1]);
    Files.createDirectories(dir);
    String[] names = {"basics", "bit-for-bit log Z", "training and files", "row types", "gibbs", "seeded training",
                      "build info and threads", "tracking health", "bad input",
                      "cancellation", "threads",
                      "EBP and softmax", "DARN",
                      "pruning",
                      "no native leak"};
    for (String name : names) {
      int failed = failures;
      long t0 = System.nanoTime();
      try {
        switch (name) {
          case "basics": testBasics(); break;
          case "bit-for-bit log Z": testBitForBit(args[0], dir); break;
          case "training and files": testTrainingAndFiles(dir); break;
          case "row types": testRowTypes(); break;
          case "gibbs": testGibbs(args[0], dir); break;
          case "seeded training": testSeededTraining(args[0]); break;
          case "build info and threads": testBuildInfoAndThreads(); break;
          case "tracking health": testTrackingHealth(); break;
          case "bad input": testBadInput(dir); break;
          case "cancellation": testCancellation(); break;
          case "threads": testThreads(); break;
          case "EBP and softmax": testClassifiers(dir); break;
          case "DARN": testDarn(args[0], dir); break;
          case "pruning": testPruning(args[0], dir); break;
          default: testNoLeak(); break;
        }
      } catch (Throwable t) {
        failures++;
        System.out.println("FAIL: " + name + " threw " + t);
        t.printStackTrace(System.out);
      }
      System.out.printf("%-4s %s (%.2f s)%n", failures == failed ? "ok" : "FAIL", name,
                        (System.nanoTime() - t0) * 1e-9);
    }
    System.out.println("java binding: " + checks + " checks, " + failures + " failed: "
                       + (failures == 0 ? "PASS" : "FAIL"));
    System.exit(failures == 0 ? 0 : 1);
  }
}
