package zeta;

/** An invalid argument (null, a non-positive or mismatched size, a non-finite or non-binary value, an unknown
 *  option key). Thrown by the library (status {@link Status#ERR_ARGUMENT}) or by the binding's own checks. */
public class ZetaArgumentException extends IllegalArgumentException {
  private static final long serialVersionUID = 1L;

  public ZetaArgumentException(String message) {
    super(message);
  }

  /** Always {@link Status#ERR_ARGUMENT}, as for a {@link ZetaException}. */
  public Status status() {
    return Status.ERR_ARGUMENT;
  }
}
