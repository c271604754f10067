"""Builds the wheel with libzeta inside (zeta/lib/libzeta.so.0): LightGBM's "precompiled" route.

The library is the file ZETA_LIBRARY names, else the first built one in the repository's build trees (build/,
build-test/, build-dev/; scripts/install-python.sh builds build/). A library whose zeta_version() is not the
package's version is refused. The wheel holds no compiled Python extension: it is tagged py3-none-<platform>, one
wheel for every Python 3 on that platform. Everything else is in pyproject.toml.
"""

import ctypes
import os
import re
import shutil
from pathlib import Path

from setuptools import Distribution, setup
from setuptools.command.build_py import build_py

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
BUILD_TREES = ("build", "build-test", "build-dev")


def package_version():
    text = (HERE / "zeta" / "_version.py").read_text()
    return re.search(r'^__version__ = "([^"]+)"', text, re.M).group(1)


def find_library():
    explicit = os.environ.get("ZETA_LIBRARY")
    if explicit:
        path = Path(explicit)
        if path.is_dir():
            found = sorted(path.glob("libzeta.so*"), key=lambda p: len(p.name))
            path = found[0] if found else path / "libzeta.so"
        if not path.exists():
            raise SystemExit(f"zeta wheel: ZETA_LIBRARY={explicit} does not exist")
        return path
    for tree in BUILD_TREES:
        found = sorted((ROOT / tree / "capi").glob("libzeta.so*"), key=lambda p: len(p.name))
        if found:
            return found[0]
    raise SystemExit(
        "zeta wheel: no libzeta.so to put in the wheel. Build it first (cmake --preset main && cmake --build "
        "--preset main, or bash scripts/install-python.sh) or set ZETA_LIBRARY to the library"
    )


def check_version(path):
    lib = ctypes.CDLL(str(path))
    lib.zeta_version.restype = ctypes.c_char_p
    version = lib.zeta_version().decode("ascii", "replace")
    if version != package_version():
        raise SystemExit(f"zeta wheel: {path} is libzeta {version}, the package is {package_version()}")


class BuildWithLibrary(build_py):
    def run(self):
        # A fresh copy of the package each time: a module removed from the source must not linger in the wheel.
        shutil.rmtree(Path(self.build_lib) / "zeta", ignore_errors=True)
        super().run()
        library = find_library().resolve()
        check_version(library)
        target = Path(self.build_lib) / "zeta" / "lib"
        if target.exists():
            shutil.rmtree(target)
        target.mkdir(parents=True)
        shutil.copyfile(library, target / "libzeta.so.0")
        os.chmod(target / "libzeta.so.0", 0o755)
        print(f"zeta wheel: {library} -> zeta/lib/libzeta.so.0")
        # A portable libzeta (-DZETA_PORTABLE=ON) loads one of its flavours from its own directory when it loads.
        for flavour in sorted(library.parent.glob("libzeta_x86_64*.so")):
            shutil.copyfile(flavour, target / flavour.name)
            os.chmod(target / flavour.name, 0o755)
            print(f"zeta wheel: {flavour} -> zeta/lib/{flavour.name}")


commands = {"build_py": BuildWithLibrary}


class WithLibrary(Distribution):
    """Not pure: the package holds a platform's shared library (installed to platlib, the wheel tagged for it)."""

    def has_ext_modules(self):
        return True


try:
    from wheel.bdist_wheel import bdist_wheel

    class PlatformWheel(bdist_wheel):
        """Platform-specific (it holds libzeta), any Python 3 (no extension module)."""

        def get_tag(self):
            return ("py3", "none", super().get_tag()[2])

    commands["bdist_wheel"] = PlatformWheel
except ImportError:  # building without wheel (an sdist): nothing to tag
    pass

setup(cmdclass=commands, distclass=WithLibrary)
