"""The package's version: the one it accepts from libzeta's zeta_version().

It equals ZETA_VERSION_MAJOR.MINOR.PATCH of capi/zeta.h; CMake refuses to configure and a test fails when they
differ, so the two cannot drift apart unnoticed.
"""

__version__ = "0.1.0"
