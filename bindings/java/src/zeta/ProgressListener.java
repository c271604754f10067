package zeta;

/**
 * Receives progress of a long call on the calling thread. Return {@code true} to continue, {@code false} to
 * cancel: the call then throws a {@link ZetaException} with status {@link Status#ERR_CANCELLED} and every
 * model stays valid. An exception thrown by the listener also cancels the call and is rethrown by it.
 */
@FunctionalInterface
public interface ProgressListener {
  boolean onProgress(Progress progress);
}
