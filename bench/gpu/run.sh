#!/usr/bin/env bash
# The one-call GPU validation, run on the GPU machine (CUDA, CMake, Ninja,
# PyTorch, JAX; no MLIR, nothing installable):
#
#   bench/gpu/run.sh [BUNDLE]      (default: the bundle next to this script)
#
# BUNDLE is what bench/gpu/prepare.sh made here. Builds the runtime from the
# bundle's sources with -DFUSEC_BUILD_COMPILER=OFF, finds libcuda.so.1 and
# libcublasLt.so.13 wherever the machine has them and says which it uses,
# stops with a clear message when there is no GPU, then runs run.py
# (correctness of every bundled model against the interpreter, then the
# benchmark table, printed last). Logs and results.json go to
# $FUSEC_BENCH_OUT when set, else BUNDLE/out.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
bundle="$(cd "${1:-$here/bundle}" && pwd)"
out="${FUSEC_BENCH_OUT:-$bundle/out}"
mkdir -p "$out"
exec > >(tee "$out/run.log") 2>&1
start=$(date +%s)

echo "== building the runtime (no MLIR) in $out/build"
configure() {
  cmake -G Ninja -S "$bundle/src" -B "$out/build" -DCMAKE_BUILD_TYPE=Release \
    -DFUSEC_BUILD_COMPILER=OFF -DFUSEC_ENABLE_BENCHMARKS=OFF "$@" \
    > "$out/configure.log" 2>&1
}
# The runtime's unit tests need GoogleTest, which the machine may lack.
if configure -DFUSEC_ENABLE_TESTS=ON; then
  targets=(fusec-run FusecRuntimeTests)
else
  rm -rf "$out/build"
  configure -DFUSEC_ENABLE_TESTS=OFF || {
    echo "error: configuring the runtime failed:"; cat "$out/configure.log"
    exit 1
  }
  targets=(fusec-run)
fi
cmake --build "$out/build" --target "${targets[@]}" > "$out/build.log" 2>&1 || {
  echo "error: building the runtime failed:"; tail -40 "$out/build.log"
  exit 1
}
fusec_run="$out/build/bin/fusec-run"

# The first existing file among the arguments.
first() { for f in "$@"; do [ -e "$f" ] && { echo "$f"; return 0; }; done; return 0; }
python_lib() {  # A library shipped in an nvidia-* wheel (next to PyTorch).
  python3 - "$1" "$2" <<'PY' 2>/dev/null || true
import glob, os, site, sys
for d in site.getsitepackages() + [site.getusersitepackages()]:
    for p in glob.glob(os.path.join(d, "nvidia", sys.argv[1], "lib", sys.argv[2])):
        print(p); sys.exit(0)
PY
}
loader() { ldconfig -p 2>/dev/null | awk -v n="$1" '$1 == n {print $NF; exit}'; }
libcuda="${FUSEC_LIBCUDA:-$(loader libcuda.so.1)}"
libcuda="${libcuda:-$(first /usr/lib/x86_64-linux-gnu/libcuda.so.1 \
  /usr/lib64/libcuda.so.1 /usr/local/nvidia/lib64/libcuda.so.1 \
  /usr/local/cuda/compat/libcuda.so.1)}"
cublas="${FUSEC_LIBCUBLASLT:-$(loader libcublasLt.so.13)}"
cublas="${cublas:-$(first /usr/local/cuda/lib64/libcublasLt.so.13 \
  /usr/local/cuda/targets/x86_64-linux/lib/libcublasLt.so.13)}"
cublas="${cublas:-$(python_lib cublas 'libcublasLt.so.13*')}"
echo "== CUDA driver: ${libcuda:-not found}"
echo "== cuBLASLt:    ${cublas:-not found}"
[ -n "$libcuda" ] && export FUSEC_LIBCUDA="$libcuda"
[ -n "$cublas" ] && export FUSEC_LIBCUBLASLT="$cublas"

echo "== GPUs"
devices="$("$fusec_run" --devices)"
echo "$devices"
if [[ "$devices" != "GPU 0:"* ]]; then
  echo "error: no GPU to validate on (above: why); stopping before the GPU steps"
  exit 2
fi
if [ -x "$out/build/test/Unit/FusecRuntimeTests" ]; then
  echo "== runtime unit tests (the GPU ones included)"
  "$out/build/test/Unit/FusecRuntimeTests" --gtest_brief=1 || true
fi

echo "== correctness and benchmarks"
status=0
python3 "$bundle/src/bench/gpu/run.py" --bundle "$bundle" \
  --fusec-run "$fusec_run" --out "$out" || status=$?
echo "== done in $(( $(date +%s) - start )) s (results: $out/results.json)"
exit $status
