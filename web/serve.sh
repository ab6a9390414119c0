#!/usr/bin/env bash
# Builds the inspector page (web/build.sh) and serves it on
# http://127.0.0.1:PORT/ (8080 unless given) until interrupted.
#
#   web/serve.sh [PORT]
#
# Open the address in a browser with WebGPU (see web/README.md).
set -euo pipefail
cd "$(dirname "$0")/.."
port=${1:-8080}
web/build.sh --out web/dist
echo "web: serving http://127.0.0.1:$port/ (Ctrl-C stops)"
exec python3 -m http.server "$port" --bind 127.0.0.1 --directory web/dist
