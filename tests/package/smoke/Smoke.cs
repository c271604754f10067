// The C# smoke test of the NuGet package (tests/package): the shared model's log Z, exactly and by AIS, printed as
// the other artefacts' smoke programs print it. Compiled against the installed package's Zeta.dll and run beside
// it and the package's native libraries, as an application ships them.
using System;
using System.Globalization;
using Zeta;

public static class Smoke {
  const int NV = 9;
  const int NH = 4;

  static string Bits(double x) {
    return BitConverter.DoubleToInt64Bits(x).ToString("x16", CultureInfo.InvariantCulture);
  }

  public static void Main() {
    var w = new double[NV * NH];
    var b = new double[NV];
    var c = new double[NH];
    for (int i = 0; i < NV; ++i) {
      for (int j = 0; j < NH; ++j) w[i * NH + j] = ((7 * i + 3 * j) % 11 - 5) / 8.0;
      b[i] = (i % 5 - 2) / 4.0;
    }
    for (int j = 0; j < NH; ++j) c[j] = (j % 3 - 1) / 2.0;
    using (var rbm = new Rbm(NV, NH, 1)) {
      rbm.SetParams(w, b, c);
      double exact = rbm.LogZExact();
      Estimate ais = rbm.LogZAis(100, 1000, 7);
      Console.WriteLine(string.Format(CultureInfo.InvariantCulture,
                                      "smoke zeta={0} exact={1} ais={2} se={3} (log Z {4:F12}, AIS {5:F6} +- {6:F6})",
                                      Library.Version, Bits(exact), Bits(ais.Value), Bits(ais.StdDev), exact, ais.Value,
                                      ais.StdDev));
    }
  }
}
