#!/usr/bin/env bash
# Builds a release's five artefacts into dist/, each carrying the version capi/zeta.h declares (CMake reads it):
#   zeta-<v>-py3-none-linux_x86_64.whl   the Python package (bindings/python) with libzeta inside
#   zeta-<v>.jar, -sources.jar, .pom     the Java binding with libzeta and its JNI wrapper for linux-x86_64
#   Zeta.<v>.nupkg                       the C# assembly with runtimes/linux-x64/native/ (libzeta, its wrapper)
#   zeta-wasm-<v>.tgz                    the npm package of the WebAssembly module
#   zeta-<v>-linux-x86_64.tar.gz         library, zeta.h, the zeta tool, the CMake package and zeta.pc
# The native libraries are built once, portable, in one build directory that later runs reuse.
# Usage: bash scripts/package.sh [DIST_DIR]                       (default: dist/ at the repository root)
# Environment: ZETA_PACKAGE_BUILD      the native build directory (default: build-package/)
#              ZETA_PACKAGE_WASM_BUILD the Emscripten build directory (default: <native build>/wasm-module)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
absolute() { case $1 in /*) echo "$1" ;; *) echo "$root/$1" ;; esac; }
dist=$(absolute "${1:-dist}")
build=$(absolute "${ZETA_PACKAGE_BUILD:-build-package}")
wasm_build=$(absolute "${ZETA_PACKAGE_WASM_BUILD:-$build/wasm-module}")
# `python3` on PATH may be an interpreter without Debian's setuptools and wheel.
python=/usr/bin/python3

# Packages are portable: one libzeta (and zeta tool) that loads, when it starts, the widest of the flavour libraries
# beside it (x86-64, x86-64-v3, x86-64-v4) the CPU has (cmake/ZetaPortable.cmake); every artefact carries them all.
cpu_option=-DZETA_PORTABLE=ON

cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release "$cpu_option" -DZETA_TESTS=OFF -DZETA_BENCH=OFF \
  -DZETA_CLI=ON -DZETA_JAVA=ON -DZETA_CSHARP=ON -DZETA_PYTHON=OFF -DZETA_WASM_TESTS=OFF >"$build.configure.log" ||
  { cat "$build.configure.log"; exit 1; }
cmake --build "$build" --target zeta zeta_cli zeta_jar zeta_csharp_dll
version=$(sed -n 's/^CMAKE_PROJECT_VERSION:STATIC=//p' "$build/CMakeCache.txt")
[ -n "$version" ] || { echo "package.sh: no project version in $build/CMakeCache.txt" >&2; exit 1; }
for needed in "$build/bindings/java/zeta.jar" "$build/bindings/csharp/bin/Zeta.dll"; do
  [ -f "$needed" ] || { echo "package.sh: $needed was not built (see $build.configure.log)" >&2; exit 1; }
done

rm -rf "$dist"
mkdir -p "$dist"
stage="$build/package-stage"
rm -rf "$stage"
mkdir -p "$stage"

# Copies every library file of a library directory that the libraries need at run time: each libzeta*.so*
# (libzeta, its wrappers, a portable build's flavours) once, as a regular file under the name the dynamic linker
# asks for (its SONAME when it has one). Usage: copy_libraries FROM_DIR TO_DIR
copy_libraries() {
  mkdir -p "$2"
  local file name
  for file in "$1"/libzeta*.so*; do
    [ -L "$file" ] && continue
    name=$(readelf -d "$file" | sed -n 's/.*(SONAME).*\[\(.*\)\]$/\1/p')
    cp "$file" "$2/${name:-$(basename "$file")}"
  done
}

echo "== zeta-$version-linux-x86_64.tar.gz: cmake --install"
archive="zeta-$version-linux-x86_64"
prefix="$stage/$archive"
cmake --install "$build" --prefix "$prefix" >/dev/null
# The archive unpacks anywhere: zeta.pc finds its prefix from its own place (the CMake package already does).
pc=$(cd "$prefix" && echo lib*/pkgconfig/zeta.pc)
up=$(dirname "$pc" | sed 's|[^/]*|..|g')
sed -i "s|^prefix=.*|prefix=\${pcfiledir}/$up|" "$prefix/$pc"
tar --sort=name --owner=0 --group=0 --numeric-owner -C "$stage" -czf "$dist/$archive.tar.gz" "$archive"
installed_lib="$prefix/$(dirname "$(dirname "$pc")")"

echo "== the Python wheel"
ZETA_LIBRARY="$installed_lib/libzeta.so.${version%%.*}" "$python" bindings/python/build_wheel.py "$dist"

echo "== zeta-$version.jar with its sources and pom"
# The jar CMake built (classes, native libraries, NativeLoader's index), with the pom inside as Maven puts it.
sed "s|@VERSION@|$version|" bindings/java/pom.xml.in >"$dist/zeta-$version.pom"
maven="$stage/jar/META-INF/maven/zeta/zeta"
mkdir -p "$maven"
cp "$dist/zeta-$version.pom" "$maven/pom.xml"
printf 'groupId=zeta\nartifactId=zeta\nversion=%s\n' "$version" >"$maven/pom.properties"
# The licences, zeta's and that of the Fashion-MNIST rows libzeta embeds, travel in every artefact.
cp LICENSE data/LICENSE-fashion-mnist "$stage/jar/META-INF/"
cp "$build/bindings/java/zeta.jar" "$dist/zeta-$version.jar"
jar --update --file "$dist/zeta-$version.jar" -C "$stage/jar" META-INF
jar --create --file "$dist/zeta-$version-sources.jar" -C bindings/java/src zeta \
  -C "$build/bindings/java/generated/src" zeta

echo "== Zeta.$version.nupkg"
nuget_stage="$stage/nuget"
mkdir -p "$nuget_stage/lib/net45"
cp "$build/bindings/csharp/bin/Zeta.dll" "$nuget_stage/lib/net45/"
copy_libraries "$build/bindings/csharp/bin" "$nuget_stage/runtimes/linux-x64/native"
cp LICENSE data/LICENSE-fashion-mnist "$nuget_stage/"
sed "s|@VERSION@|$version|" bindings/csharp/Zeta.nuspec.in >"$nuget_stage/Zeta.nuspec"
# NuGet writes its settings under HOME: a scratch one keeps the user's untouched.
mkdir -p "$stage/home"
HOME="$stage/home" nuget pack "$nuget_stage/Zeta.nuspec" -BasePath "$nuget_stage" -OutputDirectory "$dist" \
  -NoPackageAnalysis -NonInteractive >"$stage/nuget.log" || { cat "$stage/nuget.log"; exit 1; }

echo "== zeta-wasm-$version.tgz: the WebAssembly module with Emscripten, npm pack"
ZETA_WASM_ONLY=1 sh wasm/tests/build_module.sh "$root" "$wasm_build" cmake zeta_wasm_pkg
npm pack "$wasm_build/wasm/pkg" --pack-destination "$dist" --loglevel=error >/dev/null

echo "== dist/ ($dist):"
(cd "$dist" && ls -l)
