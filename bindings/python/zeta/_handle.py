"""The base of every class that owns a C handle, and the progress-callback machinery of long calls.

Ownership: close() (or the end of a `with` block) frees the handle; a weakref finalizer frees one that was never
closed when it is garbage-collected. Either runs the *_free function exactly once. A handle that another borrows
(an Rbm under a Trainer or Pruner) and a handle closed from the progress callback of its own running call are
freed when the borrower is freed or the call returns; the Python object refuses further use at once.

Threads: every call holds the object's re-entrant lock (a Trainer's or Pruner's calls also hold their Rbm's), so
one object may be shared between threads — its calls then run one at a time, as the C API requires — while calls
on different objects run in parallel (ctypes releases the GIL during each C call).

Progress: long calls take `progress`, a callable (stage, done, total, value) -> bool or None run after each unit
of work in the calling thread; returning False cancels the call (ZetaCancelledError), an exception raised in it
cancels the call and is re-raised once the call has returned. In the main thread a long call always runs such a
callback, even without `progress`, with SIGINT's Python handler wrapped for the duration: Ctrl-C then cancels
the call at its next unit of work and its KeyboardInterrupt is raised when the call returns, with every object
left usable (Python's handler cannot raise inside the C call, and an exception escaping a ctypes callback would
be lost).
"""

import ctypes
import os
import signal
import threading
import weakref

import numpy as np

from . import _lib
from .errors import ZetaBusyError, ZetaClosedError, ZetaError

lib = _lib.lib


def _release(free, ptr, borrowed):
    free(ptr)
    if borrowed is not None:
        borrowed._unborrow()


class Handle:
    """An object owning one C handle: a context manager with close(); see the module docstring."""

    _free = None  # name of the C function that frees the handle

    def _adopt(self, ptr, borrowed=None):
        self._lock = threading.RLock()
        self._ptr = ptr
        self._closed = False
        self._borrowers = 0
        self._running = 0  # running calls of (or through) this object whose callback may run on their thread
        self._borrowed = borrowed
        if borrowed is not None:
            borrowed._borrow()
        self._finalizer = weakref.finalize(self, _release, getattr(lib, self._free), ptr, borrowed)
        # At interpreter exit a daemon thread may still be inside a call on the handle: leave it to the OS.
        self._finalizer.atexit = False

    @property
    def closed(self):
        """Whether close() was called."""
        return self._closed

    def close(self):
        """Frees the C object (at once, or when the object borrowing it or its running call ends). Later use
        raises ZetaClosedError; closing twice does nothing."""
        if "_lock" not in self.__dict__:  # __init__ failed before a handle existed
            return
        with self._lock:
            self._closed = True
            self._free_if_unused()

    def __enter__(self):
        return self

    def __exit__(self, *_exc):
        self.close()

    def __repr__(self):
        name = type(self).__name__
        if "_lock" not in self.__dict__ or self._closed:
            return f"<zeta.{name} (closed)>"
        if not self._lock.acquire(blocking=False):  # another thread's call is running: do not wait for it
            return f"<zeta.{name} (busy)>"
        try:
            return f"<zeta.{name} {self._describe()}>"
        finally:
            self._lock.release()

    def _describe(self):
        return ""

    def _cptr(self):
        """The handle for a call that reads the object; the caller holds self._lock."""
        if self._closed:
            raise ZetaClosedError(f"this {type(self).__name__} is closed")
        return self._ptr

    def _mptr(self):
        """The handle for a call that changes the object: refused from the progress callback of a running call
        on it (the lock is re-entrant, so only the count can tell)."""
        ptr = self._cptr()
        if self._running:
            raise ZetaBusyError(
                f"this {type(self).__name__} cannot be changed from the progress callback of its own running call"
            )
        return ptr

    def _borrow(self):
        with self._lock:
            self._cptr()
            self._borrowers += 1

    def _unborrow(self):
        with self._lock:
            self._borrowers -= 1
            self._free_if_unused()

    def _free_if_unused(self):
        if self._closed and self._borrowers == 0 and self._running == 0:
            self._finalizer()  # does nothing the second time

    def _run(self, call, progress, *others):
        """Runs call(callback) — a C call taking a zeta_progress_fn — with `progress` (see the module
        docstring); the caller holds the locks of self and `others`, whose changes the callback may not make."""
        holders = (self,) + others
        for h in holders:
            h._running += 1
        try:
            return run_with_progress(call, progress)
        finally:
            for h in holders:
                h._running -= 1
            for h in holders:
                h._free_if_unused()

    def __reduce_ex__(self, protocol):
        if not hasattr(type(self), "__setstate__"):  # the kinds with bytes define it
            raise TypeError(
                f"cannot pickle a zeta.{type(self).__name__}: the C API has no serialised form for it"
                + self._pickle_hint()
            )
        return super().__reduce_ex__(protocol)

    def _pickle_hint(self):
        return ""


class _CallState:
    """The ctypes callback of one long call: runs the user's callable, keeps the first exception raised in it (or by
    a signal handler while the call runs) and cancels the call once there is one."""

    __slots__ = ("user", "error")

    def __init__(self, user):
        self.user = user
        self.error = None

    def __call__(self, progress, _user_data):
        try:
            if self.error is not None:
                return 1
            if self.user is not None:
                p = progress.contents
                result = self.user((p.stage or b"").decode("utf-8", "replace"), p.done, p.total, p.value)
                if result is not None and not result:
                    return 1
            return 0
        except BaseException as error:  # noqa: B036 - nothing may unwind through the C frames
            if self.error is None:
                self.error = error
            return 1


_NO_CALLBACK = _lib.PROGRESS_FN()  # a NULL zeta_progress_fn (ctypes refuses None for a function-pointer type)

# Long calls running in the main thread, innermost last (a callback may start another long call).
_active = []


def _deferred_sigint(signum, frame):
    """SIGINT's handler during a long call in the main thread: runs the handler it replaced and hands anything it
    raises (KeyboardInterrupt) to the innermost running call, which cancels at its next callback."""
    original = _original_handler
    try:
        if callable(original):
            original(signum, frame)
    except BaseException as error:  # noqa: B036
        if _active and _active[-1].error is None:
            _active[-1].error = error
        elif not _active:
            raise


_original_handler = None


def run_with_progress(call, progress):
    """Runs call(c_callback) and returns its result; see the module docstring for the callback's rules."""
    global _original_handler
    if progress is not None and not callable(progress):
        raise TypeError(f"progress must be callable (stage, done, total, value) -> bool, got {progress!r}")
    in_main = threading.current_thread() is threading.main_thread()
    if progress is None and not in_main:
        return call(_NO_CALLBACK)  # no Python to run in the call: pass NULL
    state = _CallState(progress)
    c_callback = _lib.PROGRESS_FN(state)
    installed = False
    if in_main:
        if not _active:
            handler = signal.getsignal(signal.SIGINT)
            if callable(handler):
                _original_handler = handler
                signal.signal(signal.SIGINT, _deferred_sigint)
                installed = True
        _active.append(state)
    try:
        try:
            result = call(c_callback)
        except ZetaError:
            if state.error is None:
                raise
            result = None
    finally:
        if in_main:
            _active.pop()
            if installed:
                signal.signal(signal.SIGINT, _original_handler)
                _original_handler = None
    if state.error is not None:
        error = state.error
        state.error = None
        raise error
    return result


def to_bytes(function, ptr):
    """The two-call bytes protocol of the C API (*_to_bytes): ask for the size, then fill a buffer of it."""
    size = ctypes.c_int64()
    function(ptr, None, 0, ctypes.byref(size))
    buf = (ctypes.c_uint8 * size.value)()
    function(ptr, buf, size.value, ctypes.byref(size))
    return bytes(buf)


def from_bytes_handle(function, data):
    """A new handle from serialised bytes (*_from_bytes); any bytes-like object."""
    if isinstance(data, str):
        raise TypeError("bytes expected, got str")
    buf = np.frombuffer(memoryview(data).cast("B"), dtype=np.uint8)
    out = ctypes.c_void_p()
    function(buf.ctypes.data, buf.size, ctypes.byref(out))
    return out.value


def fspath(path, name="path"):
    """A path argument as the C API's bytes."""
    if path is None:
        raise TypeError(f"{name} must be a path, got None")
    return os.fsencode(path)


