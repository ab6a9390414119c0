# Sourced by web/build.sh, web/serve.sh and .ci/web.sh: picks how this
# machine builds for wasm32-unknown-unknown and finds wasm-bindgen.
#
# - rustup with the target installed (`rustup target add
#   wasm32-unknown-unknown`): cargo as it is;
# - else Debian's rustc-web (apt-get install rustc-web cargo-web
#   rust-web-src rust-web-llvm lld-22): /usr/bin first in PATH, and the
#   standard library built from rust-web-src (-Zbuild-std, allowed on a
#   stable compiler by RUSTC_BOOTSTRAP=1).
#
# Sets WASM_CARGO_FLAGS (flags for every cargo command that builds for
# wasm32), WASM_BINDGEN_VERSION (the lock's wasm-bindgen) and, where found,
# puts wasm-bindgen on PATH. Returns 1 with a message where the machine
# cannot build for wasm32.

md2_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
WASM_BINDGEN_VERSION=$(sed -n '/^name = "wasm-bindgen"$/{n;s/^version = "\(.*\)"$/\1/p;q}' "$md2_root/Cargo.lock")
export WASM_BINDGEN_VERSION
# Where .ci/web.sh installs wasm-bindgen-cli: outside the clone, so a warm
# machine keeps it; one folder per version.
WASM_BINDGEN_ROOT=${MD2_TOOLS:-$HOME/.cache/md2-wgpu}/wasm-bindgen-$WASM_BINDGEN_VERSION
export WASM_BINDGEN_ROOT
if [ -x "$WASM_BINDGEN_ROOT/bin/wasm-bindgen" ]; then
  PATH="$WASM_BINDGEN_ROOT/bin:$PATH"
fi

WASM_CARGO_FLAGS=(--target wasm32-unknown-unknown)
if command -v rustup >/dev/null 2>&1 &&
  rustup target list --installed 2>/dev/null | grep -qx wasm32-unknown-unknown; then
  :
elif [ -x /usr/bin/rustc ] && [ -d /usr/lib/rustlib/src/rust/library ]; then
  PATH="/usr/bin:$PATH"
  export RUSTC_BOOTSTRAP=1
  WASM_CARGO_FLAGS+=(-Zbuild-std=std,panic_abort)
else
  echo "web: no Rust for wasm32-unknown-unknown here: run 'rustup target add wasm32-unknown-unknown'," >&2
  echo "web: or on Debian 12 'apt-get install rustc-web cargo-web rust-web-src rust-web-llvm lld-22 clang-19'" >&2
  return 1
fi
export PATH
