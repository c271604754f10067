using System;

namespace Zeta {

/// <summary>An owned native handle. Dispose() frees it exactly once; the finalizer is only a safety net for
/// handles that were never disposed. Every call locks the handle, which serialises calls as the C API
/// requires, keeps the object alive during the call and makes Dispose wait for a running call. After
/// Dispose every use throws ObjectDisposedException. The native object itself is freed as soon as nothing
/// needs it any more: a model disposed while an undisposed Trainer borrows it, or an object disposed from the
/// progress listener of its own running call, is freed when that trainer or call finishes.</summary>
public abstract class Handle : IDisposable {
  private readonly Action<IntPtr> free;
  private readonly Handle borrowed; // the handle this one borrows (a Trainer's Rbm), kept until the free
  private IntPtr ptr;
  private bool disposed;
  private int borrowers; // undisposed handles borrowing this one
  private int listening; // native calls of this handle now running a progress listener

  internal Handle(IntPtr ptr, Action<IntPtr> free, Handle borrowed) {
    this.ptr = ptr;
    this.free = free;
    this.borrowed = borrowed;
  }

  /// <summary>The native pointer for a call that reads the object (a const-handle C function); callers hold
  /// the lock. Allowed from the progress listener of a running call on the same object.</summary>
  internal IntPtr CPtr {
    get {
      if (disposed) {
        throw new ObjectDisposedException(GetType().Name);
      }
      return ptr;
    }
  }

  /// <summary>The native pointer for a call that changes the object; refused from the progress listener of a
  /// running call on the same object (the lock is re-entrant, so only this count can tell).</summary>
  internal IntPtr Ptr {
    get {
      IntPtr p = CPtr;
      if (listening > 0) {
        throw new InvalidOperationException(GetType().Name +
                                            " cannot be changed from the progress listener of its own running call");
      }
      return p;
    }
  }

  public bool IsDisposed {
    get {
      lock (this) {
        return disposed;
      }
    }
  }

  public void Dispose() {
    lock (this) {
      disposed = true;
      FreeIfUnused();
    }
    GC.SuppressFinalize(this);
  }

  ~Handle() {
    lock (this) {
      disposed = true;
      FreeIfUnused(); // a borrowed model is freed by its trainer's release instead
    }
  }

  /// <summary>Runs a native call that may call listener; the caller holds the lock.</summary>
  internal void WithListener(Func<Progress, bool> listener, Action<ZetaProgressCallback> call) {
    listening++;
    try {
      ProgressAdapter.Run(listener, call);
    } finally {
      listening--;
      FreeIfUnused();
    }
  }

  internal void Borrow() {
    lock (this) {
      if (CPtr != IntPtr.Zero) {
        borrowers++;
      }
    }
  }

  private void Unborrow() {
    lock (this) {
      borrowers--;
      FreeIfUnused();
    }
  }

  private void FreeIfUnused() {
    if (!disposed || ptr == IntPtr.Zero || borrowers > 0 || listening > 0) {
      return;
    }
    IntPtr p = ptr;
    ptr = IntPtr.Zero;
    free(p);
    borrowed?.Unborrow();
  }

  // ---- argument checks shared by the public classes ----

  internal static T Require<T>(T value, string name) where T : class {
    if (value == null) {
      throw new ArgumentNullException(name);
    }
    return value;
  }

  /// <summary>Rows of a row-major array with cols columns (0 rows is passed on, and refused by the
  /// library).</summary>
  internal static long Rows(double[] data, int cols, string name) => RowsOf(Require(data, name).Length, cols, name);

  internal static long Rows(float[] data, int cols, string name) => RowsOf(Require(data, name).Length, cols, name);

  internal static long Rows(byte[] data, int cols, string name) => RowsOf(Require(data, name).Length, cols, name);

  private static long RowsOf(int length, int cols, string name) {
    if (length % cols != 0) {
      throw new ZetaArgumentException($"{name} has {length} values, not a multiple of its {cols} columns");
    }
    return length / cols;
  }

  internal static void Length(double[] data, long expected, string name) {
    Require(data, name);
    if (data.Length != expected) {
      throw new ZetaArgumentException($"{name} has {data.Length} values, expected {expected}");
    }
  }

  /// <summary>An array length for rows x cols values, or an argument error if it cannot be one.</summary>
  internal static int ArrayLength(long rows, long cols, string rowsName) {
    if (rows <= 0) {
      throw new ZetaArgumentException($"{rowsName} must be positive, got {rows}");
    }
    if (rows > int.MaxValue / Math.Max(cols, 1)) {
      throw new ZetaArgumentException($"{rowsName} = {rows} needs more values than an array holds");
    }
    return (int)(rows * cols);
  }
}

}
