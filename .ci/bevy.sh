#!/usr/bin/env bash
# CI for the Bevy plugin (md2-bevy/), apart from .ci/run because Bevy is a
# large build: formatting, clippy, docs, that the plugin's graph holds no
# second wgpu (Bevy 0.19 brings wgpu 29; md2-wgpu's GPU half is wgpu 30), its
# tests with the GPU ones required (lavapipe), and the crowd and battle
# examples run unattended under Xvfb with their screenshots checked.
#
#   .ci/bevy.sh          check; the screenshot goes to bevy-check/ in the
#                        target directory
#   .ci/bevy.sh --docs   also (re)make md2-bevy/docs/crowd.png,
#                        md2-bevy/docs/battle.png (100,000 soldiers),
#                        md2-bevy/docs/battle-levels.png (the same, painted
#                        by level of detail) and
#                        md2-bevy/docs/players.png (the demo model, and the
#                        demo as a Quake III player)
#
# The tests and the example share one build (the dev profile: the
# workspace builds dependencies at opt-level 2), so the example costs no
# second Bevy build. Without DISPLAY it starts its own Xvfb.
set -euo pipefail
cd "$(dirname "$0")/.."
. .ci/display.sh
started=$SECONDS
step() {
  echo "ci-bevy: $* (at $((SECONDS - started)) s)"
}

docs=false
case "${1:-}" in
  --docs) docs=true ;;
  "") ;;
  *) echo "usage: $0 [--docs]" >&2; exit 2 ;;
esac

step "cargo fmt --check -p md2-bevy"
cargo fmt -p md2-bevy --check
# Clippy lints while the tests build, instead of in a check build of its
# own: `cargo clippy` is cargo with clippy-driver as the workspace's rustc
# wrapper and the lint flags in CLIPPY_ARGS, and clippy-driver compiles as
# rustc does. Bevy itself is then built once (for the tests and the
# example) rather than also checked, which saves a cold run about ten
# minutes; md2-bevy's every target (lib, tests, examples, benches) is
# linted as `cargo clippy --all-targets -- -D warnings` would.
clippy_driver=$(command -v clippy-driver || true)
if [ -z "$clippy_driver" ]; then
  echo "ci-bevy: no clippy-driver (rustup component add clippy)" >&2
  exit 1
fi
export RUSTC_WORKSPACE_WRAPPER=$clippy_driver
export CLIPPY_ARGS="-D__CLIPPY_HACKERY__warnings__CLIPPY_HACKERY__"
step "cargo doc -p md2-bevy"
RUSTDOCFLAGS="-D warnings" cargo doc --no-deps -p md2-bevy
step "cargo tree: no wgpu 30 in md2-bevy's graph"
if cargo tree -p md2-bevy -e normal | grep -E 'wgpu v30'; then
  echo "ci-bevy: md2-bevy pulls in wgpu 30 (md2-wgpu must be used without default features)" >&2
  exit 1
fi
step "cargo clippy and build of md2-bevy's every target (the tests' build)"
cargo test -p md2-bevy --all-targets --no-run
step "cargo test -p md2-bevy (GPU tests required)"
MD2_REQUIRE_GPU=1 cargo test -p md2-bevy

step "the crowd example, unattended under Xvfb"
cargo build -p md2-bevy --example crowd
cargo_target_dir ci-bevy
out=$target/bevy-check
mkdir -p "$out"
if [ -z "${DISPLAY:-}" ] && [ -z "${WAYLAND_DISPLAY:-}" ]; then
  if ! command -v Xvfb >/dev/null 2>&1; then
    echo "ci-bevy: no display and no Xvfb (apt-get install xvfb)" >&2
    exit 1
  fi
  start_xvfb ci-bevy
fi
crowd=$target/debug/examples/crowd
# --check-screenshot exits 1 when the picture is one colour or the crowd
# changes under 1% of its pixels.
timeout 600 "$crowd" --soldiers 120 --frames 30 --size 640x400 \
  --screenshot "$out/crowd.png" --check-screenshot
# A crowd of Quake III players (parts on their tags as Bevy children, a
# weapon in every hand): the demo player (made in code, written by md2info),
# and the shared community one where it is (never committed).
env -u RUSTC_WORKSPACE_WRAPPER -u CLIPPY_ARGS cargo build -p md2-wgpu-examples --bin md2info
demo=$out/demo
rm -rf "$demo"
"$target/debug/md2info" --demo "$demo/"
timeout 600 "$crowd" --player "$demo/models/players/demo" \
  --weapon "$demo/models/weapons/demo/gun.md3" --soldiers 120 --frames 30 --size 640x400 \
  --screenshot "$out/crowd-players.png" --check-screenshot
players=${MD2_SHARED_MODELS:-$PWD/../shared/md2}/../md3/major
if [ -f "$players/lower.md3" ]; then
  timeout 600 "$crowd" --player "$players" --soldiers 120 --frames 30 --size 640x400 \
    --screenshot "$out/crowd-major.png" --check-screenshot
else
  echo "ci-bevy: crowd of the shared player SKIPPED: none at $players (set MD2_SHARED_MODELS)"
fi
# Two armies as md2-bevy's resident crowds (Md2Crowd: clocks, culling and
# levels of detail on the GPU, shadows): 20,000 soldiers in the debug
# build, checked as the crowd is.
step "the battle example, unattended under Xvfb"
cargo build -p md2-bevy --example battle
timeout 600 "$target/debug/examples/battle" --soldiers 20000 --frames 20 --size 640x400 \
  --screenshot "$out/battle.png" --check-screenshot
if $docs; then
  timeout 900 "$target/debug/examples/battle" --frames 20 --size 960x540 \
    --screenshot md2-bevy/docs/battle.png --check-screenshot
  timeout 900 "$target/debug/examples/battle" --frames 20 --size 960x540 --level-colours \
    --screenshot md2-bevy/docs/battle-levels.png --check-screenshot
  timeout 600 "$crowd" --frames 90 --size 960x540 \
    --screenshot md2-bevy/docs/crowd.png --check-screenshot
  timeout 600 "$crowd" --player "$demo/models/players/demo" \
    --weapon "$demo/models/weapons/demo/gun.md3" --frames 90 --size 960x540 \
    --screenshot md2-bevy/docs/players.png --check-screenshot
fi
step "done"
