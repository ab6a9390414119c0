#!/usr/bin/env bash
# The crate on a machine with a real GPU, in one command. Two halves, so
# that a GPU machine with no Rust toolchain and no network can run it:
#
#   bash benches/device.sh prepare     # here: builds the kit (target/device-kit)
#   bash benches/device.sh run [OUT]   # there: runs the kit, writes OUT (or $OUT)
#   bash benches/device.sh [OUT]       # both, on one machine (try it on lavapipe)
#
# With the `device` tool: prepare here, then run with the kit carried:
#   run(command="bash benches/device.sh run", carry=["target/device-kit"])
#
# The kit (under 64 MiB, compressed): the crowd benchmark (release), the
# GPU test binaries (release: `gpu`, `levels`, and md2-bevy's `gpu` unless
# MD2_DEVICE_BEVY=0), md2-bevy's benchmark, the community models the tests
# and the benchmark read (../shared/md2, never committed: the kit lives in
# target/, which git ignores), and Debian's Vulkan loader for a machine that
# has the driver but no loader. The test binaries find the reference
# pictures in tests/reference of the checkout they run from.
#
# `run` writes OUT/figures-<adapter>.md (commit it as
# docs/figures-<adapter>.md): the adapter, each part's outcome and time,
# the GPU tests' results, the benchmark's tables (the compare and decode
# sections at 4,000 and 100,000 members, the horizon at 1,000,000,
# culling, steady state; frames split into compute and draws by timestamp
# queries where the adapter has them) and md2-bevy's tables (entities,
# and the resident crowd at 1,000 to 100,000); beside it each
# part's log, the benchmarks' markdown and the crowd benchmark's JSON. Each part has a time limit, so the
# whole run stays under 8 minutes and writes what it has.
#
# Smaller runs (lavapipe, a CPU: give it time): SIZES=1000,4000 FRAMES=3
#   HORIZON=20000 BEVY_COUNTS=1000 BEVY_CROWDS=1000 BUDGET=3000 TEST_LIMIT=600 LIMIT_SCALE=6 \
#   bash benches/device.sh
set -euo pipefail
cd "$(dirname "$0")/.."
kit=${MD2_DEVICE_KIT:-target/device-kit}
mode=${1:-all}
case "$mode" in
  prepare | run) shift ;;
  all) ;;
  *) mode=all ;;
esac

prepare() {
  local target
  target=$(cargo metadata --format-version 1 --no-deps |
    python3 -c 'import json,sys; print(json.load(sys.stdin)["target_directory"])')
  rm -rf "$kit"
  mkdir -p "$kit/bin" "$kit/md2"
  # Release builds, as the figures quote: the benchmark, the GPU tests.
  local built
  built=$(cargo bench -p md2-wgpu --bench crowd --no-run --message-format json 2>/dev/null |
    python3 -c '
import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m.get("executable") and m["target"]["name"] == "crowd":
        print(m["executable"])')
  cp "$built" "$kit/bin/crowd"
  cargo test --release -p md2-wgpu-tests --test gpu --test levels --no-run \
    --message-format json 2>/dev/null |
    python3 -c '
import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m.get("executable") and m["target"]["kind"] == ["test"]:
        print(m["target"]["name"], m["executable"])' |
    while read -r name path; do cp "$path" "$kit/bin/test-$name"; done
  if [ "${MD2_DEVICE_BEVY:-1}" = 1 ]; then
    cargo bench -p md2-bevy --bench crowd --no-run --message-format json 2>/dev/null |
      python3 -c '
import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m.get("executable") and m["target"]["name"] == "crowd":
        print(m["executable"])' | while read -r path; do cp "$path" "$kit/bin/bevy-crowd"; done
    cargo test --release -p md2-bevy --test gpu --no-run --message-format json 2>/dev/null |
      python3 -c '
import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m.get("executable") and m["target"]["kind"] == ["test"]:
        print(m["executable"])' | while read -r path; do cp "$path" "$kit/bin/test-bevy-gpu"; done
  fi
  strip "$kit"/bin/* 2>/dev/null || true
  local shared=${MD2_SHARED_MODELS:-../shared/md2}
  if [ -d "$shared" ]; then
    cp -r "$shared"/. "$kit/md2/"
  else
    echo "device: no community models at $shared: the tests and the benchmark skip them" >&2
  fi
  (cd "$kit" && apt-get download libvulkan1 >/dev/null 2>&1) ||
    echo "device: could not download libvulkan1 (the GPU machine must have a loader)" >&2
  # Compressed: the binaries are most of it.
  tar -C "$kit" -cf - bin md2 $(cd "$kit" && ls libvulkan1_*.deb 2>/dev/null) |
    xz -6 -T0 >"$target/device-kit.tar.xz"
  rm -rf "$kit"/bin "$kit"/md2 "$kit"/libvulkan1_*.deb
  mv "$target/device-kit.tar.xz" "$kit/kit.tar.xz"
  git rev-parse --short HEAD >"$kit/commit" 2>/dev/null || echo unknown >"$kit/commit"
  echo "device: kit in $kit ($(du -sh "$kit" | cut -f1)); carry it and run \`bash benches/device.sh run\`"
}

run() {
  local out=${1:-${OUT:-target/device}}
  mkdir -p "$out"
  out=$(cd "$out" && pwd)
  local here
  here=$(mktemp -d)
  xz -dc "$kit/kit.tar.xz" | tar -C "$here" -xf -
  local bin=$here/bin
  # A loader where the machine has none (the driver's ICD is found by it).
  if ! ldconfig -p 2>/dev/null | grep -q 'libvulkan.so.1 '; then
    for deb in "$here"/libvulkan1_*.deb; do
      [ -f "$deb" ] || continue
      dpkg -x "$deb" / && ldconfig && echo "device: installed the Vulkan loader from the kit"
    done
  fi
  export MD2_SHARED_MODELS=$here/md2
  export MD2_REQUIRE_GPU=1
  # Test pictures (written on a failure) come back with the figures.
  export CARGO_TARGET_DIR=$out/target
  export XDG_RUNTIME_DIR=${XDG_RUNTIME_DIR:-$here}
  local adapter slug
  adapter=$("$bin/crowd" --adapter 2>/dev/null || echo "unknown adapter")
  slug=$(echo "${adapter%% (*}" | tr '[:upper:]' '[:lower:]' | tr -cs 'a-z0-9' '-' | sed 's/^-//; s/-$//')
  local figures=$out/figures-${slug:-unknown}.md
  local started=$SECONDS
  local summary=$here/summary
  : >"$summary"
  # The whole run's budget: the device is lent for minutes, and a part
  # that would overrun it is cut short or skipped, saying so.
  local budget=${BUDGET:-450}
  # part NAME LIMIT COMMAND...: runs with a time limit, logs, notes the outcome.
  part() {
    local name=$1 limit=$2
    shift 2
    local left=$((budget - (SECONDS - started)))
    if [ "$left" -lt 15 ]; then
      echo "| $name | skipped: the run's ${budget} s were spent | 0 s |" >>"$summary"
      return
    fi
    # A slower adapter (lavapipe: a CPU) scales the benchmarks' limits.
    [ "$name" = "${name#test-}" ] && limit=$((limit * ${LIMIT_SCALE:-1}))
    [ "$limit" -le "$left" ] || limit=$left
    local begun=$SECONDS rc=0
    echo "device: $name (limit ${limit} s, at $((SECONDS - started)) s)" >&2
    timeout "$limit" "$@" >"$out/$name.log" 2>&1 || rc=$?
    local took=$((SECONDS - begun)) outcome=ok
    [ "$rc" = 0 ] || outcome="exit $rc"
    [ "$rc" = 124 ] && outcome="stopped at its ${limit} s limit"
    echo "| $name | $outcome | $took s |" >>"$summary"
  }
  local sizes=${SIZES:-4000,100000} frames=${FRAMES:-8} horizon=${HORIZON:-1000000}
  if [ "${TESTS:-1}" = 1 ]; then
    for test in "$bin"/test-*; do
      [ -x "$test" ] || continue
      part "$(basename "$test")" "${TEST_LIMIT:-120}" "$test" --test-threads 4
    done
  fi
  part bench-compare-decode 150 "$bin/crowd" --sections compare,decode \
    --instances "$sizes" --target "${sizes%%,*}" \
    --strategies gpu,resident,static,morph-pair --models demo,yohko --frames "$frames" \
    --markdown "$out/bench-compare-decode.md" --json "$out/bench-compare-decode.json"
  part bench-decode-second-size 90 "$bin/crowd" --sections decode \
    --target "${sizes##*,}" --models demo,yohko --frames "$frames" \
    --markdown "$out/bench-decode-second-size.md" --json "$out/bench-decode-second-size.json"
  part bench-scale 100 "$bin/crowd" --sections culling,flat,horizon \
    --target "${sizes%%,*}" --horizon-instances "$horizon" --horizon-frames 3 \
    --flat-sizes "1000,$horizon" --models demo,yohko --frames "$frames" \
    --markdown "$out/bench-scale.md" --json "$out/bench-scale.json"
  if [ -x "$bin/bevy-crowd" ]; then
    # Entities against morph targets, then the battle table: the
    # resident crowd against entities, morph targets and skinned meshes
    # at 1,000, 10,000 and 100,000, with the sun's shadows (md2-bevy's
    # issue #37 asks for it on a real GPU).
    # Its tables are its standard output, its progress its standard
    # error: the tables go to bench-bevy.md, the progress to the log.
    part bench-bevy 150 sh -c 'tables=$1; shift; exec "$@" >"$tables"' sh \
      "$out/bench-bevy.md" "$bin/bevy-crowd" --rounds 5 --frames 3 \
      --counts "${BEVY_COUNTS:-1000,4000,16000,64000}" \
      --crowds "${BEVY_CROWDS:-1000,10000,100000}"
  fi
  {
    echo "# md2-wgpu on $adapter"
    echo
    echo "Written by \`benches/device.sh run\` on $(date -u +%Y-%m-%d), crate at $(cat "$kit/commit"),"
    echo "on $(nproc) CPU threads; $(((SECONDS - started))) s in all. Each part's log is"
    echo "beside this file in the run's output."
    echo
    echo "| part | outcome | time |"
    echo "|---|---|---:|"
    cat "$summary"
    echo
    echo "## The GPU tests"
    echo
    for log in "$out"/test-*.log; do
      [ -f "$log" ] || continue
      echo "- $(basename "$log" .log): $(grep -h '^test result' "$log" | tail -1 || echo 'no result')"
      grep -h -E '^test .* FAILED$' "$log" | sed 's/^/  - /' || true
    done
    for md in bench-compare-decode bench-decode-second-size bench-scale; do
      [ -f "$out/$md.md" ] || continue
      echo
      sed 's/^# md2-wgpu crowd benchmark/## The crowd benchmark/' "$out/$md.md"
    done
    if [ -f "$out/bench-bevy.md" ]; then
      echo
      echo "## md2-bevy against Bevy's morph targets, and the resident crowd"
      echo
      # A model the benchmark skipped says why (the rest of its log is progress).
      grep -h ' skipped: ' "$out/bench-bevy.log" | sed 's/^/- /' || true
      echo
      cat "$out/bench-bevy.md"
    fi
  } >"$figures"
  rm -rf "$here"
  echo "device: $figures"
}

case "$mode" in
  prepare) prepare ;;
  run) run "$@" ;;
  all)
    prepare
    run "$@"
    ;;
esac
