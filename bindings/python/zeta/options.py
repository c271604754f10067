"""Option keys: the C API's key/value knobs (zeta_options_*), validated by the library.

Every constructor that takes options accepts them as keyword arguments —
`zeta.Trainer(rbm, method=2, learning_rate=1e-3, seed=1)` — and, optionally, an `options` argument (an Options or
a dict) that the keywords override. The library checks each key and value: an unknown key, a value out of its
range or a key that does not apply to the kind of object being made raises ZetaArgumentError (a ValueError) with
the library's message naming the key. `zeta.h` documents the keys, their defaults and ranges; option_keys() lists
them.
"""

import ctypes
import numbers
from collections.abc import Mapping

from . import _lib
from ._handle import Handle
from .errors import ZetaArgumentError

lib = _lib.lib


def option_keys():
    """Every key the library knows, in the C API's order."""
    return [lib.zeta_options_key(i).decode("ascii") for i in range(lib.zeta_options_count())]


def _value(key, value):
    """An option value as the double the C API takes; bools as 0/1, integers only where exactly representable."""
    if isinstance(value, bool):
        return 1.0 if value else 0.0
    if isinstance(value, numbers.Integral):
        v = float(value)
        if int(v) != int(value):
            raise ZetaArgumentError(f"zeta_options_set: {key} = {value} is not exactly representable as a double")
        return v
    if isinstance(value, numbers.Real):
        return float(value)
    raise ZetaArgumentError(f"zeta_options_set: {key} must be a number, got {value!r}")


def _key(key):
    if not isinstance(key, str):
        raise ZetaArgumentError(f"zeta_options_set: an option key must be a str, got {key!r}")
    return key.encode("utf-8")


class Options(Handle):
    """A set of option keys (zeta_options): `Options(learning_rate=0.01, seed=1)`.

    Works as a mapping of the keys set so far (`dict(opts)`, `opts["seed"]`); get(key) also answers the defaults of
    the keys not set. Objects made from options copy them: changing the options later has no effect on those
    objects. Pickles as the dict of the keys set.
    """

    _free = "zeta_options_free"

    def __init__(self, options=None, **keys):
        out = ctypes.c_void_p()
        lib.zeta_options_new(ctypes.byref(out))
        self._adopt(out.value)
        self._values = {}
        for key, value in _merged(options, keys).items():
            self.set(key, value)

    def set(self, key, value):
        """Sets a key (checked by the library: ZetaArgumentError naming the key otherwise); returns self."""
        v = _value(key, value)
        with self._lock:
            lib.zeta_options_set(self._mptr(), _key(key), v)
            self._values[key] = v
        return self

    def get(self, key, default=None):
        """The value of a key: the one set, else the library's default. `default` is unused (the library has
        one for every key); an unknown key raises ZetaArgumentError."""
        del default
        out = ctypes.c_double()
        with self._lock:
            lib.zeta_options_get(self._cptr(), _key(key), ctypes.byref(out))
        return out.value

    def to_dict(self):
        """The keys set so far and their values."""
        with self._lock:
            self._cptr()
            return dict(self._values)

    @staticmethod
    def defaults():
        """Every key with its default value (NaN where the object picks: softmax_ranking_margin)."""
        with Options() as o:
            return {key: o.get(key) for key in option_keys()}

    def __getitem__(self, key):
        with self._lock:
            self._cptr()
            return self._values[key]

    def __setitem__(self, key, value):
        self.set(key, value)

    def __contains__(self, key):
        return key in self.to_dict()

    def __iter__(self):
        return iter(self.to_dict())

    def __len__(self):
        return len(self.to_dict())

    def keys(self):
        return self.to_dict().keys()

    def items(self):
        return self.to_dict().items()

    def _describe(self):
        return ", ".join(f"{k}={v:g}" for k, v in self._values.items()) or "(defaults)"

    def __getstate__(self):
        return self.to_dict()

    def __setstate__(self, state):
        self.__init__(state)

    def __copy__(self):
        return Options(self.to_dict())

    def __deepcopy__(self, memo):
        return self.__copy__()



def _merged(options, keys):
    """The keys of `options` (an Options, a mapping or None) overridden by `keys`."""
    if options is None:
        merged = {}
    elif isinstance(options, Options):
        merged = options.to_dict()
    elif isinstance(options, Mapping):
        merged = dict(options)
    else:
        raise TypeError(f"options must be a zeta.Options or a dict, got {type(options).__name__}")
    merged.update(keys)
    return merged


class _CallOptions:
    """A temporary zeta_options for one *_new call: `with _CallOptions(options, keys) as handle:` (None when no
    key is set and the call takes NULL as every default)."""

    def __init__(self, options, keys, allow_null):
        self._merged = _merged(options, keys)
        self._allow_null = allow_null
        self._options = None

    def __enter__(self):
        if not self._merged and self._allow_null:
            return None
        self._options = Options(self._merged)
        return self._options._ptr

    def __exit__(self, *_exc):
        if self._options is not None:
            self._options.close()


def call_options(options, keys, allow_null=True):
    return _CallOptions(options, keys, allow_null)
