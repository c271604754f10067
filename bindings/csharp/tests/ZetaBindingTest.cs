using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.Globalization;
using System.IO;
using System.Linq;
using System.Text;
using System.Threading;
using Zeta;

/// <summary>Tests of the C# binding (plain Main runner; prints one line per failed check and a summary).
/// Usage: ZetaBindingTest.exe REFERENCE_EXE SCRATCH_DIR, where REFERENCE_EXE computes log Z through the C API
/// alone.</summary>
public static class ZetaBindingTest {
  private const int NV = 16; // 4x4 bars and stripes
  private const int NH = 8;
  private static int checks;
  private static int failures;

  private static void Check(bool ok, string what) {
    checks++;
    if (!ok) {
      failures++;
      Console.WriteLine("FAIL: " + what);
    }
  }

  /// <summary>Checks that body throws T with a message containing text (and, for zeta's own exceptions, the
  /// expected status).</summary>
  private static void Expect<T>(Status? status, string text, Action body) where T : Exception {
    checks++;
    try {
      body();
      failures++;
      Console.WriteLine($"FAIL: expected {typeof(T).Name} ({text}), nothing thrown");
    } catch (Exception e) {
      bool ok = e is T && e.Message.Contains(text);
      if (ok && status != null) {
        ok = e is ZetaException z ? z.Status == status : e is ZetaArgumentException a && a.Status == status;
      }
      if (!ok) {
        failures++;
        Console.WriteLine($"FAIL: expected {typeof(T).Name} {status} ({text}), got {e.GetType().Name}: {e.Message}");
      }
    }
  }

  /// <summary>All 30 distinct 4x4 bars-and-stripes images, repeated to 64 rows.</summary>
  private static double[] BarsAndStripes() {
    var patterns = new double[32, NV];
    for (int mask = 0; mask < 16; mask++) {
      for (int i = 0; i < 4; i++) {
        for (int j = 0; j < 4; j++) {
          patterns[mask, i * 4 + j] = (mask >> i) & 1;      // rows on/off
          patterns[16 + mask, i * 4 + j] = (mask >> j) & 1; // columns on/off
        }
      }
    }
    var data = new double[64 * NV];
    for (int r = 0; r < 64; r++) {
      for (int k = 0; k < NV; k++) {
        data[r * NV + k] = patterns[(r * 7) % 32, k];
      }
    }
    return data;
  }

  private static void SetSomeParams(Rbm rbm) {
    var w = new double[rbm.NVisible * rbm.NHidden];
    var b = new double[rbm.NVisible];
    var c = new double[rbm.NHidden];
    for (int i = 0; i < w.Length; i++) {
      w[i] = 0.5 * Math.Sin(1.3 * i + 0.2);
    }
    for (int i = 0; i < b.Length; i++) {
      b[i] = 0.3 * Math.Cos(0.7 * i);
    }
    for (int j = 0; j < c.Length; j++) {
      c[j] = -0.2 + 0.05 * j;
    }
    rbm.SetParams(w, b, c);
  }

  private static Options TrainerOptions() {
    return new Options().Set("learning_rate", 0.05).Set("n_temperatures", 5).Set("chains_per_temperature", 10)
        .Set("seed", 7);
  }

  private static Dictionary<string, double[]> Reference(string exe, string model, int runs, int betas, ulong seed,
                                                        string extra = "") {
    return Reference(exe, $"{model} {runs} {betas} {seed} {extra}".TrimEnd());
  }

  private static Dictionary<string, double[]> Reference(string exe, string arguments) {
    var info = new ProcessStartInfo(exe, arguments) {
      UseShellExecute = false, RedirectStandardOutput = true
    };
    var output = new Dictionary<string, double[]>();
    using (var p = Process.Start(info)) {
      string line;
      while ((line = p.StandardOutput.ReadLine()) != null) {
        string[] f = line.Trim().Split(' ');
        // Each value arrives as its IEEE-754 bit pattern in hex, so the comparison with the C result is bit-exact.
        output[f[0]] = f.Skip(1).Select(h => BitConverter.Int64BitsToDouble(
            unchecked((long)ulong.Parse(h, NumberStyles.HexNumber, CultureInfo.InvariantCulture)))).ToArray();
      }
      p.WaitForExit();
      Check(p.ExitCode == 0, "reference program exit status");
    }
    return output;
  }

  private static void TestBasics() {
    Check(System.Text.RegularExpressions.Regex.IsMatch(Library.Version, @"^\d+\.\d+\.\d+$"), "version " + Library.Version);
    Check(typeof(Library).Assembly.GetName().Version.ToString(3) == Library.Version,
          "the assembly's version " + typeof(Library).Assembly.GetName().Version);
    Check(Library.AbiVersion == Library.BindingAbiVersion, "ABI version");
    Check(Options.Keys.Contains("learning_rate") && Options.Keys.Contains("seed"), "option keys");
    using (var rbm = new Rbm(NV, NH, 1)) {
      Check(rbm.NVisible == NV && rbm.NHidden == NH, "shape");
      SetSomeParams(rbm);
      double[] w = rbm.Weights();
      Check(w.Length == NV * NH && w[5] == 0.5 * Math.Sin(1.3 * 5 + 0.2), "get W");
      Check(rbm.VisibleBias()[3] == 0.3 * Math.Cos(0.7 * 3), "get b");
      Check(rbm.HiddenBias()[2] == -0.2 + 0.05 * 2, "get c");
      double[] data = BarsAndStripes();
      double logZ = rbm.LogZExact();
      double mean = rbm.FreeEnergy(data).Average();
      Check(Math.Abs(rbm.MeanLogLikelihood(data, logZ) - (-mean - logZ)) < 1e-9, "mean log-likelihood");
      Check(rbm.HiddenProbs(data).Length == 64 * NH && rbm.VisibleProbs(new double[NH]).Length == NV, "probs");
      double[] s = rbm.Sample(5, 3);
      Check(s.Length == 5 * NV && s.All(x => x == 0.0 || x == 1.0), "sample");
      using (var copy = rbm.Copy()) {
        Check(copy.ToBytes().SequenceEqual(rbm.ToBytes()), "copy");
      }
    }
    using (var o = new Options()) {
      Check(o.Get("learning_rate") == 1e-3, "default learning_rate");
      Check(o.Set("gibbs_steps", 3).Get("gibbs_steps") == 3, "set/get option");
    }
    Dataset d = Library.DefaultData(Split.Test);
    Check(d.Rows == 1000 && d.Cols == 784 && d.Values.Length == 784000 && d.Labels.Length == 1000,
          "default data shape");
  }

  private static void TestBitForBit(string exe, string dir) {
    string model = Path.Combine(dir, "csharp_reference.zeta");
    using (var rbm = new Rbm(NV, NH, 1)) {
      SetSomeParams(rbm);
      rbm.Save(model);
      var reference = Reference(exe, model, 40, 300, 12345);
      double exact = rbm.LogZExact();
      Estimate ais = rbm.LogZAis(40, 300, 12345);
      Check(reference.ContainsKey("exact") && exact == reference["exact"][0], $"exact log Z {exact} equals C");
      Check(reference.ContainsKey("ais") && ais.Value == reference["ais"][0] && ais.StdDev == reference["ais"][1],
            $"AIS log Z {ais} equals C");
      int calls = 0;
      Estimate ais2 = rbm.LogZAis(40, 300, 12345, p => ++calls > 0);
      Check(calls > 0 && ais2.Value == ais.Value, "AIS with a listener: same bits");
      Check(rbm.LogZExact(p => true) == exact, "exact with a listener: same bits");
      Check(Math.Abs(ais.Value - exact) < 5 * ais.StdDev + 0.05, "AIS near exact");
    }
  }

  private static double[] Rows(double[] data, int from, int to) {
    var output = new double[(to - from) * NV];
    Array.Copy(data, from * NV, output, 0, output.Length);
    return output;
  }

  private static void TestTrainingAndFiles(string dir) {
    double[] data = BarsAndStripes();
    string file = Path.Combine(dir, "csharp_trained.zeta");
    using (var rbm = new Rbm(NV, NH, 3))
    using (var opts = TrainerOptions()) {
      rbm.InitFromData(data, 0.01);
      using (var t = new Trainer(rbm, opts)) {
        Check(t.NTemperatures == 5 && t.NChains == 10 && t.Betas()[0] == 1.0, "trainer shape");
        for (int i = 0; i < 100; i++) {
          t.Step(Rows(data, (i % 4) * 16, (i % 4 + 1) * 16));
        }
        long seen = 0;
        t.Train(data, 16, 200, p => {
          seen = p.Done;
          return p.Stage == "training" && !double.IsNaN(p.Value);
        });
        Check(seen == 200 && t.Steps == 300, $"300 tracked steps ({t.Steps})");
        Estimate tracked = t.LogZ();
        double exact = rbm.LogZExact();
        Check(Math.Abs(tracked.Value - exact) < 1.0, $"tracked log Z {tracked} near exact {exact}");
        Estimate ll = t.LogLikelihood(data);
        Check(Math.Abs(ll.Value - rbm.MeanLogLikelihood(data, tracked.Value)) < 1e-9, "tracked likelihood");
        Estimate settled = t.SettledLogZ(1000, 200);
        Check(settled.StdDev > 0 && Math.Abs(settled.Value - exact) < 4 * settled.StdDev,
              $"settled log Z {settled} near exact {exact}");
        Check(t.LogZ().Value == tracked.Value && t.Steps == 300, "settling leaves the trainer as it was");
        Check(t.SwapRates().Length == 4 && t.Chains(0).Length == 10 * NV && t.RoundTrips >= 0 && t.LearningRate > 0,
              "trainer getters");
      }
      rbm.Save(file);
      byte[] bytes = rbm.ToBytes();
      using (var loaded = Rbm.Load(file))
      using (var fromBytes = Rbm.FromBytes(bytes)) {
        Check(loaded.Weights().SequenceEqual(rbm.Weights()) && loaded.VisibleBias().SequenceEqual(rbm.VisibleBias())
              && loaded.HiddenBias().SequenceEqual(rbm.HiddenBias()), "file round trip: parameters");
        Check(fromBytes.ToBytes().SequenceEqual(bytes), "bytes round trip");
        Check(loaded.LogZExact() == rbm.LogZExact(), "round trip: same log Z bits");
      }
    }
  }

  private static float[] AsFloats(double[] data) => data.Select(x => (float)x).ToArray();

  private static byte[] AsBytes(double[] data) => data.Select(x => (byte)x).ToArray();

  private static T[] Part<T>(T[] data, int from, int count) {
    var output = new T[count];
    Array.Copy(data, from, output, 0, count);
    return output;
  }

  /// <summary>One trainer per row type (double, float, byte) on twin models, the same steps and Train calls (11
  /// batches of 8 from 64 rows wrap around; with and without a listener): the same model bytes and tracked log Z to
  /// the last bit, under PCD and PT (as the C API's test_trainer_row_types). Bad values are named by row and column
  /// and change nothing; with visible_probabilities, float rows in [0, 1] train as double ones.</summary>
  private static void TestRowTypes() {
    double[] data = BarsAndStripes();
    float[] floats = AsFloats(data);
    byte[] bytes = AsBytes(data);
    const int b = 8;
    for (int method = 1; method <= 2; method++) {
      var rbms = new Rbm[3];
      var trainers = new Trainer[3];
      var logZ = new double[3];
      var sd = new double[3];
      for (int kind = 0; kind < 3; kind++) {
        rbms[kind] = new Rbm(NV, NH, 1);
        SetSomeParams(rbms[kind]);
        using (var o = TrainerOptions().Set("method", method)) {
          trainers[kind] = new Trainer(rbms[kind], o);
        }
        Trainer t = trainers[kind];
        for (int i = 0; i < 5; i++) {
          int from = i * b * NV;
          if (kind == 0) {
            t.Step(Part(data, from, b * NV));
          } else if (kind == 1) {
            t.Step(Part(floats, from, b * NV));
          } else {
            t.Step(Part(bytes, from, b * NV));
          }
        }
        int calls = 0;
        if (kind == 0) {
          t.Train(data, b, 11);
          t.Train(data, b, 3, p => ++calls > 0);
        } else if (kind == 1) {
          t.Train(floats, b, 11);
          t.Train(floats, b, 3, p => ++calls > 0);
        } else {
          t.Train(bytes, b, 11);
          t.Train(bytes, b, 3, p => ++calls > 0);
        }
        Check(t.Steps == 19 && calls == 3, $"row type {kind}: 19 updates, 3 reported");
        if (method == 2) {
          logZ[kind] = t.LogZ().Value;
          sd[kind] = t.LogZ().StdDev;
        }
      }
      byte[] reference = rbms[0].ToBytes();
      Check(rbms[1].ToBytes().SequenceEqual(reference), $"method {method}: float rows train as double ones");
      Check(rbms[2].ToBytes().SequenceEqual(reference), $"method {method}: byte rows train as double ones");
      if (method == 2) {
        Check(logZ[1] == logZ[0] && logZ[2] == logZ[0] && sd[1] == sd[0] && sd[2] == sd[0],
              "tracked log Z the same for every row type: " + string.Join(", ", logZ));
      }

      Trainer tf = trainers[1], tb = trainers[2];
      float[] badF = (float[])floats.Clone();
      badF[3 * NV + 5] = 0.5f;
      Expect<ZetaArgumentException>(Status.ERR_ARGUMENT, "row 3, column 5 is 0.5",
                                    () => tf.Step(Part(badF, 0, b * NV)));
      Expect<ZetaArgumentException>(Status.ERR_ARGUMENT, "binary", () => tf.Train(badF, b, 2));
      badF[3 * NV + 5] = float.NaN;
      Expect<ZetaArgumentException>(Status.ERR_ARGUMENT, "non-finite value (row 3, column 5)",
                                    () => tf.Step(Part(badF, 0, b * NV)));
      byte[] badB = (byte[])bytes.Clone();
      badB[7] = 2;
      Expect<ZetaArgumentException>(Status.ERR_ARGUMENT, "row 0, column 7 is 2", () => tb.Step(Part(badB, 0, b * NV)));
      Expect<ZetaArgumentException>(Status.ERR_ARGUMENT, "binary", () => tb.Train(badB, b, 2, p => true));
      Expect<ArgumentNullException>(null, "batch", () => tf.Step((float[])null));
      Expect<ArgumentNullException>(null, "data", () => tb.Train((byte[])null, b, 2));
      Expect<ZetaArgumentException>(Status.ERR_ARGUMENT, "multiple", () => tb.Step(new byte[NV + 1]));
      Expect<ZetaArgumentException>(Status.ERR_ARGUMENT, "multiple", () => tf.Train(new float[NV - 1], 1, 1));
      Expect<ZetaArgumentException>(Status.ERR_ARGUMENT, "n_rows", () => tb.Step(new byte[0]));
      Expect<ZetaArgumentException>(Status.ERR_ARGUMENT, "batch_size", () => tf.Train(floats, 0, 2));
      Check(rbms[1].ToBytes().SequenceEqual(reference) && rbms[2].ToBytes().SequenceEqual(reference) &&
                tf.Steps == 19 && tb.Steps == 19,
            $"method {method}: bad rows changed nothing");
      for (int kind = 0; kind < 3; kind++) {
        trainers[kind].Dispose();
        rbms[kind].Dispose();
      }
    }

    // Mean-field rows k/16 (exact in float) with visible_probabilities: float and double rows train alike; bytes
    // must still be 0 or 1.
    var grey = new double[32 * NV];
    for (int i = 0; i < grey.Length; i++) {
      grey[i] = ((i * 37) % 17) / 16.0;
    }
    using (var o = TrainerOptions().Set("visible_probabilities", 1))
    using (var a = new Rbm(NV, NH, 1))
    using (var c = new Rbm(NV, NH, 1))
    using (var ta = new Trainer(a, o))
    using (var tc = new Trainer(c, o)) {
      SetSomeParams(a);
      SetSomeParams(c);
      ta.Train(grey, 8, 20);
      tc.Train(AsFloats(grey), 8, 20);
      Check(a.ToBytes().SequenceEqual(c.ToBytes()), "visible probabilities: float rows train as double ones");
      var threes = Enumerable.Repeat((byte)1, 8 * NV).ToArray();
      threes[4] = 3;
      Expect<ZetaArgumentException>(Status.ERR_ARGUMENT, "binary", () => ta.Step(threes));
    }
    using (var o = TrainerOptions())
    using (var a = new Rbm(NV, NH, 1))
    using (var ta = new Trainer(a, o)) {
      Expect<ZetaArgumentException>(Status.ERR_ARGUMENT, "binary", () => ta.Step(AsFloats(Part(grey, 0, 8 * NV))));
    }
  }

  /// <summary>Gibbs sweeps from mean-field rows: the C API's draws to the last bit, 0/1 states, repeated after
  /// reseeding, bad input named.</summary>
  private static void TestGibbs(string exe, string dir) {
    double[] v = BarsAndStripes().Select(x => 0.125 + 0.75 * x).ToArray();
    string model = Path.Combine(dir, "csharp_gibbs.zeta");
    using (var rbm = new Rbm(NV, NH, 1)) {
      SetSomeParams(rbm);
      rbm.Save(model);
      Dictionary<string, double[]> reference = Reference(exe, $"gibbs {model} 21 3");
      rbm.SetSeed(21);
      double[] output = rbm.Gibbs(v, 3);
      Check(SameBits(output, reference["gibbs"]), "Gibbs equals the C API's draws");
      Check(output.Length == v.Length && output.All(x => x == 0.0 || x == 1.0), "Gibbs: 0/1 states");
      rbm.SetSeed(21);
      Check(rbm.Gibbs(v, 3).SequenceEqual(output), "Gibbs: reseeded, the same draws");
      Check(!rbm.Gibbs(v, 3).SequenceEqual(output), "Gibbs: the generator advances");
      var bad = (double[])v.Clone();
      bad[NV + 1] = 1.25;
      Expect<ZetaArgumentException>(Status.ERR_ARGUMENT, "[0, 1]: row 1, column 1 is 1.25", () => rbm.Gibbs(bad, 1));
      Expect<ZetaArgumentException>(Status.ERR_ARGUMENT, "n_steps", () => rbm.Gibbs(v, 0));
      Expect<ZetaArgumentException>(Status.ERR_ARGUMENT, "n_rows", () => rbm.Gibbs(new double[0], 1));
      Expect<ZetaArgumentException>(Status.ERR_ARGUMENT, "multiple", () => rbm.Gibbs(new double[NV + 2], 1));
    }
  }

  /// <summary>Seeded training: a new model trained by CD, PCD and PT with a seed gets the C API's W, b, c and tracked
  /// log Z to the last bit (zeta_bindings_reference train, whose output the Java and Python tests also
  /// demand).</summary>
  private static void TestSeededTraining(string exe) {
    double[] v = BarsAndStripes().Select(x => 0.125 + 0.75 * x).ToArray();
    double[] head = v.Take(60 * NV).ToArray();
    double[] tail = v.Skip(60 * NV).ToArray();
    for (int method = 0; method < 3; method++) {
      Dictionary<string, double[]> reference = Reference(exe, $"train {method} 11 2");
      using (var o = new Options().Set("method", method).Set("learning_rate", 0.05).Set("chains_per_temperature", 10)
                         .Set("visible_probabilities", 1).Set("seed", 11).Set("n_temperatures", method == 2 ? 5 : 1))
      using (var rbm = new Rbm(NV, 8, 11))
      using (var t = new Trainer(rbm, o)) {
        for (int pass = 0; pass < 2; pass++) {
          t.Train(head, 20, 3);
          t.Step(tail);
        }
        Check(SameBits(rbm.Weights(), reference["train_W"]) && SameBits(rbm.VisibleBias(), reference["train_b"]) &&
              SameBits(rbm.HiddenBias(), reference["train_c"]), $"method {method}: the C API's model");
        if (method == 2) {
          Estimate e = t.LogZ();
          Check(SameBits(new[] {e.Value, e.StdDev}, reference["train_log_z"]), "the C API's tracked log Z");
        }
      }
    }
  }

  /// <summary>The build's description; the thread count is the calling thread's own.</summary>
  private static void TestBuildInfoAndThreads() {
    string info = Library.BuildInfo;
    Check(info.StartsWith("zeta " + Library.Version + "\n", StringComparison.Ordinal) &&
              info.Contains("\nproducts: ") && info.Contains("\nSIMD: "),
          "build info:\n" + info);
    int initial = Library.NumThreads;
    Check(initial >= 1, $"thread count {initial}");
    Library.SetNumThreads(3);
    Check(Library.NumThreads == 3, "set 3 threads");
    int other = 0;
    var thread = new Thread(() => other = Library.NumThreads);
    thread.Start();
    thread.Join();
    Check(other == initial, $"another thread keeps its own count ({other})");
    Library.SetNumThreads(0);
    Check(Library.NumThreads == initial, "0: the default again");
    Expect<ZetaArgumentException>(Status.ERR_ARGUMENT, "n must be 0", () => Library.SetNumThreads(-2));
  }

  /// <summary>The tracker's warnings: NaN and none before the first window of 150 updates, then values in [0, 1]
  /// whose flags are their thresholds (swap rate 0.2, mode changes 0.2, ESS 0.3); the default options (data moves,
  /// a zero model initialised from the first batch) train and track; a rate of 1 raises LowEss; PCD has no
  /// tracker.</summary>
  private static void TestTrackingHealth() {
    double[] data = BarsAndStripes();
    using (var rbm = new Rbm(NV, NH, 5))
    using (var opts = TrainerOptions())
    using (var t = new Trainer(rbm, opts)) {
      Check(opts.Get("data_move_rungs") == 1 && opts.Get("init_from_data") == 1,
            "defaults: data moves, a zero model initialised from the data");
      t.Train(data, 16, 100);
      Check(rbm.VisibleBias().Any(x => x != 0), "the zero model was initialised from the data");
      TrackingHealth early = t.TrackingHealth();
      Check(double.IsNaN(early.MinSwapRate) && double.IsNaN(early.ColdModeChanges) &&
            double.IsNaN(early.MinEssFraction) && early.Warnings == TrackingWarnings.None,
            $"no window before 150 updates: {early}");
      t.Train(data, 16, 200);
      TrackingHealth h = t.TrackingHealth();
      Check(h.MinSwapRate >= 0 && h.MinSwapRate <= 1 && h.ColdModeChanges >= 0 && h.ColdModeChanges <= 1 &&
            h.MinEssFraction > 0 && h.MinEssFraction <= 1, $"health values in [0, 1]: {h}");
      TrackingWarnings expected = (h.MinSwapRate < 0.2 ? TrackingWarnings.LowSwapRate : TrackingWarnings.None) |
                                  (h.ColdModeChanges < 0.2 ? TrackingWarnings.ColdChainsStuck : TrackingWarnings.None) |
                                  (h.MinEssFraction < 0.3 ? TrackingWarnings.LowEss : TrackingWarnings.None);
      // FewBridgeSamples rests on the bridges' autocorrelation time, which the C API does not report.
      Check((h.Warnings & ~TrackingWarnings.FewBridgeSamples) == expected, $"warnings are their thresholds: {h}");
      double exact = rbm.LogZExact();
      Check(Math.Abs(t.LogZ().Value - exact) < 1.0, $"default options track: {t.LogZ()} vs exact {exact}");
    }
    Check((int)TrackingWarnings.LowSwapRate == 1 && (int)TrackingWarnings.ColdChainsStuck == 2 &&
          (int)TrackingWarnings.LowEss == 4 && (int)TrackingWarnings.FewBridgeSamples == 8, "warning bits as in zeta.h");
    // A rate of 1 moves the model further per update than the beta = 1 importance weights can follow.
    using (var rbm = new Rbm(NV, NH, 5))
    using (var opts = TrainerOptions().Set("learning_rate", 1))
    using (var t = new Trainer(rbm, opts)) {
      t.Train(data, 16, 150);
      TrackingHealth h = t.TrackingHealth();
      Check(h.MinEssFraction < 0.3 && (h.Warnings & TrackingWarnings.LowEss) != 0, $"rate 1 raises LowEss: {h}");
    }
    using (var rbm = new Rbm(NV, NH, 5))
    using (var opts = TrainerOptions().Set("method", 1))
    using (var t = new Trainer(rbm, opts)) {
      t.Train(data, 16, 10);
      Expect<ZetaException>(Status.ERR_UNSUPPORTED, "method", () => t.TrackingHealth());
    }
  }

  private static void TestBadInput() {
    double[] data = BarsAndStripes();
    var rbm = new Rbm(NV, NH, 1);
    SetSomeParams(rbm);
    byte[] before = rbm.ToBytes();
    const Status arg = Status.ERR_ARGUMENT;

    // null where an object or array is needed (ArgumentNullException is an ArgumentException)
    Expect<ArgumentNullException>(null, "rbm", () => new Trainer(null, new Options()));
    Expect<ArgumentNullException>(null, "options", () => new Trainer(rbm, null));
    Expect<ArgumentNullException>(null, "weights", () => rbm.SetParams(null, new double[NV], new double[NH]));
    Expect<ArgumentNullException>(null, "v", () => rbm.FreeEnergy(null));
    Expect<ArgumentNullException>(null, "path", () => Rbm.Load(null));
    Expect<ArgumentNullException>(null, "key", () => new Options().Set(null, 1));

    // non-positive sizes (from the library, message naming the argument) and mismatched lengths
    Expect<ZetaArgumentException>(arg, "n_visible", () => new Rbm(0, 3, 0));
    Expect<ZetaArgumentException>(arg, "n_hidden", () => new Rbm(3, -1, 0));
    Expect<ZetaArgumentException>(arg, "n_rows", () => rbm.FreeEnergy(new double[0]));
    Expect<ZetaArgumentException>(arg, "n_rows", () => rbm.InitFromData(new double[0], 0.01));
    Expect<ZetaArgumentException>(arg, "n_runs", () => rbm.LogZAis(0, 10, 0));
    Expect<ZetaArgumentException>(arg, "n_betas", () => rbm.LogZAis(10, -1, 0));
    Expect<ZetaArgumentException>(arg, "n_gibbs_steps", () => rbm.Sample(3, 0));
    Expect<ZetaArgumentException>(arg, "nSamples", () => rbm.Sample(-3, 1));
    Expect<ZetaArgumentException>(arg, "multiple", () => rbm.FreeEnergy(new double[NV + 1]));
    Expect<ZetaArgumentException>(arg, "expected", () => rbm.SetParams(new double[3], new double[NV], new double[NH]));
    Expect<ZetaArgumentException>(arg, "size", () => Rbm.FromBytes(new byte[0]));

    // non-finite numbers: nothing changes
    double[] w = rbm.Weights();
    w[7] = double.NaN;
    Expect<ZetaArgumentException>(arg, "W", () => rbm.SetParams(w, rbm.VisibleBias(), rbm.HiddenBias()));
    double[] b = rbm.VisibleBias();
    b[2] = double.PositiveInfinity;
    Expect<ZetaArgumentException>(arg, "b", () => rbm.SetParams(rbm.Weights(), b, rbm.HiddenBias()));
    Expect<ZetaArgumentException>(arg, "log_z", () => rbm.MeanLogLikelihood(data, double.NaN));
    Expect<ZetaArgumentException>(arg, "weight_sd", () => rbm.InitFromData(data, -1));
    double[] bad = (double[])data.Clone();
    bad[4] = double.NaN;
    Expect<ZetaArgumentException>(arg, "non-finite", () => rbm.FreeEnergy(bad));

    // non-binary data
    bad[4] = 0.5;
    Expect<ZetaArgumentException>(arg, "binary", () => rbm.FreeEnergy(bad));
    Expect<ZetaArgumentException>(arg, "binary", () => rbm.InitFromData(bad, 0.01));
    bad[4] = 1.5;
    Expect<ZetaArgumentException>(arg, "[0, 1]", () => rbm.HiddenProbs(bad));
    Check(rbm.ToBytes().SequenceEqual(before), "bad input left the model as it was");

    // unknown option keys and values out of range
    using (var o = new Options()) {
      Expect<ZetaArgumentException>(arg, "no_such_key", () => o.Set("no_such_key", 1));
      Expect<ZetaArgumentException>(arg, "no_such_key", () => o.Get("no_such_key"));
      Expect<ZetaArgumentException>(arg, "learning_rate", () => o.Set("learning_rate", -1));
      Expect<ZetaArgumentException>(arg, "gibbs_steps", () => o.Set("gibbs_steps", 1.5));
    }

    // too large for exact enumeration; too large to allocate; files and bytes
    using (var big = new Rbm(40, 40, 0)) {
      Expect<ZetaException>(Status.ERR_UNSUPPORTED, "AIS", () => big.LogZExact());
    }
    Expect<ZetaException>(Status.ERR_MEMORY, "memory", () => new Rbm(int.MaxValue, int.MaxValue, 0));
    Expect<ZetaException>(Status.ERR_IO, "missing.zeta", () => Rbm.Load("/nonexistent/missing.zeta"));
    byte[] text = Encoding.UTF8.GetBytes("this is not a zeta model, but it is long enough to have a header");
    Expect<ZetaException>(Status.ERR_FORMAT, "magic", () => Rbm.FromBytes(text));
    byte[] corrupt = (byte[])before.Clone();
    corrupt[corrupt.Length / 2] ^= 0x10;
    Expect<ZetaException>(Status.ERR_FORMAT, "", () => Rbm.FromBytes(corrupt));
    Expect<ZetaException>(Status.ERR_FORMAT, "", () => Rbm.FromBytes(before.Take(before.Length - 3).ToArray()));

    // bad trainer input: non-binary batch, PT-only getters under PCD
    using (var o = TrainerOptions())
    using (var t = new Trainer(rbm, o)) {
      Expect<ZetaArgumentException>(arg, "binary", () => t.Step(bad));
      Expect<ZetaArgumentException>(arg, "n_rows", () => t.Step(new double[0]));
      Expect<ZetaArgumentException>(arg, "batch_size", () => t.Train(data, 0, 10));
      Check(t.Steps == 0, "bad batches did no update");
    }
    using (var o = TrainerOptions().Set("method", 1))
    using (var t = new Trainer(rbm, o)) {
      Expect<ZetaException>(Status.ERR_UNSUPPORTED, "", () => t.LogZ());
    }

    // disposed handles: an exception, never a crash; Dispose twice is fine
    var opts = TrainerOptions();
    var trainer = new Trainer(rbm, opts);
    // a model disposed under its trainer stays alive natively until the trainer goes
    rbm.Dispose();
    Expect<ObjectDisposedException>(null, "Rbm", () => rbm.LogZExact());
    trainer.Step(Rows(data, 0, 16));
    Check(trainer.Steps == 1, "trainer still works on a disposed (borrowed) model");
    trainer.Dispose();
    trainer.Dispose();
    rbm.Dispose();
    Check(rbm.IsDisposed && trainer.IsDisposed, "IsDisposed");
    Expect<ObjectDisposedException>(null, "Trainer", () => { long _ = trainer.Steps; });
    Expect<ObjectDisposedException>(null, "Trainer", () => trainer.Step(data));
    Expect<ObjectDisposedException>(null, "Rbm", () => rbm.SetParams(new double[NV * NH], new double[NV],
                                                                     new double[NH]));
    Expect<ObjectDisposedException>(null, "Rbm", () => new Trainer(rbm, opts));
    opts.Dispose();
    Expect<ObjectDisposedException>(null, "Options", () => opts.Set("seed", 1));
  }

  private static void TestCancellation() {
    double[] data = BarsAndStripes();
    using (var rbm = new Rbm(NV, 20, 1))
    using (var opts = TrainerOptions()) {
      rbm.InitFromData(data, 0.1);
      double before = rbm.LogZExact();
      int calls = 0;
      Expect<ZetaException>(Status.ERR_CANCELLED, "", () => rbm.LogZExact(p => ++calls < 2));
      Check(calls == 2, $"exact log Z: listener called until it cancelled ({calls})");
      calls = 0;
      Expect<ZetaException>(Status.ERR_CANCELLED, "", () => rbm.LogZAis(20, 500, 1, p => ++calls < 3));
      Check(rbm.LogZExact() == before, "model usable after cancellation");

      // a listener's exception cancels the call and comes back out of it
      Expect<NotSupportedException>(null, "from the listener", () => rbm.LogZExact(p => {
        throw new NotSupportedException("thrown from the listener");
      }));
      // re-entry: the object of the running call cannot be changed from its listener, but may be read
      Expect<InvalidOperationException>(null, "listener", () => rbm.LogZExact(p => {
        rbm.SetSeed(3);
        return true;
      }));
      Check(rbm.LogZExact(p => rbm.LogZExact() == before) == before, "const call from the listener");
      Check(!rbm.IsDisposed && rbm.LogZExact() == before, "model intact after re-entry attempts");

      using (var t = new Trainer(rbm, opts)) {
        Expect<ZetaException>(Status.ERR_CANCELLED, "", () => t.Train(data, 16, 100, p => p.Done < 5));
        Check(t.Steps == 5, $"training cancelled after 5 updates, which are kept ({t.Steps})");
        t.Train(data, 16, 3, p => true);
        Check(t.Steps == 8, "trainer usable after cancellation");
        t.Train(data, 16, 2, p => rbm.Weights().Length == NV * 20);
        Check(t.Steps == 10, "listener reading the model");
      }
      // disposing from the listener: the call finishes (cancelled), then the model is freed
      var doomed = rbm.Copy();
      Expect<ZetaException>(Status.ERR_CANCELLED, "", () => doomed.LogZExact(p => {
        doomed.Dispose();
        return false;
      }));
      Check(doomed.IsDisposed, "disposed from its own listener");
    }
  }

  /// <summary>Equal to the last bit, and as long.</summary>
  private static bool SameBits(double[] a, double[] b) {
    return a != null && b != null && a.Length == b.Length &&
           a.Zip(b, (x, y) => BitConverter.DoubleToInt64Bits(x) == BitConverter.DoubleToInt64Bits(y)).All(s => s);
  }

  /// <summary>Hidden-unit removal: exact costs and a pruner run equal the C library's to the last bit;
  /// RemoveHidden; cancellation; bad input; a trainer made before a removal refuses to step.</summary>
  private static void TestPruning(string exe, string dir) {
    double[] data = BarsAndStripes();
    string model = Path.Combine(dir, "csharp_prune_reference.zeta");
    using (var rbm = new Rbm(NV, NH, 1))
    using (var o = new Options().Set("prune_chains", 50).Set("n_temperatures", 3).Set("prune_tempered_steps", 10)
               .Set("seed", 3)) {
      SetSomeParams(rbm);
      rbm.Save(model);
      var reference = Reference(exe, model, 2, 3, 1, "prune");
      Check(SameBits(rbm.RemovalCostsExact(data), reference["removal_costs"]), "exact removal costs equal C's");
      using (var pruner = new Pruner(rbm, o)) {
        Check(double.IsNaN(pruner.Costs()[0]) && double.IsPositiveInfinity(pruner.CostStdErrs()[0]),
              "costs unknown before the first step");
        Check(pruner.Settled == -1 && pruner.SettlingSweeps == 0, "settling unknown before the first step");
        long seen = 0;
        pruner.Run(data, 16, 5, p => {
          seen = p.Done;
          return p.Stage == "pruning" && p.Value >= 1;
        });
        Check(seen == 5 && pruner.Steps == 5, $"5 pruning steps ({pruner.Steps})");
        Check((pruner.Settled == 0 || pruner.Settled == 1) && pruner.SettlingSweeps >= 10,
              $"settled ({pruner.Settled}) in {pruner.SettlingSweeps} sweeps by default");
        Check(rbm.NHidden == reference["pruner_costs"].Length && rbm.Weights().Length == NV * rbm.NHidden,
              $"the Rbm's shape follows the pruner ({rbm.NHidden} units)");
        Check(SameBits(pruner.Costs(), reference["pruner_costs"]) &&
              SameBits(pruner.CostStdErrs(), reference["pruner_std_errs"]), "pruner costs equal C's");
        Estimate logZ = pruner.LogZ();
        Check(SameBits(new[] {logZ.Value, logZ.StdDev}, reference["pruner_log_z"]),
              $"tracked log Z {logZ} equals C's");
        int removed = pruner.Step(data.Take(16 * NV).ToArray());
        Check(removed >= 0 && pruner.Steps == 6, "one more step");

        Expect<ZetaException>(Status.ERR_CANCELLED, "", () => pruner.Run(data, 16, 10, p => p.Done < 2));
        Check(pruner.Steps == 8, $"cancelled after 2 steps, which are kept ({pruner.Steps})");
        double[] bad = (double[])data.Clone();
        bad[3] = 0.5;
        byte[] before = rbm.ToBytes();
        Expect<ZetaArgumentException>(Status.ERR_ARGUMENT, "binary", () => pruner.Step(bad));
        Expect<ArgumentNullException>(null, "batch", () => pruner.Step(null));
        Expect<ZetaArgumentException>(Status.ERR_ARGUMENT, "batch_size", () => pruner.Run(data, 0, 1));
        Expect<ZetaArgumentException>(Status.ERR_ARGUMENT, "steps", () => pruner.Run(data, 16, 0));
        Check(rbm.ToBytes().SequenceEqual(before) && pruner.Steps == 8, "bad input changed nothing");
      }
    }
    Expect<ArgumentNullException>(null, "rbm", () => new Pruner(null));
    using (var rbm = new Rbm(NV, NH, 1))
    using (var wrong = new Options().Set("learning_rate", 0.1)) {
      SetSomeParams(rbm);
      Expect<ZetaArgumentException>(Status.ERR_ARGUMENT, "learning_rate", () => new Pruner(rbm, wrong));
      Expect<ZetaArgumentException>(Status.ERR_ARGUMENT, "prune_chains", () => new Options().Set("prune_chains", 1));
      // One rung: no ladder to track with, until anchored at an estimate.
      using (var one = new Options().Set("n_temperatures", 1))
      using (var single = new Pruner(rbm, one)) {
        Expect<ZetaException>(Status.ERR_UNSUPPORTED, "anchor", () => single.LogZ());
        Expect<ZetaArgumentException>(Status.ERR_ARGUMENT, "standard deviation", () => single.AnchorLogZ(5.0, 0.0));
        single.AnchorLogZ(5.0, 0.25);
        var anchored = single.LogZ();
        Check(anchored.Value == 5.0 && Math.Abs(anchored.StdDev - 0.25) < 1e-12, $"anchored log Z {anchored}");
        var none = single.LastLogZCheck();
        Check(none.Step == -1 && double.IsNaN(none.Z) && none.DriftVariance == 0.0, "no check before the first");
        // Anchored by AIS: the witnesses carry it on.
        Expect<ZetaArgumentException>(Status.ERR_ARGUMENT, "runs", () => single.AnchorAis(10, 100));
        single.AnchorAis(40, 200);
        var witnessed = single.LogZ();
        Check(double.IsFinite(witnessed.Value) && witnessed.StdDev > 0.0, $"AIS-anchored log Z {witnessed}");
      }
      // Anchoring again checks the carried value (on a copy, with no removals: an update step to carry across).
      using (var copy = Rbm.FromBytes(rbm.ToBytes()))
      using (var keep = new Options().Set("n_temperatures", 1).Set("prune_criterion", 1e6))
      using (var single = new Pruner(copy, keep)) {
        single.AnchorLogZ(5.0, 0.25);
        single.Step(data.Take(16 * NV).ToArray());
        var carried = single.LogZ();
        single.AnchorLogZ(carried.Value - 1.0, 0.25);
        var first = single.LastLogZCheck();
        double sd = Math.Sqrt(carried.StdDev * carried.StdDev + 0.0625);
        Check(first.Step == 1 && Math.Abs(first.Difference - 1.0) < 1e-9 && Math.Abs(first.Z - 1.0 / sd) < 1e-9 &&
              first.DriftVariance >= 0.0, $"log Z check {first.Step} {first.Difference} {first.Z}");
        // The chains, for checkpoints, and set from given states (a checkpoint's, or a PCD trainer's).
        double[] chains = single.Chains();
        Check(chains.Length == 1000 * NV, $"chains {chains.Length}");
        chains[0] = 1.0 - chains[0];
        single.SetChains(chains);
        Check(single.Chains().SequenceEqual(chains), "SetChains");
        double[] fewer = chains.Take(chains.Length - NV).ToArray();
        Expect<ZetaArgumentException>(Status.ERR_ARGUMENT, "chains", () => single.SetChains(fewer));
      }

      // RemoveHidden: the column and bias go, later units move down; the last unit stays
      double[] w = rbm.Weights(), c = rbm.HiddenBias();
      rbm.RemoveHidden(2);
      double[] w2 = rbm.Weights();
      Check(rbm.NHidden == NH - 1 && w2.Length == NV * (NH - 1) && w2[2] == w[3] && w2[NH - 1] == w[NH] &&
            rbm.HiddenBias()[2] == c[3], "RemoveHidden(2)");
      Expect<ZetaArgumentException>(Status.ERR_ARGUMENT, "k", () => rbm.RemoveHidden(NH - 1));
      using (var one = new Rbm(NV, 1, 1)) {
        Expect<ZetaArgumentException>(Status.ERR_ARGUMENT, "only hidden unit", () => one.RemoveHidden(0));
      }
      using (var big = new Rbm(31, 31, 1)) {
        Expect<ZetaException>(Status.ERR_UNSUPPORTED, "enumerate", () => big.RemovalCostsExact(new double[31]));
      }
      // a trainer is made for one size; a pruner borrows a model disposed under it
      using (var to = TrainerOptions())
      using (var trainer = new Trainer(rbm, to)) {
        trainer.Step(data);
        rbm.RemoveHidden(0);
        Expect<ZetaArgumentException>(Status.ERR_ARGUMENT, "hidden units", () => trainer.Step(data));
      }
      using (var po = new Options().Set("prune_chains", 20).Set("n_temperatures", 2)) {
        var pruner = new Pruner(rbm, po);
        rbm.Dispose();
        pruner.Step(data);
        Check(pruner.Steps == 1 && pruner.Costs().Length == rbm.NHidden && rbm.NHidden <= NH - 2,
              "a pruner works on a disposed (borrowed) model");
        pruner.Dispose();
        Expect<ObjectDisposedException>(null, "Pruner", () => { long _ = pruner.Steps; });
      }
    }
  }

  /// <summary>Rows of nFeatures values in {-1, +1} and labels from a fixed linear rule (deterministic).</summary>
  private static double[] LinearData(int rows, int nFeatures, int[] labels, int nClasses) {
    var x = new double[rows * nFeatures];
    ulong state = 12345;
    for (int r = 0; r < rows; r++) {
      var score = new double[nClasses];
      for (int f = 0; f < nFeatures; f++) {
        state = unchecked(state * 6364136223846793005UL + 1442695040888963407UL);
        double v = (state >> 63) == 0 ? -1.0 : 1.0;
        x[r * nFeatures + f] = v;
        for (int c = 0; c < nClasses; c++) {
          score[c] += v * Math.Sin(1.7 * f + 2.3 * c + 0.5);
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

  private static void TestClassifiers(string dir) {
    const Status arg = Status.ERR_ARGUMENT;
    // EBP: a binary net learns a linear rule; files and bytes round-trip; bad input and cancellation
    var y = new int[400];
    double[] x = LinearData(400, 12, y, 1);
    using (var o = new Options().Set("seed", 5))
    using (var net = new EbpNet(12, new[] {20}, 1, o)) {
      Check(net.NInputs == 12 && net.NOutputs == 1 && net.HiddenSizes[0] == 20 && net.BinaryWeights, "EBP shape");
      double before = net.ErrorRate(x, y, EbpOutput.P);
      long batches = 0;
      net.TrainEpochs(x, y, 10, 5, true, p => ++batches > 0);
      double after = net.ErrorRate(x, y, EbpOutput.P);
      Check(batches == 200 && net.ExamplesSeen == 2000, $"EBP epochs and listener ({batches})");
      Check(after < 0.15 && after < before, $"EBP learns (error {before} -> {after})");
      net.TrainBatch(x.Take(24).ToArray(), y.Take(2).ToArray());
      Check(net.Predict(x, EbpOutput.D).Length == 400 && net.Scores(x, EbpOutput.PZ).Length == 400,
            "EBP predict/scores");
      string file = Path.Combine(dir, "csharp_ebp.zeta");
      net.Save(file);
      using (var loaded = EbpNet.Load(file))
      using (var copy = EbpNet.FromBytes(net.ToBytes())) {
        Check(loaded.Scores(x, EbpOutput.P).SequenceEqual(net.Scores(x, EbpOutput.P))
              && copy.ToBytes().SequenceEqual(net.ToBytes()), "EBP round trips");
      }
      Expect<ZetaArgumentException>(arg, "labels", () => net.TrainBatch(x, new int[3]));
      Expect<ZetaArgumentException>(arg, "batch_size", () => net.TrainEpochs(x, y, 0, 1, false));
      var bad = (double[])x.Clone();
      bad[3] = double.NaN;
      Expect<ZetaArgumentException>(arg, "", () => net.TrainBatch(bad, y));
      Expect<ZetaException>(Status.ERR_CANCELLED, "", () => net.TrainEpochs(x, y, 10, 1, false, p => p.Done < 3));
    }
    Expect<ZetaArgumentException>(arg, "", () => new EbpNet(12, new[] {0}, 1));
    Expect<ZetaArgumentException>(arg, "learning_rate",
                                  () => new EbpNet(12, null, 1, new Options().Set("learning_rate", 0.1)));

    // Softmax: exact and NCE training improve the likelihood; bytes round trip; bad input
    var c = new int[500];
    double[] f = LinearData(500, 6, c, 10);
    var counts = new long[10];
    foreach (int label in c) {
      counts[label]++;
    }
    foreach (var method in new[] {SoftmaxMethod.Exact, SoftmaxMethod.Nce}) {
      using (var o = new Options().Set("softmax_method", (double)method).Set("softmax_negatives", 5)
                                  .Set("softmax_learning_rate", 0.1).Set("seed", 2))
      using (var sm = new Softmax(6, 10, o)) {
        sm.SetClassCounts(counts);
        double before = sm.LogLikelihood(f, c);
        sm.TrainEpochs(f, c, 25, 10, true, p => true);
        double after = sm.LogLikelihood(f, c);
        Check(after > before + 0.1 && sm.Steps == 200, $"{method}: log-likelihood {before} -> {after}");
        double[] probs = sm.Probabilities(f.Take(6).ToArray());
        Check(Math.Abs(probs.Sum() - 1) < 1e-12 && sm.Predict(f).Length == 500, $"{method} probs");
        using (var copy = Softmax.FromBytes(sm.ToBytes())) {
          Check(copy.LogProbabilities(f).SequenceEqual(sm.LogProbabilities(f)), $"{method} bytes round trip");
        }
        Expect<ZetaArgumentException>(arg, "counts", () => sm.SetClassCounts(new long[3]));
        var wrong = (int[])c.Clone();
        wrong[0] = 10;
        Expect<ZetaArgumentException>(arg, "", () => sm.TrainBatch(f, wrong));
      }
    }
    Expect<ZetaArgumentException>(arg, "softmax_method", () => new Options().Set("softmax_method", 7));
    Expect<ZetaArgumentException>(arg, "n_classes", () => new Softmax(6, 1));
  }

  /// <summary>Threads share a model and a trainer while another thread disposes them: results stay right,
  /// and a call after the Dispose throws ObjectDisposedException; nothing else may happen.</summary>
  private static void TestThreads() {
    double[] data = BarsAndStripes();
    var rbm = new Rbm(NV, NH, 1);
    SetSomeParams(rbm);
    var opts = TrainerOptions();
    var trainer = new Trainer(rbm, opts);
    int wrong = 0, disposed = 0, calls = 0;
    var threads = new Thread[4];
    for (int k = 0; k < threads.Length; k++) {
      int kind = k;
      threads[k] = new Thread(() => {
        try {
          while (true) { // until the Dispose ends it
            if (kind == 0) {
              trainer.Step(Rows(data, 0, 16)); // changes the shared model
            } else if (kind == 1) {
              if (!IsFinite(trainer.LogZ().Value) && trainer.Steps > 0) {
                Interlocked.Increment(ref wrong);
              }
            } else if (rbm.Weights().Length != NV * NH || rbm.FreeEnergy(data).Length != 64) {
              Interlocked.Increment(ref wrong);
            }
            Interlocked.Increment(ref calls);
          }
        } catch (ObjectDisposedException) {
          Interlocked.Increment(ref disposed); // disposed under this thread: the documented outcome
        } catch (Exception e) {
          Interlocked.Increment(ref wrong);
          Console.WriteLine($"FAIL: thread {kind} threw {e}");
        }
      });
      threads[k].Start();
    }
    Thread.Sleep(300);
    trainer.Dispose();
    rbm.Dispose();
    opts.Dispose();
    foreach (var t in threads) {
      t.Join();
    }
    Check(wrong == 0, $"threads saw only correct results ({wrong} wrong)");
    Check(disposed == threads.Length,
          $"every thread stopped by ObjectDisposedException after the Dispose ({disposed}, after {calls} calls)");
  }

  private static bool IsFinite(double x) => !double.IsNaN(x) && !double.IsInfinity(x);

  private static long RssKiB() {
    foreach (string line in File.ReadLines("/proc/self/status")) {
      if (line.StartsWith("VmRSS:", StringComparison.Ordinal)) {
        return long.Parse(new string(line.Where(char.IsDigit).ToArray()), CultureInfo.InvariantCulture);
      }
    }
    throw new InvalidOperationException("no VmRSS in /proc/self/status");
  }

  private static void Churn(int n) {
    for (int i = 0; i < n; i++) {
      using (var rbm = new Rbm(64, 32, (ulong)i))
      using (var o = new Options().Set("n_temperatures", 2).Set("chains_per_temperature", 1))
      using (var t = new Trainer(rbm, o)) {
        if (t.NTemperatures != 2) {
          throw new InvalidOperationException("unexpected trainer");
        }
      }
    }
  }

  private static void TestNoLeak() {
    // Native memory per iteration is about 20 KiB (64x32 doubles, twice, plus the trainer), so a leak of any
    // of the three handles over 100k iterations would be hundreds of MiB; the limit allows for JIT/GC noise.
    Churn(10000);
    GC.Collect();
    GC.WaitForPendingFinalizers();
    long before = RssKiB();
    var watch = Stopwatch.StartNew();
    Churn(100000);
    GC.Collect();
    GC.WaitForPendingFinalizers();
    long after = RssKiB();
    Console.WriteLine($"100k x (Rbm + Options + Trainer) created and disposed in {watch.Elapsed.TotalSeconds:F1} s; " +
                      $"RSS {before} -> {after} KiB");
    Check(after - before < 32 * 1024, $"RSS growth {after - before} KiB over 100k handle triples");

    // Undisposed handles are freed by their finalizers, never twice, in any order: exercise that path,
    // including trainers finalised together with their models.
    for (int i = 0; i < 20000; i++) {
      var rbm = new Rbm(8, 4, (ulong)i);
      if (i % 10 == 0) {
        new Trainer(rbm, new Options().Set("n_temperatures", 2).Set("chains_per_temperature", 1));
      }
    }
    GC.Collect();
    GC.WaitForPendingFinalizers();
    GC.Collect();
    GC.WaitForPendingFinalizers();
  }

  /// <summary>A DARN through the binding: blocks and their checks, exact log p(x) summing to 1, training with a
  /// listener that can cancel, importance sampling and the bound, exact samples, round trips, bad input, and the C
  /// API's numbers to the last bit (the reference program scores the same model file).</summary>
  private static void TestDarn(string exe, string dir) {
    using (var o = new Options().Set("seed", 2).Set("darn_single_precision", 0))
    using (var small = new Darn(new[] {4, 3}, o)) {
      Check(small.Sizes.SequenceEqual(new[] {4, 3}) && small.NVisible == 4, "DARN sizes");
      string names = string.Join(", ", small.Blocks.Select(b => b.ToString()));
      Check(names == "prior.bias (3 x 1), prior.weight (3 x 3), decoder.bias (4 x 1), decoder.weight (4 x 3), " +
                         "encoder.bias (3 x 1), encoder.weight (3 x 4)", "DARN blocks " + names);
      var w = new double[] {0, 0, 0, 0.5, 0, 0, -1, 2, 0};
      small.SetParam("prior.weight", w);
      Check(small.Param("prior.weight").SequenceEqual(w), "DARN set/get block");
      byte[] before = small.ToBytes();
      Expect<ZetaArgumentException>(Status.ERR_ARGUMENT, "(0, 1)",
                                    () => small.SetParam("prior.weight", new double[] {0, 1, 0, 0, 0, 0, 0, 0, 0}));
      Expect<ZetaArgumentException>(Status.ERR_ARGUMENT, "no.such", () => small.Param("no.such"));
      Expect<ZetaArgumentException>(Status.ERR_ARGUMENT, "decoder.bias",
                                    () => small.SetParam("decoder.bias", new double[3]));
      Expect<ZetaArgumentException>(Status.ERR_ARGUMENT, "finite",
                                    () => small.SetParam("decoder.bias", new[] {0, double.NaN, 0, 0}));
      Expect<ZetaArgumentException>(Status.ERR_ARGUMENT, "binary", () => small.TrainBatch(new[] {0, 1, 0.5, 0}));
      Expect<ZetaArgumentException>(Status.ERR_ARGUMENT, "columns", () => small.TrainBatch(new double[5]));
      Expect<ZetaArgumentException>(Status.ERR_ARGUMENT, "n_samples",
                                    () => small.LogProbImportance(new double[4], 1, 1));
      Check(small.ToBytes().SequenceEqual(before), "DARN unchanged by bad input");
      var all = new double[16 * 4];
      for (int c = 0; c < 16; c++) {
        for (int k = 0; k < 4; k++) {
          all[c * 4 + k] = (c >> k) & 1;
        }
      }
      double total = small.LogProbExact(all).Sum(lp => Math.Exp(lp));
      Check(Math.Abs(total - 1) < 1e-12, $"DARN exact probabilities sum to 1 ({total})");
    }

    double[] data = BarsAndStripes();
    using (var o = new Options().Set("seed", 3).Set("darn_learning_rate", 3e-3))
    using (var darn = new Darn(new[] {NV, 6}, o)) {
      double first = darn.TrainBatch(data.Take(16 * NV).ToArray());
      long calls = 0;
      darn.TrainEpochs(data, 16, 20, p => {
        calls++;
        return p.Stage == "training" && !double.IsNaN(p.Value) && !double.IsInfinity(p.Value);
      });
      Check(calls == 80 && first > 0, $"DARN epochs with a listener ({calls} calls)");
      byte[] trained = darn.ToBytes();
      Expect<ZetaException>(Status.ERR_CANCELLED, "", () => darn.TrainEpochs(data, 16, 5, p => p.Done < 3));
      Check(!darn.ToBytes().SequenceEqual(trained), "DARN: cancelled epochs keep their finished batches");
      double[] exact = darn.LogProbExact(data);
      Estimate[] importance = darn.LogProbImportance(data, 2000, 4);
      double[] dl = darn.DescriptionLength(data, 50, 5);
      bool close = true;
      for (int r = 0; r < exact.Length; r++) {
        close &= Math.Abs(importance[r].Value - exact[r]) < 5 * importance[r].StdDev + 1e-3 && dl[r] > -exact[r] - 0.5;
      }
      Check(close && exact.Length == 64, "DARN importance sampling and bound agree with exact log p(x)");
      double[] s = darn.Sample(7, 9);
      Check(s.Length == 7 * NV && s.All(v => v == 0.0 || v == 1.0) && s.SequenceEqual(darn.Sample(7, 9)),
            "DARN samples");
      string file = Path.Combine(dir, "csharp_darn.zeta");
      darn.Save(file);
      using (var loaded = Darn.Load(file))
      using (var copy = darn.Copy())
      using (var again = Darn.FromBytes(darn.ToBytes())) {
        Check(loaded.ToBytes().SequenceEqual(darn.ToBytes()) && copy.ToBytes().SequenceEqual(darn.ToBytes()) &&
                  again.LogProbExact(data).SequenceEqual(exact),
              "DARN round trips");
        Check(loaded.TrainBatch(data) == darn.TrainBatch(data) && loaded.ToBytes().SequenceEqual(darn.ToBytes()),
              "DARN trains on identically after loading");
      }
    }
    Expect<ZetaArgumentException>(Status.ERR_ARGUMENT, "n_layers", () => new Darn(new[] {4}).Dispose());
    using (var o = new Options().Set("learning_rate", 0.1)) {
      Expect<ZetaArgumentException>(Status.ERR_ARGUMENT, "learning_rate", () => new Darn(new[] {4, 2}, o).Dispose());
    }
    using (var wide = new Darn(new[] {4, 31})) {
      Expect<ZetaException>(Status.ERR_UNSUPPORTED, "2^31", () => wide.LogProbExact(new double[4]));
    }

    // The C API's numbers, bit for bit, on a model trained on the embedded data.
    Dataset train = Library.DefaultData(Split.Train);
    Dataset test = Library.DefaultData(Split.Test);
    string model = Path.Combine(dir, "csharp_darn_reference.zeta");
    using (var o = new Options().Set("seed", 4).Set("darn_learning_rate", 1e-3))
    using (var darn = new Darn(new[] {784, 8}, o)) {
      darn.TrainEpochs(train.Slice(0, 300), 100, 1);
      darn.Save(model);
      Dictionary<string, double[]> reference = Reference(exe, $"darn {model} 200 77");
      double[] x = test.Slice(0, 8);
      Estimate[] importance = darn.LogProbImportance(x, 200, 77);
      double[] samples = darn.Sample(8, 77);
      var sums = new double[8];
      for (int r = 0; r < 8; r++) {
        for (int k = 0; k < 784; k++) {
          sums[r] += samples[r * 784 + k];
        }
      }
      Check(reference["darn_exact"].SequenceEqual(darn.LogProbExact(x)), "DARN exact log p(x) equals C");
      Check(reference["darn_is"].SequenceEqual(importance.Select(e => e.Value)) &&
                reference["darn_se"].SequenceEqual(importance.Select(e => e.StdDev)),
            "DARN importance sampling equals C");
      Check(reference["darn_bound"].SequenceEqual(darn.DescriptionLength(x, 200, 77)), "DARN bound equals C");
      Check(reference["darn_sample_sums"].SequenceEqual(sums), "DARN samples equal C's");
    }
  }

  public static int Main(string[] args) {
    if (args.Length != 2) {
      Console.Error.WriteLine("usage: ZetaBindingTest.exe REFERENCE_EXE SCRATCH_DIR");
      return 2;
    }
    Directory.CreateDirectory(args[1]);
    var tests = new List<KeyValuePair<string, Action>> {
      new KeyValuePair<string, Action>("basics", TestBasics),
      new KeyValuePair<string, Action>("bit-for-bit log Z", () => TestBitForBit(args[0], args[1])),
      new KeyValuePair<string, Action>("training and files", () => TestTrainingAndFiles(args[1])),
      new KeyValuePair<string, Action>("row types", TestRowTypes),
      new KeyValuePair<string, Action>("gibbs", () => TestGibbs(args[0], args[1])),
      new KeyValuePair<string, Action>("seeded training", () => TestSeededTraining(args[0])),
      new KeyValuePair<string, Action>("build info and threads", TestBuildInfoAndThreads),
      new KeyValuePair<string, Action>("tracking health", TestTrackingHealth),
      new KeyValuePair<string, Action>("bad input", TestBadInput),
      new KeyValuePair<string, Action>("cancellation", TestCancellation),
      new KeyValuePair<string, Action>("threads", TestThreads),
      new KeyValuePair<string, Action>("EBP and softmax", () => TestClassifiers(args[1])),
      new KeyValuePair<string, Action>("DARN", () => TestDarn(args[0], args[1])),
      new KeyValuePair<string, Action>("pruning", () => TestPruning(args[0], args[1])),
      new KeyValuePair<string, Action>("no native leak", TestNoLeak),
    };
    foreach (var entry in tests) {
      string name = entry.Key;
      Action test = entry.Value;
      int failed = failures;
      var watch = Stopwatch.StartNew();
      try {
        test();
      } catch (Exception e) {
        failures++;
        Console.WriteLine($"FAIL: {name} threw {e}");
      }
      Console.WriteLine($"{(failures == failed ? "ok  " : "FAIL")} {name} ({watch.Elapsed.TotalSeconds:F2} s)");
    }
    Console.WriteLine($"csharp binding: {checks} checks, {failures} failed: {(failures == 0 ? "PASS" : "FAIL")}");
    return failures == 0 ? 0 : 1;
  }
}
