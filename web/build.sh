#!/usr/bin/env bash
# Builds the inspector page: the md2-wgpu-web crate for wasm32, bound by
# wasm-bindgen, beside index.html, in one folder a static server can serve.
#
#   web/build.sh [--out DIR] [--debug]
#
# DIR defaults to web/dist (git ignores it). See web/README.md for the
# toolchain (rustup's wasm32 target, or Debian's rustc-web) and
# wasm-bindgen-cli, which must be the version of Cargo.lock's wasm-bindgen.
set -euo pipefail
cd "$(dirname "$0")/.."

out=web/dist
profile=release
while [ $# -gt 0 ]; do
  case "$1" in
    --out) out=$2; shift 2 ;;
    --debug) profile=dev; shift ;;
    *) echo "usage: $0 [--out DIR] [--debug]" >&2; exit 2 ;;
  esac
done

source web/toolchain/env.sh
if ! command -v wasm-bindgen >/dev/null 2>&1; then
  echo "web: no wasm-bindgen: cargo install wasm-bindgen-cli --version $WASM_BINDGEN_VERSION" >&2
  exit 1
fi
have=$(wasm-bindgen --version | awk '{print $2}')
if [ "$have" != "$WASM_BINDGEN_VERSION" ]; then
  echo "web: wasm-bindgen $have, but Cargo.lock has $WASM_BINDGEN_VERSION:" \
    "cargo install wasm-bindgen-cli --version $WASM_BINDGEN_VERSION" >&2
  exit 1
fi

cargo build -p md2-wgpu-web --lib --profile "$profile" "${WASM_CARGO_FLAGS[@]}"
target=$(cargo metadata --format-version 1 --no-deps |
  sed -n 's/.*"target_directory":"\([^"]*\)".*/\1/p')
dir=$([ "$profile" = dev ] && echo debug || echo release)
wasm=$target/wasm32-unknown-unknown/$dir/md2_wgpu_web.wasm

mkdir -p "$out"
wasm-bindgen --target web --no-typescript --out-dir "$out" "$wasm"
cp web/index.html "$out/index.html"
echo "web: built $out ($(du -sh "$out" | cut -f1))"
