#!/usr/bin/env bash
# The decode's figures on a machine with a real GPU, in one command (the
# `device` tool runs it when a machine is lent; try it on lavapipe first
# with smaller numbers):
#
#   bash benches/device.sh [OUT_DIR]           # 4,000 and 100,000 instances
#   SIZES=1000,4000 FRAMES=3 bash benches/device.sh /tmp/out
#
# One interleaved run of the crowd benchmark's comparison (the crate's two
# paths against pre-decoded static frames and three.js's instanced morph
# targets) and its decode section, for the demo model (and yohko where
# ../shared/md2 is there), writing the figures file (the adapter's name
# included) to OUT_DIR/figures-device.md, or $OUT on the device machine.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-${OUT:-target/device}}
mkdir -p "$out"
sizes=${SIZES:-4000,100000}
frames=${FRAMES:-8}
cargo bench -p md2-wgpu --bench crowd -- \
  --sections compare,decode \
  --instances "$sizes" --target "${sizes%%,*}" \
  --strategies gpu,resident,static,morph-pair \
  --models demo,yohko --frames "$frames" \
  --markdown "$out/figures-device.md" --json "$out/figures-device.json"
echo "device: figures in $out/figures-device.md"
