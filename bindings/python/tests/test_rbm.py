"""Rbm: parameters, evaluation, estimators equal to the C API's to the last bit, files, bytes, bad input."""

import numpy as np
import pytest

import zeta

from conftest import NH, NV, bits, set_some_params


def test_basics(rbm, data):
    assert rbm.shape == (NV, NH) and rbm.n_visible == NV and rbm.n_hidden == NH
    w, b, c = rbm.get_params()
    assert w.shape == (NV, NH) and w.flags.c_contiguous
    assert w[0, 5] == 0.5 * np.sin(1.3 * 5 + 0.2) and b[3] == 0.3 * np.cos(0.7 * 3) and c[2] == -0.2 + 0.05 * 2
    assert np.array_equal(rbm.weights, w) and np.array_equal(rbm.visible_bias, b)
    assert np.array_equal(rbm.hidden_bias, c)
    log_z = rbm.log_z_exact()
    f = rbm.free_energy(data)
    assert f.shape == (64,)
    assert rbm.mean_log_likelihood(data, log_z) == pytest.approx(-f.mean() - log_z, abs=1e-12)
    assert rbm.hidden_probs(data).shape == (64, NH) and rbm.visible_probs(np.zeros((3, NH))).shape == (3, NV)
    s = rbm.sample(5, 3)
    assert s.shape == (5, NV) and set(np.unique(s)) <= {0.0, 1.0}
    assert "16 visible x 8 hidden" in repr(rbm)


def test_exact_log_z_by_enumeration(rbm):
    """log Z = log sum_v exp(-F(v)) over all 2^16 visible vectors."""
    every_v = ((np.arange(1 << NV)[:, None] >> np.arange(NV)) & 1).astype(np.float64)
    f = rbm.free_energy(every_v)
    direct = np.logaddexp.reduce(-f)
    assert rbm.log_z_exact() == pytest.approx(direct, abs=1e-9)


def test_equal_to_the_c_api_to_the_last_bit(rbm, reference, tmp_path):
    path = tmp_path / "python_reference.zeta"
    rbm.save(path)
    ref = reference(path, 40, 300, 12345)
    exact = rbm.log_z_exact()
    ais = rbm.log_z_ais(40, 300, seed=12345)
    assert bits(exact) == bits(ref["exact"][0])
    assert bits([ais.value, ais.std_err]).tolist() == bits(ref["ais"]).tolist()
    calls = []
    again = rbm.log_z_ais(40, 300, seed=12345, progress=lambda *p: calls.append(p))
    assert calls and bits(again.value) == bits(ais.value)
    assert calls[-1][0] == "AIS" and calls[-1][2] == 299
    assert bits(rbm.log_z_exact(progress=lambda *p: True)) == bits(exact)
    assert abs(ais.value - exact) < 5 * ais.std_err + 0.05


def test_sample_and_gibbs_are_seeded():
    with zeta.Rbm(NV, NH, seed=3) as a, zeta.Rbm(NV, NH, seed=3) as b:
        set_some_params(a)
        set_some_params(b)
        assert np.array_equal(a.sample(10, 5), b.sample(10, 5))
        a.set_seed(9)
        b.set_seed(9)
        assert np.array_equal(a.sample(4, 2), b.sample(4, 2))


def test_gibbs(rbm, data):
    with rbm.clone() as twin:
        out = rbm.gibbs(data, 2)
        assert out.shape == data.shape and set(np.unique(out)) <= {0.0, 1.0}
        assert np.array_equal(twin.gibbs(data, 2), out), "the generator's state is part of the clone"
    probs = np.full((3, NV), 0.5)
    assert rbm.gibbs(probs).shape == (3, NV)
    with pytest.raises(zeta.ZetaArgumentError, match="n_steps"):
        rbm.gibbs(data, 0)
    with pytest.raises(zeta.ZetaArgumentError, match=r"\[0, 1\]"):
        rbm.gibbs(data + 1.0)


def test_init_from_data(data):
    with zeta.Rbm(NV, NH, seed=2) as rbm:
        rbm.init_from_data(data, 0.01)
        w, b, c = rbm.get_params()
        p = np.clip(data.mean(axis=0), 1e-3, 1 - 1e-3)
        assert np.allclose(b, np.log(p / (1 - p)), atol=1e-12) and not c.any() and 0 < w.std() < 0.05


def test_files_bytes_and_copies(rbm, tmp_path):
    path = tmp_path / "model.zeta"
    rbm.save(path)
    raw = rbm.to_bytes()
    assert path.read_bytes() == raw
    with zeta.Rbm.load(path) as loaded, zeta.Rbm.from_bytes(raw) as again, zeta.Rbm.load(str(path)) as by_str:
        for other in (loaded, again, by_str):
            assert other.to_bytes() == raw
            assert bits(other.log_z_exact()) == bits(rbm.log_z_exact())
    assert zeta.Rbm.from_bytes(bytearray(raw)).to_bytes() == raw
    assert zeta.Rbm.from_bytes(memoryview(raw)).to_bytes() == raw


def test_removal(rbm, data):
    costs = rbm.removal_costs_exact(data)
    assert costs.shape == (NH,) and np.isfinite(costs).all()
    w = rbm.weights
    c = rbm.hidden_bias
    rbm.remove_hidden(2)
    assert rbm.n_hidden == NH - 1
    assert np.array_equal(rbm.weights, np.delete(w, 2, axis=1)) and np.array_equal(rbm.hidden_bias, np.delete(c, 2))
    with pytest.raises(zeta.ZetaArgumentError, match="k"):
        rbm.remove_hidden(NH - 1)
    with zeta.Rbm(NV, 1) as one, pytest.raises(zeta.ZetaArgumentError, match="only hidden unit"):
        one.remove_hidden(0)


def test_arrays_in_and_out(rbm, data):
    """float64 C-contiguous rows go in without a copy; other dtypes and layouts are converted, same results."""
    f = rbm.free_energy(data)
    for variant in (
        data.astype(np.float32),
        data.astype(np.uint8),
        data.astype(bool),
        data.astype(np.int64),
        np.asfortranarray(data),
        data.astype(">f8"),
        data.tolist(),
        np.repeat(data, 2, axis=0)[::2],
    ):
        assert np.array_equal(rbm.free_energy(variant), f)
    # an unaligned view of the same doubles
    raw = np.zeros(data.size * 8 + 1, dtype=np.uint8)
    unaligned = raw[1:].view(np.float64).reshape(data.shape)
    unaligned[...] = data
    assert not unaligned.flags.aligned and np.array_equal(rbm.free_energy(unaligned), f)


def test_bad_input_names_the_problem(rbm, data):
    before = rbm.to_bytes()
    bad = data.copy()
    bad[3, 4] = np.nan
    cases = [
        (lambda: rbm.free_energy(bad), zeta.ZetaArgumentError, "non-finite"),
        (lambda: rbm.free_energy(np.where(bad == bad, data, np.inf)), zeta.ZetaArgumentError, "non-finite"),
        (lambda: rbm.free_energy(data * 0.5), zeta.ZetaArgumentError, "binary"),
        (lambda: rbm.init_from_data(data * 0.5), zeta.ZetaArgumentError, "binary"),
        (lambda: rbm.hidden_probs(data + 0.5), zeta.ZetaArgumentError, r"\[0, 1\]"),
        (lambda: rbm.free_energy(np.zeros((0, NV))), zeta.ZetaArgumentError, "n_rows must be positive"),
        (lambda: rbm.free_energy(np.zeros((3, NV + 1))), zeta.ZetaArgumentError, "v has 17 columns, expected 16"),
        (lambda: rbm.free_energy(np.zeros(NV)), zeta.ZetaArgumentError, r"v must be a 2-D array"),
        (lambda: rbm.free_energy(np.zeros((2, NV), dtype=object)), zeta.ZetaArgumentError, "dtype object"),
        (lambda: rbm.free_energy([["a"] * NV]), zeta.ZetaArgumentError, "must hold numbers"),
        (lambda: rbm.free_energy(np.zeros((2, NV), complex)), zeta.ZetaArgumentError, "complex"),
        (lambda: rbm.free_energy(None), zeta.ZetaArgumentError, "v is None"),
        (lambda: rbm.mean_log_likelihood(data, np.nan), zeta.ZetaArgumentError, "log_z"),
        (lambda: rbm.init_from_data(data, -1), zeta.ZetaArgumentError, "weight_sd"),
        (lambda: rbm.set_params(np.zeros((3, 3)), np.zeros(NV), np.zeros(NH)), zeta.ZetaArgumentError,
         r"weights has shape \(3, 3\), expected \(16, 8\)"),
        (lambda: rbm.set_params(np.full((NV, NH), np.nan), np.zeros(NV), np.zeros(NH)), zeta.ZetaArgumentError,
         "W"),
        (lambda: rbm.set_params(np.zeros((NV, NH)), np.full(NV, np.inf), np.zeros(NH)), zeta.ZetaArgumentError,
         "b"),
        (lambda: rbm.set_params(np.zeros((NV, NH)), np.zeros(NV), np.zeros(NH + 1)), zeta.ZetaArgumentError,
         "hidden_bias must be a 1-D array of 8 entries"),
        (lambda: rbm.log_z_ais(0, 10), zeta.ZetaArgumentError, "n_runs"),
        (lambda: rbm.log_z_ais(10, -1), zeta.ZetaArgumentError, "n_betas"),
        (lambda: rbm.log_z_ais(10, 10, seed=-1), zeta.ZetaArgumentError, "seed"),
        (lambda: rbm.log_z_ais(10, 1.5), zeta.ZetaArgumentError, "n_betas must be an integer"),
        (lambda: rbm.log_z_ais(10, 1 << 40), zeta.ZetaArgumentError, "int32"),
        (lambda: rbm.sample(3, 0), zeta.ZetaArgumentError, "n_gibbs_steps"),
        (lambda: rbm.sample(-3, 1), zeta.ZetaArgumentError, "n_samples must be positive"),
        (lambda: rbm.removal_costs_exact(bad), zeta.ZetaArgumentError, "non-finite"),
        (lambda: zeta.Rbm.from_bytes(b""), zeta.ZetaArgumentError, "size"),
        (lambda: zeta.Rbm.from_bytes(b"this is not a zeta model, but long enough for a header"), zeta.ZetaFormatError,
         "magic"),
        (lambda: zeta.Rbm.from_bytes(before[:-3]), zeta.ZetaFormatError, ""),
        (lambda: zeta.Rbm.from_bytes("text"), TypeError, "bytes"),
        (lambda: zeta.Rbm.load("/nonexistent/missing.zeta"), zeta.ZetaIOError, "missing.zeta"),
        (lambda: zeta.Rbm.load(None), TypeError, "path"),
        (lambda: zeta.Rbm(0, 3), zeta.ZetaArgumentError, "n_visible"),
        (lambda: zeta.Rbm(3, -1), zeta.ZetaArgumentError, "n_hidden"),
        (lambda: zeta.Rbm(2**31 - 1, 2**31 - 1), zeta.ZetaMemoryError, "memory"),
        (lambda: zeta.Rbm(40, 40).log_z_exact(), zeta.ZetaUnsupportedError, "AIS"),
    ]
    for call, error, text in cases:
        with pytest.raises(error, match=text):
            call()
    corrupt = bytearray(before)
    corrupt[len(corrupt) // 2] ^= 0x10
    with pytest.raises(zeta.ZetaFormatError):
        zeta.Rbm.from_bytes(bytes(corrupt))
    other_kind = zeta.Softmax(3, 2, softmax_method=zeta.SoftmaxMethod.EXACT).to_bytes()
    with pytest.raises(zeta.ZetaFormatError):
        zeta.Rbm.from_bytes(other_kind)
    assert rbm.to_bytes() == before, "bad input left the model as it was"


def test_failed_save_leaves_no_file(rbm, tmp_path):
    with pytest.raises(zeta.ZetaIOError):
        rbm.save(tmp_path / "no_such_dir" / "model.zeta")
    assert not (tmp_path / "no_such_dir").exists()


def test_closed(rbm):
    rbm.close()
    rbm.close()
    assert rbm.closed and "closed" in repr(rbm)
    for call in (rbm.log_z_exact, lambda: rbm.shape, rbm.to_bytes, lambda: rbm.set_seed(1), rbm.clone):
        with pytest.raises(zeta.ZetaClosedError, match="Rbm is closed"):
            call()
    with pytest.raises(ValueError):
        rbm.weights
    with zeta.Rbm(3, 2) as r:
        pass
    assert r.closed
