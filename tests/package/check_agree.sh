#!/bin/sh
# The artefacts compute the same: every native artefact (archive, wheel, jar, nupkg) carries the same libzeta, so
# their smoke lines (tests/package/smoke/) must be equal to the bit; the WebAssembly module is another build of the
# same source, so its exact log Z must equal the archive's to within 1e-12 relative (a 16-term sum of 9-term sums
# rounds differently when the compiler contracts or vectorises differently; a wrong result is off by far more).
# Usage: check_agree.sh WORK_DIR   (holding archive.txt, wheel.txt, jar.txt, nupkg.txt and npm.txt)
set -eu
work=$1
for kind in archive wheel jar nupkg npm; do
  [ -s "$work/$kind.txt" ] || { echo "check_agree: no smoke result of the $kind (did its test fail?)" >&2; exit 1; }
  cat "$work/$kind.txt"
done
status=0
for kind in wheel jar nupkg; do
  if ! cmp -s "$work/archive.txt" "$work/$kind.txt"; then
    echo "check_agree: the $kind's results differ from the archive's" >&2
    status=1
  fi
done
field() { sed -n "s/.* $2=\([^ ]*\).*/\1/p" "$work/$1.txt"; }
[ "$(field npm zeta)" = "$(field archive zeta)" ] || { echo "check_agree: the npm package is another version" >&2; status=1; }
/usr/bin/python3 - "$(field archive exact)" "$(field npm exact)" <<'PY' || status=1
import struct, sys
native, wasm = (struct.unpack(">d", bytes.fromhex(h))[0] for h in sys.argv[1:])
if abs(wasm - native) > 1e-12 * abs(native):
    sys.exit(f"check_agree: the WebAssembly module's exact log Z {wasm!r} differs from the native {native!r}")
print(f"exact log Z: native {native!r}, WebAssembly {wasm!r} (difference {wasm - native:.3g})")
PY
[ $status -eq 0 ] && echo "the five artefacts agree"
exit $status
