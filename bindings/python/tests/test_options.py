"""Options: keys, defaults, values checked by the library."""

import math

import pytest

import zeta


def test_keys_and_defaults():
    keys = zeta.option_keys()
    assert {"learning_rate", "seed", "method", "prune_chains", "darn_learning_rate"} <= set(keys)
    defaults = zeta.Options.defaults()
    assert list(defaults) == keys
    assert defaults["learning_rate"] == 1e-3 and defaults["method"] == 2
    assert math.isnan(defaults["softmax_ranking_margin"])


def test_set_get():
    with zeta.Options(learning_rate=0.01) as o:
        assert o.get("learning_rate") == 0.01 and o.get("gibbs_steps") == 1
        assert o.set("gibbs_steps", 3) is o and o["gibbs_steps"] == 3.0
        o["adaptive_tempering"] = True
        assert dict(o) == {"learning_rate": 0.01, "gibbs_steps": 3.0, "adaptive_tempering": 1.0}
        assert "gibbs_steps" in o and len(o) == 3 and "learning_rate=0.01" in repr(o)
        with pytest.raises(KeyError):
            o["momentum"]
    with pytest.raises(zeta.ZetaClosedError):
        o.get("seed")


def test_bad_keys_and_values():
    o = zeta.Options()
    cases = [
        (lambda: o.set("no_such_key", 1), "unknown option key 'no_such_key'"),
        (lambda: o.get("no_such_key"), "no_such_key"),
        (lambda: o.set("learning_rate", -1), "learning_rate"),
        (lambda: o.set("learning_rate", float("nan")), "learning_rate"),
        (lambda: o.set("gibbs_steps", 1.5), "gibbs_steps"),
        (lambda: o.set("seed", 2**53 + 1), "exactly representable"),
        (lambda: o.set("seed", "3"), "must be a number"),
        (lambda: o.set(3, 1), "must be a str"),
        (lambda: zeta.Options(softmax_method=7), "softmax_method"),
        (lambda: zeta.Options(prune_chains=1), "prune_chains"),
    ]
    for call, text in cases:
        with pytest.raises(zeta.ZetaArgumentError, match=text):
            call()
    assert dict(o) == {}
    with pytest.raises(TypeError, match="options must be"):
        zeta.Softmax(3, 2, options=[("seed", 1)])
