#!/bin/sh
# Installs a zeta build into a fresh prefix and uses it from outside, as a user would (see CMakeLists.txt here).
# Usage: check_install.sh CMAKE BUILD_DIR WORK_DIR CONSUMER_DIR GENERATOR MAKE_PROGRAM C_COMPILER PKG_CONFIG LIBDIR
#                         CLI_PATH|- [C_FLAGS]
# LIBDIR and CLI_PATH are relative to the prefix; C_FLAGS go to both consumer builds.
set -eu
cmake=$1 build=$2 work=$3 consumer=$4 generator=$5 make_program=$6 cc=$7 pkg_config=$8 libdir=$9
shift 9
cli=$1 cflags=${2:-}

fail() {
  echo "check_install: $*" >&2
  exit 1
}

rm -rf "$work"
mkdir -p "$work"
prefix=$work/prefix
"$cmake" --install "$build" --prefix "$prefix" >"$work/install.log" || fail "cmake --install failed: $(cat "$work/install.log")"
echo "installed under $prefix:"
(cd "$prefix" && find . | sort)
# The C API only: no static core library, no core header.
if find "$prefix" -name '*.a' -o -name '*.hpp' | grep -q .; then fail "static libraries or C++ headers installed"; fi

# Both consumers must load the installed library, never the build tree's. Usage: check_links_installed BINARY
# LD_LIBRARY_PATH (empty: the binary's own run path alone).
check_links_installed() {
  found=$(LD_LIBRARY_PATH=$2 ldd "$1" | grep libzeta) || fail "$1 does not need libzeta.so"
  case $found in
    *"=> $prefix/$libdir/libzeta.so"*) ;;
    *) fail "$1 does not load libzeta.so from $prefix/$libdir: $found" ;;
  esac
}

echo "== find_package(zeta) with CMAKE_PREFIX_PATH=$prefix"
"$cmake" -S "$consumer" -B "$work/cmake-consumer" -G "$generator" -DCMAKE_MAKE_PROGRAM="$make_program" \
  -DCMAKE_C_COMPILER="$cc" -DCMAKE_C_FLAGS="$cflags" -DCMAKE_PREFIX_PATH="$prefix" -DZETA_EXPECTED_PREFIX="$prefix"
"$cmake" --build "$work/cmake-consumer"
check_links_installed "$work/cmake-consumer/consumer" ""
"$work/cmake-consumer/consumer" "$work"

echo "== pkg-config --cflags --libs zeta with PKG_CONFIG_PATH=$prefix/$libdir/pkgconfig"
export PKG_CONFIG_PATH="$prefix/$libdir/pkgconfig"
pc_prefix=$("$pkg_config" --variable=prefix zeta)
[ "$pc_prefix" = "$prefix" ] || fail "zeta.pc says prefix=$pc_prefix, installed into $prefix"
flags=$("$pkg_config" --cflags --libs zeta)
echo "$flags"
# shellcheck disable=SC2086 # both flag lists are meant to split into words
"$cc" $cflags "$consumer/consumer.c" $flags -o "$work/pkg-config-consumer"
check_links_installed "$work/pkg-config-consumer" "$prefix/$libdir"
LD_LIBRARY_PATH="$prefix/$libdir" "$work/pkg-config-consumer" "$work"

if [ "$cli" != - ]; then
  echo "== $cli --help"
  "$prefix/$cli" --help >"$work/cli-help.txt" || fail "the installed zeta --help failed"
  grep -q track "$work/cli-help.txt" || fail "the installed zeta --help does not list 'track': $(cat "$work/cli-help.txt")"
fi
echo "install tree OK"
