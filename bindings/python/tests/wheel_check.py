"""The wheel as a user gets it: built by ../build_wheel.py (ZETA_LIBRARY names the library to put inside), the
wheel installed offline into a fresh virtual environment made with --system-site-packages, and the package imported
and used there from another directory with ZETA_LIBRARY unset, so that it must load the library inside the wheel.
Usage: wheel_check.py WORK_DIR (emptied first). Prints "wheel check passed" at the end.
"""

import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from build_wheel import build_wheel  # noqa: E402 (bindings/python/build_wheel.py, beside setup.py)

USE = r"""
import os, pickle, sys
import numpy as np
import zeta
assert not {"sklearn", "dask", "distributed"} & set(sys.modules), "import zeta must not import scikit-learn or dask"
site = sys.argv[1]
assert zeta.library_path().startswith(site), (zeta.library_path(), site)
assert zeta.__file__.startswith(site), zeta.__file__
with zeta.Rbm(6, 4, seed=1) as rbm:
    rbm.set_params(np.full((6, 4), 0.1), np.zeros(6), np.zeros(4))
    with zeta.Trainer(rbm, learning_rate=0.05, n_temperatures=3, seed=1) as t:
        t.train(np.eye(6), 3, 20)
    again = pickle.loads(pickle.dumps(rbm))
    assert again.to_bytes() == rbm.to_bytes()
    print("installed zeta", zeta.__version__, "log Z", rbm.log_z_exact(), "from", zeta.library_path())
from zeta.sklearn import BernoulliRBM
import zeta.dask
est = BernoulliRBM(n_components=3, n_iter=2, random_state=0).fit(np.eye(6))
print("zeta.sklearn: mean log-likelihood", est.score(np.eye(6)), "by", est.log_z_method_)
"""


def run(*command, **kwargs):
    print("+", " ".join(map(str, command)), flush=True)
    subprocess.run(list(map(str, command)), check=True, **kwargs)


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: wheel_check.py WORK_DIR")
    if not os.environ.get("ZETA_LIBRARY"):
        sys.exit("wheel_check.py: set ZETA_LIBRARY to the library to put in the wheel")
    work = Path(sys.argv[1]).resolve()
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    dist = work / "dist"
    build_wheel(dist)
    wheels = list(dist.glob("zeta-*.whl"))
    assert len(wheels) == 1, wheels
    wheel = wheels[0]
    assert "-py3-none-linux_" in wheel.name, f"{wheel.name}: expected a py3-none-<platform> wheel"
    names = zipfile.ZipFile(wheel).namelist()
    assert "zeta/lib/libzeta.so.0" in names and "zeta/__init__.py" in names, names
    assert "zeta/sklearn/__init__.py" in names and "zeta/dask.py" in names, names
    assert not any("tests" in n for n in names), names

    venv = work / "venv"
    run(sys.executable, "-m", "venv", "--system-site-packages", venv)
    python = venv / "bin" / "python"
    run(python, "-m", "pip", "install", "--no-build-isolation", "--no-deps", "--no-index", wheel)
    env = {k: v for k, v in os.environ.items() if k not in ("ZETA_LIBRARY", "PYTHONPATH")}
    site = subprocess.run(
        [python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        check=True, capture_output=True, text=True, env=env,
    ).stdout.strip()  # fmt: skip
    elsewhere = work / "elsewhere"
    elsewhere.mkdir()
    run(python, "-c", USE, site, env=env, cwd=elsewhere)
    print("wheel check passed:", wheel.name)


if __name__ == "__main__":
    main()
