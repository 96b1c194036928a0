#!/usr/bin/env bash
# Runs bench/finetune.py (see its docstring) with the models venv of
# bench/models.sh (CPU PyTorch, torchvision, onnx), set up once.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
env="$root/build/models-venv"
if [ ! -x "$env/bin/python" ]; then
  "$root/bench/models.sh" --models none > /dev/null 2>&1 || true
fi
exec "$env/bin/python" "$root/bench/finetune.py" \
  --fusec "$root/build/bin/fusec" --work "$root/build/finetune" "$@"
