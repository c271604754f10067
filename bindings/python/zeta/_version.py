"""The package's version: the one it accepts from libzeta's zeta_version().

It equals ZETA_VERSION_MAJOR.MINOR.PATCH of capi/zeta.h, where the version is declared: the CTest
version_consistent (cmake/check_versions.cmake) and the package's own tests fail when they differ.
"""

__version__ = "0.2.0"
