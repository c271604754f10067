package zeta;

/**
 * Connects a ProgressListener to the C callback through the SWIG director. Exceptions of the listener are
 * caught here (they must not unwind through libzeta), the call is cancelled, and the exception is rethrown
 * once the native call has returned.
 */
final class ProgressAdapter extends ZetaProgressCallback {
  interface NativeCall {
    void run(ZetaProgressCallback callback);
  }

  private final ProgressListener listener;
  private Throwable failure;

  private ProgressAdapter(ProgressListener listener) {
    this.listener = listener;
  }

  @Override
  public int call(String stage, long done, long total, double value) {
    try {
      return listener.onProgress(new Progress(stage, done, total, value)) ? 0 : 1;
    } catch (Throwable t) { // also Errors: nothing may unwind through the C frames
      failure = t;
      return 1;
    }
  }

  static void run(ProgressListener listener, NativeCall call) {
    if (listener == null) {
      call.run(null);
      return;
    }
    ProgressAdapter adapter = new ProgressAdapter(listener);
    try {
      call.run(adapter);
    } catch (ZetaException e) {
      if (adapter.failure instanceof RuntimeException) {
        throw (RuntimeException) adapter.failure;
      }
      if (adapter.failure instanceof Error) {
        throw (Error) adapter.failure;
      }
      if (adapter.failure != null) { // a checked exception thrown sneakily
        throw new RuntimeException(adapter.failure);
      }
      throw e;
    } finally {
      adapter.delete(); // the C++ director object; the Java object is garbage afterwards
    }
  }
}
