package zeta;

/**
 * A zeta call failed: {@link #status()} is the C API's status and the message is {@code zeta_last_error()}.
 * Invalid arguments throw {@link ZetaArgumentException} (an {@link IllegalArgumentException}) instead; a
 * cancelled call throws a ZetaException with status {@link Status#ERR_CANCELLED}.
 */
public class ZetaException extends RuntimeException {
  private static final long serialVersionUID = 1L;
  private final Status status;

  public ZetaException(Status status, String message) {
    super(message);
    this.status = status;
  }

  /** The C API status of the failed call. */
  public Status status() {
    return status;
  }

  /** Called by the generated raw layer right after each native call, on the same thread, so that
   *  zeta_last_error() still describes that call. */
  static void check(int code) {
    if (code == Status.OK.swigValue()) {
      return;
    }
    String message = ZetaNative.zeta_last_error();
    Status status;
    try {
      status = Status.swigToEnum(code);
    } catch (IllegalArgumentException e) { // a status added to a newer libzeta
      status = Status.ERR_INTERNAL;
      message = "status " + code + ": " + message;
    }
    if (status == Status.ERR_ARGUMENT) {
      throw new ZetaArgumentException(message);
    }
    throw new ZetaException(status, message);
  }
}
