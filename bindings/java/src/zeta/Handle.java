package zeta;

import java.lang.ref.Cleaner;
import java.util.function.LongConsumer;

/**
 * An owned native handle. close() frees it exactly once (Cleaner.Cleanable runs its action at most once); the
 * Cleaner is only a safety net for handles that were never closed. Every call on a handle holds its monitor,
 * which serialises calls as the C API requires, keeps the object reachable during the call and makes close()
 * wait for a running call instead of freeing memory under it. After close() every use throws
 * IllegalStateException. The native object itself is freed as soon as nothing needs it any more: a model
 * closed while an open Trainer borrows it, or an object closed from the progress listener of its own running
 * call, is freed when that trainer is closed or that call returns.
 */
abstract class Handle implements AutoCloseable {
  private static final Cleaner CLEANER = Cleaner.create();

  /** Owns the pointer. It must not refer to the Handle, or the Cleaner could never run. */
  private static final class Release implements Runnable {
    private final LongConsumer free;
    private final Handle borrowed; // a handle this one borrows (a Trainer's Rbm): kept alive until the free
    private final long ptr;

    Release(long ptr, LongConsumer free, Handle borrowed) {
      this.ptr = ptr;
      this.free = free;
      this.borrowed = borrowed;
    }

    @Override
    public void run() {
      free.accept(ptr);
      if (borrowed != null) {
        borrowed.unborrow();
      }
    }
  }

  private final long ptr;
  private final Cleaner.Cleanable cleanable;
  private boolean closed; // guarded by this
  private int borrowers; // open handles that borrow this one; guarded by this
  private int listening; // native calls of this handle now running a progress listener; guarded by this

  Handle(long ptr, LongConsumer free, Handle borrowed) {
    this.ptr = ptr;
    cleanable = CLEANER.register(this, new Release(ptr, free, borrowed));
  }

  /** The native pointer for a call that reads the object (a const-handle C function); callers hold this
   *  handle's monitor. Allowed from the progress listener of a running call on the same object. */
  final long cptr() {
    if (closed) {
      throw new IllegalStateException(getClass().getSimpleName() + " is closed");
    }
    return ptr;
  }

  /** The native pointer for a call that changes the object; refused from the progress listener of a running
   *  call on the same object (the monitor is re-entrant, so only this count can tell). */
  final long ptr() {
    long p = cptr();
    if (listening > 0) {
      throw new IllegalStateException(getClass().getSimpleName()
                                      + " cannot be changed from the progress listener of its own running call");
    }
    return p;
  }

  public final synchronized boolean isClosed() {
    return closed;
  }

  /** Releases the native object (at once, or when the trainer borrowing it or the running call ends); later
   *  calls throw IllegalStateException, a second close() does nothing. */
  @Override
  public synchronized void close() {
    closed = true;
    freeIfUnused();
  }

  /** Runs a native call that may call listener; the caller holds this handle's monitor. */
  final void withListener(ProgressListener listener, ProgressAdapter.NativeCall call) {
    listening++;
    try {
      ProgressAdapter.run(listener, call);
    } finally {
      listening--;
      freeIfUnused();
    }
  }

  final synchronized void borrow() {
    cptr();
    borrowers++;
  }

  private synchronized void unborrow() {
    borrowers--;
    freeIfUnused();
  }

  private void freeIfUnused() {
    if (closed && borrowers == 0 && listening == 0) {
      cleanable.clean(); // does nothing the second time
    }
  }

  // ---- argument checks shared by the public classes ----

  static <T> T require(T value, String name) {
    if (value == null) {
      throw new ZetaArgumentException(name + " is null");
    }
    return value;
  }

  /** Rows of a row-major array with cols columns (0 rows is passed on, and refused by the library). */
  static long rows(double[] data, int cols, String name) {
    return rowsOf(require(data, name).length, cols, name);
  }

  static long rows(float[] data, int cols, String name) {
    return rowsOf(require(data, name).length, cols, name);
  }

  static long rows(byte[] data, int cols, String name) {
    return rowsOf(require(data, name).length, cols, name);
  }

  private static long rowsOf(int length, int cols, String name) {
    if (length % cols != 0) {
      throw new ZetaArgumentException(name + " has " + length + " values, not a multiple of its " + cols
                                      + " columns");
    }
    return length / cols;
  }

  static void length(double[] data, long expected, String name) {
    require(data, name);
    if (data.length != expected) {
      throw new ZetaArgumentException(name + " has " + data.length + " values, expected " + expected);
    }
  }

  /** A Java array length for rows x cols values, or an argument error if it cannot be one. */
  static int arrayLength(long rows, long cols, String rowsName) {
    if (rows <= 0) {
      throw new ZetaArgumentException(rowsName + " must be positive, got " + rows);
    }
    if (rows > Integer.MAX_VALUE / Math.max(cols, 1)) {
      throw new ZetaArgumentException(rowsName + " = " + rows + " needs more values than a Java array holds");
    }
    return (int) (rows * cols);
  }
}
