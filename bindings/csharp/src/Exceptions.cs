using System;

namespace Zeta {

/// <summary>A zeta call failed: <see cref="Status"/> is the C API's status and the message is
/// zeta_last_error(). Invalid arguments throw <see cref="ZetaArgumentException"/> (an ArgumentException)
/// instead; a cancelled call throws a ZetaException with status ERR_CANCELLED.</summary>
public class ZetaException : Exception {
  public Status Status { get; }

  public ZetaException(Status status, string message) : base(message) {
    Status = status;
  }

  /// <summary>Called by the generated raw layer right after each native call, on the same thread, so that
  /// zeta_last_error() still describes that call.</summary>
  internal static void Check(int code) {
    if (code == (int)Status.OK) {
      return;
    }
    string message = ZetaNative.zeta_last_error();
    if (!Enum.IsDefined(typeof(Status), code)) { // a status added to a newer libzeta
      throw new ZetaException(Status.ERR_INTERNAL, "status " + code + ": " + message);
    }
    if (code == (int)Status.ERR_ARGUMENT) {
      throw new ZetaArgumentException(message);
    }
    throw new ZetaException((Status)code, message);
  }
}

/// <summary>An invalid argument (null, a non-positive or mismatched size, a non-finite or non-binary value,
/// an unknown option key), from the library (status ERR_ARGUMENT) or from the binding's own checks.</summary>
public class ZetaArgumentException : ArgumentException {
  public ZetaArgumentException(string message) : base(message) {}

  /// <summary>Always ERR_ARGUMENT, as for a <see cref="ZetaException"/>.</summary>
  public Status Status => Status.ERR_ARGUMENT;
}

}
