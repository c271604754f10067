#!/bin/sh
# The package as a web developer gets it: `npm pack` of the built package, `npm install` of the tarball into a
# fresh project, then (1) node imports it by name and runs examples/node_example.mjs, (2) when typescript is
# available (the demo's npm tools), examples/typecheck.ts compiles with --strict against the shipped zeta.d.ts,
# (3) examples/embed.html is put in the project as index.html for the browser test wasm_embed_browser.
# Usage: test_package.sh PKG_DIR EXAMPLES_DIR WORK_DIR [NODE_MODULES_WITH_TYPESCRIPT]
set -eu
pkg=$1
examples=$2
work=$3
tools=${4:-}
rm -rf "$work"
mkdir -p "$work/project"
npm pack "$pkg" --pack-destination "$work" --loglevel=error
tarball=$(ls "$work"/zeta-wasm-*.tgz)
echo "== packed $(basename "$tarball") ($(wc -c <"$tarball") bytes)"
cd "$work/project"
printf '{ "name": "embed-test", "version": "1.0.0", "private": true, "type": "module" }\n' >package.json
npm install --no-audit --no-fund --loglevel=error "$tarball"
ls node_modules/zeta-wasm
cp "$examples/node_example.mjs" "$examples/typecheck.ts" .
cp "$examples/embed.html" index.html
node node_example.mjs
if [ -n "$tools" ] && [ -x "$tools/.bin/tsc" ]; then
  "$tools/.bin/tsc" --noEmit --strict --target es2022 --module nodenext --moduleResolution nodenext \
    --skipLibCheck false typecheck.ts
  echo "== typecheck.ts compiles against zeta.d.ts (tsc --strict)"
else
  echo "== typescript not available: type check skipped"
fi
