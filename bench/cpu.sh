#!/usr/bin/env bash
# Sets up build/cpu-bench-venv (onnx, onnxruntime and numpy from PyPI) once,
# then runs bench/cpu.py with the given arguments (see its docstring).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
env="$root/build/cpu-bench-venv"
if [ ! -x "$env/bin/python" ]; then
  python3 -m venv "$env"
  "$env/bin/pip" install -q --disable-pip-version-check onnx==1.22.0 \
    onnxruntime numpy
fi
exec "$env/bin/python" "$root/bench/cpu.py" --fusec "$root/build/bin/fusec" \
  --fusec-run "$root/build/bin/fusec-run" --work "$root/build/cpu-bench" "$@"
