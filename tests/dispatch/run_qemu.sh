#!/bin/sh
# A portable libzeta on CPUs this machine is not, under QEMU's user-mode emulation (Debian's qemu-user):
#   - zeta_path_check small gives, bit for bit, the answers it gives here with the same path forced: the baseline
#     under -cpu Nehalem (SSE4.2, no AVX), x86-64-v3 under -cpu Haswell. (Not -cpu qemu64: OpenBLAS takes it for an
#     Opteron and runs 3DNow! instructions, which QEMU does not emulate.)
#   - forcing a path the emulated CPU lacks fails cleanly, naming the missing extension;
#   - the zeta launcher picks the flavour of the tool for the emulated CPU.
# QEMU 7.2 emulates up to AVX2, so the AVX-512 path runs natively only (the C tests per path).
# Usage: run_qemu.sh CMAKE PROGRAM EXPECT_UNAVAILABLE_SCRIPT WORK_DIR [ZETA_LAUNCHER]
# Exits 77 (skipped) without qemu-x86_64.
set -eu
cmake=$1 program=$2 expect=$3 work=$4 launcher=${5:-}
qemu=$(command -v qemu-x86_64) || { echo "qemu-x86_64 not found (apt-get install qemu-user): skipped"; exit 77; }
mkdir -p "$work"

has_flags() {  # true when /proc/cpuinfo lists every flag given
  for f in "$@"; do grep -qw "$f" /proc/cpuinfo || return 1; done
}

same() {  # $1: emulated CPU model, $2: path forced for the native reference
  echo "== -cpu $1 against this CPU with ZETA_CPU=$2"
  ZETA_CPU=$2 "$program" small >"$work/native-$2.txt"
  "$qemu" -cpu "$1" "$program" small >"$work/qemu-$1.txt"
  head -2 "$work/qemu-$1.txt"
  if ! cmp -s "$work/native-$2.txt" "$work/qemu-$1.txt"; then
    diff "$work/native-$2.txt" "$work/qemu-$1.txt" | head -20
    echo "-cpu $1 differs from this CPU's $2 path"
    return 1
  fi
}

refused() {  # $1: emulated CPU model, $2: path forced, $3: the extension named missing
  echo "== -cpu $1 with ZETA_CPU=$2"
  "$cmake" -DPROGRAM="$program" -DZETA_CPU="$2" -DRUNNER="$qemu -cpu $1" \
    -DREASON="ZETA_CPU=$2 is refused: this CPU lacks $3, which the $2 path needs" -P "$expect"
}

launched() {  # $1: emulated CPU model, $2: the path the launcher must choose
  echo "== zeta --version under -cpu $1"
  "$qemu" -cpu "$1" "$launcher" --version >"$work/launcher-$1.txt"
  grep "CPU path" "$work/launcher-$1.txt"
  grep -q "^CPU path: $2 (" "$work/launcher-$1.txt" || { echo "the launcher did not choose $2"; return 1; }
}

same Nehalem x86-64
if has_flags avx2 fma bmi2; then
  same Haswell x86-64-v3
else
  echo "== -cpu Haswell: skipped (this CPU has no AVX2 to compare with)"
fi
refused Nehalem x86-64-v3 avx
refused Haswell x86-64-v4 avx512f
if [ -n "$launcher" ]; then
  launched Nehalem x86-64
  launched Haswell x86-64-v3
fi
echo "QEMU's CPUs give this CPU's answers"
