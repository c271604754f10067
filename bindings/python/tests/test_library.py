"""Loading the library, the version contract, the prototypes and the error classes."""

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import zeta
from zeta import _lib, _version, errors

from conftest import REPO

HEADER = REPO / "capi" / "zeta.h"
PACKAGE_DIR = Path(zeta.__file__).resolve().parent.parent


def header_text():
    if not HEADER.exists():
        pytest.skip("capi/zeta.h not beside the package (an installed copy)")
    return HEADER.read_text()


def test_version_matches_header():
    text = header_text()
    parts = [re.search(rf"#define ZETA_VERSION_{p} (\d+)", text).group(1) for p in ("MAJOR", "MINOR", "PATCH")]
    assert zeta.__version__ == ".".join(parts)
    assert _lib.lib.zeta_version().decode() == zeta.__version__
    assert zeta.abi_version() == int(re.search(r"#define ZETA_ABI_VERSION (\d+)", text).group(1))


def c_functions():
    """{name: number of parameters} of every ZETA_API function in zeta.h."""
    text = re.sub(r"/\*.*?\*/", "", header_text(), flags=re.S)
    out = {}
    for m in re.finditer(r"ZETA_API\s+[\w\s\*]+?\b(zeta_\w+)\s*\(([^)]*)\)\s*;", text):
        params = m.group(2).strip()
        out[m.group(1)] = 0 if params in ("", "void") else params.count(",") + 1
    return out


def test_every_c_function_has_its_prototype():
    declared = c_functions()
    assert len(declared) > 100
    missing = sorted(set(declared) - set(_lib.PROTOTYPES))
    assert not missing, f"zeta.h functions without a prototype in _lib.py: {missing}"
    for name, count in declared.items():
        assert len(_lib.PROTOTYPES[name][1]) == count, f"{name}: {count} parameters in zeta.h"
    unknown = sorted(set(_lib.PROTOTYPES) - set(declared))
    assert not unknown, f"prototypes of functions zeta.h does not declare: {unknown}"


def test_errors_by_status():
    expected = {
        1: (zeta.ZetaArgumentError, ValueError),
        2: (zeta.ZetaMemoryError, MemoryError),
        3: (zeta.ZetaIOError, OSError),
        4: (zeta.ZetaFormatError, zeta.ZetaError),
        5: (zeta.ZetaNumericError, zeta.ZetaError),
        6: (zeta.ZetaCancelledError, zeta.ZetaError),
        7: (zeta.ZetaUnsupportedError, zeta.ZetaError),
        8: (zeta.ZetaInternalError, zeta.ZetaError),
    }
    for status, (cls, also) in expected.items():
        e = errors.error_for_status(status, "f: message")
        assert type(e) is cls and isinstance(e, zeta.ZetaError) and isinstance(e, also)
        assert e.status == status and str(e) == "f: message" and e.message == "f: message"
        assert e.status_name == _lib.lib.zeta_status_name(status).decode()
    odd = errors.error_for_status(99, "m")
    assert type(odd) is zeta.ZetaInternalError and "99" in str(odd)


def test_errors_carry_the_library_message():
    with pytest.raises(zeta.ZetaArgumentError, match=r"^zeta_rbm_new: n_visible") as info:
        zeta.Rbm(0, 3)
    assert info.value.status == errors.ERR_ARGUMENT and info.value.status_name == "ZETA_ERR_ARGUMENT"
    with pytest.raises(zeta.ZetaIOError, match="missing.zeta"):
        zeta.Rbm.load("/nonexistent/missing.zeta")
    # the message is the failed call's, and a later success clears the library's
    zeta.Rbm(2, 2).close()
    assert _lib.lib.zeta_last_error() == b""


def test_version_mismatch_is_refused(monkeypatch):
    monkeypatch.setattr(_version, "__version__", "9.9.9")
    with pytest.raises(ImportError, match=re.escape(f"libzeta {zeta.__version__}, but this package is zeta 9.9.9")):
        _lib.load_library([zeta.library_path()])
    monkeypatch.undo()
    assert _lib.load_library([zeta.library_path()]).path == Path(zeta.library_path())


def test_nothing_found_names_the_places_tried(tmp_path):
    with pytest.raises(ImportError, match="libzeta.so not found.*ZETA_LIBRARY"):
        _lib.load_library([tmp_path / "libzeta.so"])
    (tmp_path / "libzeta.so").write_text("not a library")
    with pytest.raises(ImportError, match="cannot load"):
        _lib.load_library([tmp_path / "libzeta.so"])


def run_python(code, env_changes, cwd):
    env = {k: v for k, v in os.environ.items() if k != "ZETA_LIBRARY"}
    env["PYTHONPATH"] = str(PACKAGE_DIR)
    env.update(env_changes)
    return subprocess.run([sys.executable, "-c", code], env=env, cwd=cwd, capture_output=True, text=True)


def test_zeta_library_variable(tmp_path):
    copy = tmp_path / "lib" / "libzeta.so.0"
    copy.parent.mkdir()
    shutil.copyfile(zeta.library_path(), copy)
    code = "import zeta; print(zeta.library_path()); print(zeta.Rbm(4, 3).log_z_exact())"
    for value in (copy, copy.parent):
        done = run_python(code, {"ZETA_LIBRARY": str(value)}, tmp_path)
        assert done.returncode == 0, done.stderr
        assert done.stdout.splitlines()[0] == str(copy)
        assert float(done.stdout.splitlines()[1]) == pytest.approx(7 * 0.6931471805599453)
    done = run_python("import zeta", {"ZETA_LIBRARY": str(tmp_path / "nothing.so")}, tmp_path)
    assert done.returncode != 0 and "nothing.so" in done.stderr and "ImportError" in done.stderr


def test_lookup_order_without_the_variable(monkeypatch):
    monkeypatch.delenv("ZETA_LIBRARY", raising=False)
    package_lib = str(PACKAGE_DIR / "zeta" / "lib") + os.sep
    rank = []
    for path in map(str, _lib.candidates()):
        if path.startswith(package_lib):
            rank.append(-1)
        else:
            rank.append(next(i for i, tree in enumerate(_lib.BUILD_TREES) if f"/{tree}/capi/" in path))
    assert rank == sorted(rank)


def test_build_info():
    info = zeta.build_info()
    assert zeta.__version__ in info and len(info) > 10


def test_cpu_path():
    path = zeta.cpu_path()
    assert path.split(" ")[0] in ("x86-64", "x86-64-v2", "x86-64-v3", "x86-64-v4", "aarch64", "generic")
    assert f"CPU path: {path}" in zeta.build_info()


def test_num_threads():
    default = zeta.get_num_threads()  # OMP_NUM_THREADS, else the cores (CTest sets 1)
    assert default >= 1
    with zeta.num_threads(2):
        assert zeta.get_num_threads() == 2
        zeta.set_num_threads(3)
        assert zeta.get_num_threads() == 3
    assert zeta.get_num_threads() == default
    zeta.set_num_threads(0)
    assert zeta.get_num_threads() == default
    with pytest.raises(zeta.ZetaArgumentError, match="zeta_set_num_threads"):
        zeta.set_num_threads(-1)
    with pytest.raises(zeta.ZetaArgumentError, match="int32"):
        zeta.set_num_threads(1 << 40)
    assert zeta.get_num_threads() == default
