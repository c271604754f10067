#!/bin/sh
# Installs one artefact of scripts/package.sh in a fresh place outside the source tree and runs its smoke program
# there, as a user of that artefact would; the smoke line (log Z of one model, exact and by AIS, as bits) goes to
# WORK_DIR/KIND.txt for check_agree.sh. The work directory is remade on every run.
# Usage: check_artefact.sh archive|wheel|jar|nupkg|npm DIST_DIR WORK_DIR SMOKE_DIR [CMAKE]
set -eu
kind=$1 dist=$2 work=$3/$1 smoke=$4 cmake=${5:-cmake}
result=$3/$kind.txt

fail() {
  echo "check_artefact $kind: $*" >&2
  exit 1
}
# The one file of dist/ matching a pattern.
artefact() {
  pattern=$1
  # shellcheck disable=SC2086 # the pattern is meant to expand
  set -- "$dist"/$pattern
  if [ $# -ne 1 ] || [ ! -f "$1" ]; then fail "expected one $pattern in $dist"; fi
  echo "$1"
}

rm -rf "$work" "$result"
mkdir -p "$work"
cd "$work"
case $kind in
archive)
  tarball=$(artefact 'zeta-*-linux-x86_64.tar.gz')
  tar -xzf "$tarball"
  prefix=$work/$(basename "$tarball" .tar.gz)
  [ -d "$prefix" ] || fail "$(basename "$tarball") does not unpack into $(basename "$prefix")/"
  echo "== the archive's zeta tool"
  "$prefix/bin/zeta" --version
  echo "== find_package(zeta) with CMAKE_PREFIX_PATH=$prefix"
  "$cmake" -S "$smoke" -B cmake-build -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_BUILD_TYPE=Release >cmake.log ||
    { cat cmake.log; fail "configuring against the archive failed"; }
  grep "zeta .* from $prefix/" cmake.log || fail "find_package found another zeta: $(grep 'zeta ' cmake.log)"
  "$cmake" --build cmake-build >/dev/null
  ./cmake-build/smoke >find_package.txt
  cat find_package.txt
  echo "== pkg-config with PKG_CONFIG_PATH=$prefix/lib/pkgconfig"
  flags=$(PKG_CONFIG_PATH=$prefix/lib/pkgconfig pkg-config --cflags --libs zeta)
  echo "$flags"
  # shellcheck disable=SC2086 # the flags are meant to split into words
  cc -std=c99 "$smoke/smoke.c" $flags -lm -o pkg-config-smoke
  LD_LIBRARY_PATH=$prefix/lib ./pkg-config-smoke >pkg-config.txt
  cat pkg-config.txt
  cmp find_package.txt pkg-config.txt || fail "the find_package and pkg-config programs disagree"
  cp find_package.txt "$result"
  ;;
wheel)
  wheel=$(artefact 'zeta-*.whl')
  /usr/bin/python3 -m venv --system-site-packages venv
  ./venv/bin/python -m pip install --quiet --no-index --no-deps "$wheel"
  env -u ZETA_LIBRARY -u PYTHONPATH ./venv/bin/python "$smoke/smoke.py" >"$result"
  ;;
jar)
  jar=$(artefact 'zeta-*[0-9].jar')
  artefact 'zeta-*-sources.jar' >/dev/null
  pom=$(artefact 'zeta-*.pom')
  grep -q "<version>$(basename "$pom" .pom | sed 's/^zeta-//')</version>" "$pom" || fail "$pom states another version"
  unzip -p "$jar" META-INF/maven/zeta/zeta/pom.xml | cmp - "$pom" || fail "the jar's pom.xml is not $pom"
  javac --release 11 -Xlint:all -Werror -cp "$jar" -d classes "$smoke/Smoke.java"
  java -cp "$jar:classes" Smoke >"$result"
  ;;
nupkg)
  nupkg=$(artefact 'Zeta.*.nupkg')
  version=$(basename "$nupkg" .nupkg | sed 's/^Zeta\.//')
  # The dist directory as a local NuGet source; NuGet keeps its settings under a scratch HOME.
  mkdir home
  HOME=$work/home nuget install Zeta -Version "$version" -Source "$dist" -OutputDirectory packages -NoCache \
    -NonInteractive >nuget.log || { cat nuget.log; fail "nuget install failed"; }
  package=packages/Zeta.$version
  # A Mono application ships the assembly and the package's native libraries of its platform beside its .exe.
  mkdir app
  cp "$package"/lib/net45/Zeta.dll "$package"/runtimes/linux-x64/native/* app/
  mcs -warn:4 -warnaserror+ -out:app/Smoke.exe -r:app/Zeta.dll "$smoke/Smoke.cs"
  env -u LD_LIBRARY_PATH mono app/Smoke.exe >"$result"
  ;;
npm)
  tarball=$(artefact 'zeta-wasm-*.tgz')
  mkdir project
  cd project
  printf '{ "name": "zeta-smoke", "version": "1.0.0", "private": true, "type": "module" }\n' >package.json
  npm install --offline --no-audit --no-fund --loglevel=error "$tarball"
  cp "$smoke/smoke.mjs" .
  node smoke.mjs >"$result"
  ;;
*)
  fail "unknown artefact kind (archive, wheel, jar, nupkg or npm)"
  ;;
esac
cat "$result"
