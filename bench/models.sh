#!/usr/bin/env bash
# Sets up build/models-venv (CPU PyTorch, torchvision, onnx, onnxruntime,
# onnxscript and torch-mlir from PyPI; several GB) once, then runs
# bench/models.py with the given arguments (see its docstring).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
env="$root/build/models-venv"
if [ ! -x "$env/bin/python" ]; then
  python3 -m venv "$env"
  "$env/bin/pip" install -q --disable-pip-version-check torch torchvision \
    onnx==1.22.0 onnxruntime onnxscript numpy
  # torch-mlir is optional (the TOSA format); its wheels follow torch's.
  "$env/bin/pip" install -q --disable-pip-version-check torch-mlir ||
    echo "torch-mlir is not installable here: TOSA exports are skipped"
fi
exec "$env/bin/python" "$root/bench/models.py" \
  --fusec "$root/build/bin/fusec" --work "$root/build/models" "$@"
