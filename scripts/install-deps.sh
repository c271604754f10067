#!/usr/bin/env bash
# Installs everything zeta needs on a fresh Debian 12 machine: the only place the package list lives.
# Node.js 20 and npm are expected from the machine (Debian's nodejs/npm packages conflict with them), so they are
# installed from Debian only when no `node` is present.
set -euo pipefail
packages=(
  # C++ core, CLI, tests, benchmarks
  g++ cmake ninja-build pkg-config libeigen3-dev libcli11-dev nlohmann-json3-dev googletest libgtest-dev
  libgmock-dev libbenchmark-dev zlib1g-dev libpng-dev
  # The BLAS the core's large products run on (OpenMP build, cmake/ZetaBlas.cmake); BLIS only for the benchmark's
  # comparison of GEMM speeds
  libopenblas-openmp-dev libblis-openmp-dev
  # C API: sanitizers, Valgrind, libFuzzer (clang's runtime); LLVM's OpenMP runtime with its Archer tool, which
  # the ThreadSanitizer run needs (tests/c/run_tsan.sh); QEMU's user-mode CPUs for the portable build's test
  clang-14 libclang-rt-14-dev valgrind libomp-14-dev qemu-user
  # Source formatting (the format_check test pins clang-format 14)
  clang-format-14
  # Data and the experiments' peers and plots
  dataset-fashion-mnist libmatio-dev python3-torch python3-sklearn python3-matplotlib python3-numpy python3-scipy
  # Java and C# bindings
  swig openjdk-17-jdk junit4 mono-mcs mono-runtime
  # Python package (bindings/python, scripts/install-python.sh): a venv over Debian's interpreter and packages
  python3-venv python3-pip python3-setuptools python3-wheel python3-pytest python3-pandas python3-tqdm python3-dask
  python3-distributed
  # WebAssembly module and the browser demo's tests
  emscripten node-acorn chromium
  # Release artefacts (scripts/package.sh and its tests): the .nupkg, the jar's test reads the pom back
  nuget unzip
)
sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq "${packages[@]}"
if ! command -v node >/dev/null 2>&1; then
  $sudo apt-get install -y -qq nodejs npm
fi
