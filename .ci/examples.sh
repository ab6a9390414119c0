#!/usr/bin/env bash
# Runs the windowed examples (hello, viewer, egui, crowd, deferred) unattended
# (lavapipe in CI) and checks that their last frames show the model: each
# saves a screenshot and, with --check-screenshot, exits 1 when it is one
# colour or no model pixel differs from the background drawn alone. The egui
# ones (the viewer, an inspector, and egui) must show their interface too:
# pixels that differ from the paint callbacks drawn alone. Also checks that a
# model named on the command line that does not load ends the viewer with
# exit code 1 and an error, before any window opens.
#
#   .ci/examples.sh          check; PNGs go to examples-check/ in the target
#                            directory
#   .ci/examples.sh --docs   also (re)make the README's pictures from the demo
#                            model: docs/viewer.png (the inspector),
#                            docs/crowd.png, docs/crowd-levels.png,
#                            docs/deferred.png (windowed),
#                            docs/shells.png and
#                            docs/shadow.png (render), and from the demo as a
#                            Quake III player (md2info --demo DIR/):
#                            docs/player-viewer.png, docs/player-crowd.png
#
# Without DISPLAY (or WAYLAND_DISPLAY) it starts its own Xvfb; with neither a
# display nor Xvfb it skips, or fails when MD2_REQUIRE_GPU=1.
set -euo pipefail
cd "$(dirname "$0")/.."
. .ci/display.sh

docs=false
case "${1:-}" in
  --docs) docs=true ;;
  "") ;;
  *) echo "usage: $0 [--docs]" >&2; exit 2 ;;
esac

if [ -z "${DISPLAY:-}" ] && [ -z "${WAYLAND_DISPLAY:-}" ]; then
  if ! command -v Xvfb >/dev/null 2>&1; then
    if [ "${MD2_REQUIRE_GPU:-}" = 1 ]; then
      echo "examples: no display and no Xvfb, and MD2_REQUIRE_GPU=1" >&2
      exit 1
    fi
    echo "examples: SKIPPED: no display and no Xvfb"
    exit 0
  fi
  start_xvfb examples
fi

# Release by default, as the README runs them; .ci/run asks for the dev
# profile (MD2_EXAMPLES_PROFILE=dev), which `cargo test` has just built, so
# CI does not build wgpu, egui and winit a second time (the workspace
# optimises dependencies in dev too).
profile=${MD2_EXAMPLES_PROFILE:-release}
cargo build --profile "$profile" -p md2-wgpu-examples --example hello --example viewer --example egui --example crowd \
  --example deferred --example render --bin md2info
cargo_target_dir examples
bin=$target/$([ "$profile" = dev ] && echo debug || echo "$profile")/examples
out=$target/examples-check
mkdir -p "$out"

# name, then arguments
run() {
  local name=$1
  shift
  echo "examples: $name $*"
  timeout 600 "$bin/$name" "$@" --check-screenshot
}

# capture STEM COMMAND...: runs COMMAND, which is to fail, with its stdout
# and stderr in $out/STEM.out and $out/STEM.err; its exit code in code.
capture() {
  local stem=$1
  shift
  set +e
  "$@" >"$out/$stem.out" 2>"$out/$stem.err"
  code=$?
  set -e
}

# refuse STEM WANT: fails the script: WANT, the exit code and what the
# command captured as STEM printed.
refuse() {
  echo "examples: $2, got $code:" >&2
  cat "$out/$1.out" "$out/$1.err" >&2
  exit 1
}

run hello --frames 20 --size 640x400 --screenshot "$out/hello.png"
# The inspector's side panels need room: the 3D view gets what they leave.
run viewer --frames 20 --size 1280x720 --screenshot "$out/viewer.png"
run egui --frames 20 --size 640x400 --screenshot "$out/egui.png"
run crowd --instances 500 --frames 20 --size 640x400 --screenshot "$out/crowd.png"
run crowd --instances 500 --frames 5 --size 640x400 --no-levels --level-tint \
  --screenshot "$out/crowd-no-lod.png"
run deferred --instances 100 --frames 20 --size 640x400 --screenshot "$out/deferred.png"
# A crowd of Quake III players (their parts placed on their tags on the GPU),
# where the shared community players are (they are never committed).
players=${MD2_SHARED_MODELS:-$PWD/../shared/md2}/../md3/major
if [ -f "$players/lower.md3" ]; then
  run crowd "$players" --instances 300 --frames 20 --size 640x400 --screenshot "$out/crowd-players.png"
else
  echo "examples: crowd of players SKIPPED: no shared Quake III player at $players (set MD2_SHARED_MODELS)"
fi
# The demo as a Quake III player with its gun (made in code, so always
# here): in the viewer, and a crowd of them.
demo="$out/demo"
rm -rf "$demo"
"$target/$([ "$profile" = dev ] && echo debug || echo "$profile")/md2info" --demo "$demo/"
demo_player=$demo/models/players/demo
demo_gun=$demo/models/weapons/demo/gun.md3
run viewer "$demo_player" --weapon "$demo_gun" --frames 20 --size 1280x720 \
  --screenshot "$out/player-viewer.png"
run crowd "$demo_player" --weapon "$demo_gun" --instances 300 --frames 20 --size 640x400 \
  --screenshot "$out/player-crowd.png"
# The headless one needs no display, only that it draws every effect.
echo "examples: render --shell blue --shadow"
"$bin/render" --shell blue --shadow --out "$out/render.png"

# A file that does not load: exit code 1, the error on stderr, no window.
for bad in "$out/no-such-model.md2" Cargo.toml; do
  capture bad "$bin/viewer" "$bad" --frames 1
  if [ "$code" -ne 1 ] || ! grep -q "^error: " "$out/bad.err" || grep -q "^adapter:" "$out/bad.out"; then
    refuse bad "viewer $bad: want exit 1 with an error and no window"
  fi
  echo "examples: viewer $bad: $(head -n1 "$out/bad.err")"
done

# A lost device (destroyed after a few frames, as a GPU reset loses it):
# the example says so and exits with code 1, without a panic.
for name in crowd viewer; do
  capture lost timeout 600 "$bin/$name" --frames 20 --size 640x400 --lose-device-after 3
  if [ "$code" -ne 1 ] || ! grep -q "device was lost" "$out/lost.err" || grep -q "panicked" "$out/lost.err"; then
    refuse lost "$name --lose-device-after 3: want exit 1 saying the device was lost"
  fi
  echo "examples: $name --lose-device-after 3: $(grep "device was lost" "$out/lost.err")"
done

if $docs; then
  mkdir -p docs
  run viewer --frames 40 --size 1280x720 --screenshot docs/viewer.png
  run crowd --frames 40 --size 640x400 --screenshot docs/crowd.png
  run crowd --frames 40 --size 640x400 --level-tint --screenshot docs/crowd-levels.png
  run deferred --frames 40 --size 640x400 --screenshot docs/deferred.png
  "$bin/render" --shell blue --anim run --t 0.25 --size 320x320 --out docs/shells.png
  "$bin/render" --shadow --anim run --t 0.25 --size 320x320 --out docs/shadow.png
  run viewer "$demo_player" --weapon "$demo_gun" --frames 40 --size 1280x720 \
    --screenshot docs/player-viewer.png
  run crowd "$demo_player" --weapon "$demo_gun" --instances 300 --frames 40 --size 640x400 \
    --screenshot docs/player-crowd.png
fi
echo "examples: ok"
