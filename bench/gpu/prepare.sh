#!/usr/bin/env bash
# Builds fusec here (tools/dev.sh build) and the bundle bench/gpu/run.sh
# runs on a GPU machine: bench/gpu/bundle (git-ignored, a few MiB).
#   bench/gpu/prepare.sh
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
build="${FUSEC_BUILD_DIR:-$root/build}"
"$root/tools/dev.sh" build
/usr/bin/python3 "$root/bench/gpu/prepare.py" --build "$build" \
  --out "$root/bench/gpu/bundle"
