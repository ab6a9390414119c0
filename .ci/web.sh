#!/usr/bin/env bash
# CI's web part (.ci/run calls it): md2-wgpu and the inspector page built for
# wasm32-unknown-unknown, the core of the GPU suite run in headless Chromium
# (WebGPU: Dawn, on SwiftShader without a GPU), and the page's own tests in
# the same browser. Runs as root on Debian 12; installs only what is missing,
# so a warm machine touches no network:
#
# - Debian's packages: rustc-web cargo-web rust-web-src rust-web-llvm lld-22
#   (a Rust that builds std for wasm32; rustup cannot add targets here),
#   rust-web-clippy (its clippy, for the web crate's wasm-only code),
#   clang-19 (meshoptimizer's C++ for wasm32), chromium chromium-driver;
# - wasm-bindgen-cli at Cargo.lock's wasm-bindgen, under
#   ~/.cache/md2-wgpu/wasm-bindgen-VERSION (kept by a warm machine);
# - npm: playwright-core (web/package.json) into web/node_modules, and the
#   glTF checks' packages (.ci/node/package.json) if .ci/run has not.
#
# Its build goes to target/web (MD2_WEB_TARGET moves it), apart from the
# native builds.
set -euo pipefail
cd "$(dirname "$0")/.."
started=$SECONDS
step() {
  echo "ci web: $* (at $((SECONDS - started)) s)"
}

missing=()
for package in rustc-web cargo-web rust-web-src rust-web-llvm rust-web-clippy lld-22 clang-19 chromium chromium-driver; do
  if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$package")
  fi
done
command -v npm >/dev/null 2>&1 || missing+=(nodejs npm)
if [ ${#missing[@]} -gt 0 ]; then
  step "installing ${missing[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# npm packages, each folder again only when its package.json changed.
for folder in .ci/node web; do
  stamp=$folder/node_modules/.installed-package.json
  if ! cmp -s "$folder/package.json" "$stamp"; then
    step "npm install in $folder"
    npm install --prefix "$folder" --no-package-lock --no-audit --no-fund --loglevel=error
    cp "$folder/package.json" "$stamp"
  fi
done

# wasm-bindgen's command line must be the lock's version of the crate.
wasm_bindgen_version=$(sed -n '/^name = "wasm-bindgen"$/{n;s/^version = "\(.*\)"$/\1/p;q}' Cargo.lock)
tools=${MD2_TOOLS:-$HOME/.cache/md2-wgpu}/wasm-bindgen-$wasm_bindgen_version
if [ ! -x "$tools/bin/wasm-bindgen" ] || [ ! -x "$tools/bin/wasm-bindgen-test-runner" ]; then
  step "cargo install wasm-bindgen-cli $wasm_bindgen_version"
  cargo install --quiet wasm-bindgen-cli --version "$wasm_bindgen_version" --root "$tools" \
    --target-dir "${MD2_WEB_TARGET:-$PWD/target/web}/tools"
fi

source web/toolchain/env.sh
export CARGO_TARGET_DIR=${MD2_WEB_TARGET:-$PWD/target/web}

step "the library for wasm32 ($(rustc --version))"
cargo build --quiet -p md2-wgpu --lib --release "${WASM_CARGO_FLAGS[@]}"
step "cargo clippy for wasm32 (the page and its browser tests)"
cargo clippy --quiet -p md2-wgpu-web --all-targets "${WASM_CARGO_FLAGS[@]}" -- -D warnings
step "the inspector page"
web/build.sh --out "$CARGO_TARGET_DIR/dist"

step "the GPU tests in headless Chromium (wasm-bindgen-test-runner, chromedriver)"
# The runner reads web/webdriver.json (Chromium's flags for WebGPU) from
# the crate's folder, where cargo runs it. No --quiet: cargo would hand it
# to wasm-bindgen-test-runner, which refuses it.
CHROMEDRIVER=/usr/bin/chromedriver WASM_BINDGEN_TEST_TIMEOUT=900 \
  cargo test -p md2-wgpu-web --release "${WASM_CARGO_FLAGS[@]}"

step "the page's tests (playwright-core, Debian's Chromium)"
MD2_WEB_DIST=$CARGO_TARGET_DIR/dist MD2_REQUIRE_NODE=1 \
  node --test --test-reporter=spec web/tests/page/page.test.mjs
step "done"
