#!/usr/bin/env bash
# Sourced by the CI scripts that run windowed programs unattended
# (.ci/examples.sh, .ci/bevy.sh): an Xvfb of their own, and where cargo
# puts what it builds. Each function takes the prefix of the script's
# messages.

# start_xvfb PREFIX: starts Xvfb, stopped when the script exits, and
# exports DISPLAY for it; fails the script when it does not start.
start_xvfb() {
  # Xvfb picks a free display number itself and writes it to fd 3.
  display_file=$(mktemp)
  Xvfb -displayfd 3 -screen 0 1280x800x24 -nolisten tcp 3>"$display_file" 2>/dev/null &
  xvfb_pid=$!
  trap 'kill "$xvfb_pid" 2>/dev/null || true; rm -f "$display_file"' EXIT
  for _ in $(seq 100); do
    [ -s "$display_file" ] && break
    sleep 0.1
  done
  if [ ! -s "$display_file" ]; then
    echo "$1: Xvfb did not start" >&2
    exit 1
  fi
  export DISPLAY=":$(head -n1 "$display_file")"
  echo "$1: Xvfb on $DISPLAY"
}

# cargo_target_dir PREFIX: sets target to cargo's target directory, wherever
# cargo puts it (CARGO_TARGET_DIR, a workspace, .cargo/config.toml).
cargo_target_dir() {
  target=$(cargo metadata --format-version 1 --no-deps |
    sed -n 's/.*"target_directory":"\([^"]*\)".*/\1/p')
  if [ -z "$target" ]; then
    echo "$1: cargo metadata named no target directory" >&2
    exit 1
  fi
}
