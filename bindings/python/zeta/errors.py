"""Exceptions: one class per zeta_status, all under ZetaError.

Every failed C call raises the subclass for its status with the library's own message (zeta_last_error(), which
names the function and the argument). Checks the binding makes itself before a call (array shapes, dtypes) raise
ZetaArgumentError as the library would. Using a closed object raises ZetaClosedError, a ValueError as for a closed
file; changing an object from the progress callback of its own running call raises ZetaBusyError.
"""

OK = 0
ERR_ARGUMENT = 1
ERR_MEMORY = 2
ERR_IO = 3
ERR_FORMAT = 4
ERR_NUMERIC = 5
ERR_CANCELLED = 6
ERR_UNSUPPORTED = 7
ERR_INTERNAL = 8

_STATUS_NAMES = {
    OK: "ZETA_OK",
    ERR_ARGUMENT: "ZETA_ERR_ARGUMENT",
    ERR_MEMORY: "ZETA_ERR_MEMORY",
    ERR_IO: "ZETA_ERR_IO",
    ERR_FORMAT: "ZETA_ERR_FORMAT",
    ERR_NUMERIC: "ZETA_ERR_NUMERIC",
    ERR_CANCELLED: "ZETA_ERR_CANCELLED",
    ERR_UNSUPPORTED: "ZETA_ERR_UNSUPPORTED",
    ERR_INTERNAL: "ZETA_ERR_INTERNAL",
}


class ZetaError(Exception):
    """A zeta call failed.

    Attributes:
        status: the C API's zeta_status (an int, one of the ERR_* constants of this module).
        status_name: its enumerator's name, e.g. "ZETA_ERR_FORMAT".
        message: the library's message (zeta_last_error()), naming the function and the argument.
    """

    status = ERR_INTERNAL

    def __init__(self, message, status=None):
        if status is not None:
            self.status = status
        self.message = message
        self.status_name = _STATUS_NAMES.get(self.status, "ZETA_UNKNOWN_STATUS")
        super().__init__(message)

    def __str__(self):
        return self.message

    def __reduce__(self):
        return (_rebuild, (type(self), self.message, self.status))


def _rebuild(cls, message, status):
    return cls(message, status)


class ZetaArgumentError(ZetaError, ValueError):
    """ZETA_ERR_ARGUMENT: an invalid argument (size, shape, non-finite or non-binary data, unknown option key or a
    value out of its range). Also a ValueError."""

    status = ERR_ARGUMENT


class ZetaMemoryError(ZetaError, MemoryError):
    """ZETA_ERR_MEMORY: an allocation failed (the model is too large). Also a MemoryError."""

    status = ERR_MEMORY


class ZetaIOError(ZetaError, OSError):
    """ZETA_ERR_IO: a file could not be opened, read or written. Also an OSError."""

    status = ERR_IO

    def __init__(self, message, status=None):
        ZetaError.__init__(self, message, status)


class ZetaFormatError(ZetaError):
    """ZETA_ERR_FORMAT: bytes or a file are not a valid zeta object (truncated, corrupt, foreign, newer version)."""

    status = ERR_FORMAT


class ZetaNumericError(ZetaError):
    """ZETA_ERR_NUMERIC: the computation produced a non-finite value (e.g. training diverged; the update was not
    applied)."""

    status = ERR_NUMERIC


class ZetaCancelledError(ZetaError):
    """ZETA_ERR_CANCELLED: the progress callback asked to stop (returned False). Finished work is kept and every
    object stays usable."""

    status = ERR_CANCELLED


class ZetaUnsupportedError(ZetaError):
    """ZETA_ERR_UNSUPPORTED: a valid request this build or model cannot do (e.g. too large for exact log Z, or a
    tracked log Z without parallel tempering)."""

    status = ERR_UNSUPPORTED


class ZetaInternalError(ZetaError):
    """ZETA_ERR_INTERNAL (or a status this package does not know): a bug in zeta; please report the message."""

    status = ERR_INTERNAL


class ZetaClosedError(ValueError):
    """The object was closed (close() or the end of its `with` block); it refuses every further use."""


class ZetaBusyError(RuntimeError):
    """A call that changes an object was made from the progress callback of that object's own running call (reading
    it is allowed)."""


_BY_STATUS = {
    cls.status: cls
    for cls in (
        ZetaArgumentError,
        ZetaMemoryError,
        ZetaIOError,
        ZetaFormatError,
        ZetaNumericError,
        ZetaCancelledError,
        ZetaUnsupportedError,
        ZetaInternalError,
    )
}


def error_for_status(status, message):
    """The exception for a non-zero status and the library's message."""
    cls = _BY_STATUS.get(status)
    if cls is None:
        return ZetaInternalError(f"status {status}: {message}", ERR_INTERNAL)
    return cls(message, status)
