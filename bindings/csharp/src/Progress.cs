using System;
using System.Runtime.ExceptionServices;

namespace Zeta {

/// <summary>Progress of a long call, passed to a listener (Func&lt;Progress, bool&gt;) on the calling thread.
/// The listener returns true to continue and false to cancel: the call then throws a ZetaException with status
/// ERR_CANCELLED and every model stays valid. An exception thrown by the listener also cancels the call and is
/// rethrown by it.</summary>
public sealed class Progress {
  /// <summary>"exact log Z", "AIS", "training" or "pruning".</summary>
  public string Stage { get; }
  /// <summary>Units of work finished so far.</summary>
  public long Done { get; }
  /// <summary>Units of work in the call.</summary>
  public long Total { get; }
  /// <summary>Running figure of the stage (AIS: running log Z; training: tracked log Z; pruning: the number of
  /// hidden units), else NaN.</summary>
  public double Value { get; }

  internal Progress(string stage, long done, long total, double value) {
    Stage = stage;
    Done = done;
    Total = total;
    Value = value;
  }

  public override string ToString() => $"{Stage} {Done}/{Total} ({Value})";
}

/// <summary>An estimate and its uncertainty: AIS log Z with its standard error, or a tracked figure with its
/// posterior standard deviation (+infinity when nothing is known yet).</summary>
public struct Estimate {
  public double Value { get; }
  public double StdDev { get; }

  internal Estimate(double value, double stdDev) {
    Value = value;
    StdDev = stdDev;
  }

  public override string ToString() => $"{Value} +- {StdDev}";
}

/// <summary>Connects a listener to the C callback through the SWIG director. The listener's exceptions are
/// caught here (they must not unwind through libzeta's native frames), the call is cancelled, and the
/// exception is rethrown with its stack trace once the native call has returned.</summary>
internal sealed class ProgressAdapter : ZetaProgressCallback {
  private readonly Func<Progress, bool> listener;
  private Exception failure;

  private ProgressAdapter(Func<Progress, bool> listener) {
    this.listener = listener;
  }

  public override int call(string stage, long done, long total, double value) {
    try {
      return listener(new Progress(stage, done, total, value)) ? 0 : 1;
    } catch (Exception e) {
      failure = e;
      return 1;
    }
  }

  internal static void Run(Func<Progress, bool> listener, Action<ZetaProgressCallback> call) {
    if (listener == null) {
      call(null);
      return;
    }
    using (var adapter = new ProgressAdapter(listener)) {
      try {
        call(adapter);
      } catch (ZetaException) when (adapter.failure != null) {
        ExceptionDispatchInfo.Capture(adapter.failure).Throw();
      }
    }
  }
}

}
