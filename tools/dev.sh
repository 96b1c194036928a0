#!/usr/bin/env bash
# Set up, build and run fusec on Debian 12 (with the CUDA toolkit, if any, in
# /usr/local/cuda). Idempotent: installs only the Debian packages that are
# missing, configures the build directory once, then rebuilds incrementally.
#
#   tools/dev.sh example   build, then run docs/examples/mlp.mlir (on the GPU
#                          if there is one, else the cpu device) and show
#                          its results
#   tools/dev.sh test      build, then run the whole test suite (lit tests and
#                          GoogleTest unit tests, with totals), then the
#                          sanitizer suite (below)
#   tools/dev.sh build     build only
#   tools/dev.sh sanitize  build with clang, ASan and UBSan (build-asan/), run
#                          the unit and lit suites there, then each fuzz
#                          target for FUSEC_FUZZ_SECONDS (default 60) seconds
#   tools/dev.sh fuzz [S]  the fuzz targets only, S seconds each (default 900:
#                          an hour for the four)
#
# Environment: FUSEC_BUILD_DIR (default: build/ in the repository),
# FUSEC_SANITIZE_BUILD_DIR (default: build-asan/), FUSEC_SANITIZE=0 skips the
# sanitizer suite in `test`.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${FUSEC_BUILD_DIR:-$root/build}"
sanitize_build="${FUSEC_SANITIZE_BUILD_DIR:-$root/build-asan}"
packages=(cmake ninja-build g++ python3 python3-numpy graphviz libgtest-dev
          libbenchmark-dev llvm-22-dev llvm-22-tools libmlir-22-dev
          mlir-22-tools libonnx-dev libprotobuf-dev python3-venv python3-dev
          libdnnl-dev)

install_missing_packages() {
  local missing=()
  for package in "${packages[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null |
        grep -q "install ok installed"; then
      missing+=("$package")
    fi
  done
  if [ "${#missing[@]}" -eq 0 ]; then
    return
  fi
  echo "== installing missing Debian packages: ${missing[*]}"
  local sudo=()
  if [ "$(id -u)" -ne 0 ]; then
    sudo=(sudo)
  fi
  "${sudo[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq \
    "${missing[@]}"
}

# The Python packages the tests and the Python bindings use that Debian
# does not ship in the versions they need (the ONNX node tests come with
# onnx==1.22.0; nanobind builds the fusec package, pytest tests it), in a
# virtual environment in the build directory, set up before CMake runs. When PyPI is unreachable,
# Debian's python3-onnx (onnx 1.12 with libonnx-testdata's 932 node tests)
# stands in: the node tests run on that older suite and the tests that need
# onnx's reference evaluator (onnx >= 1.13) are reported unsupported.
python_env() {
  local env="$build/python"
  if [ -x "$env/bin/python" ] &&
    "$env/bin/python" -c "import onnx, nanobind, pytest" 2>/dev/null; then
    return
  fi
  echo "== setting up $env (onnx==1.22.0, nanobind, pytest from PyPI)"
  mkdir -p "$build"
  if python3 -m venv "$env" &&
    "$env/bin/pip" install -q --disable-pip-version-check onnx==1.22.0 numpy \
      nanobind==2.9.2 pytest==9.2.0; then
    return
  fi
  echo "== warning: could not install onnx, nanobind and pytest from PyPI; falling back to Debian's python3-onnx and libonnx-testdata (the Python package is not built)"
  packages=(python3-onnx libonnx-testdata)
  install_missing_packages ||
    echo "== warning: no ONNX Python package; the ONNX tests will be unsupported"
}

build_fusec() {
  if [ ! -f "$build/build.ninja" ]; then
    echo "== configuring $build"
    cmake -G Ninja -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release
  fi
  echo "== building"
  cmake --build "$build"
}

# The sanitizer build: clang with ASan, UBSan (any report fatal) and
# libFuzzer's coverage; the fuzz targets of tools/fuzz; no Python package.
build_sanitized() {
  packages=(clang-22 libfuzzer-22-dev)
  install_missing_packages
  if [ ! -f "$sanitize_build/build.ninja" ]; then
    echo "== configuring $sanitize_build (clang-22, ASan, UBSan, libFuzzer)"
    cmake -G Ninja -S "$root" -B "$sanitize_build" -DCMAKE_BUILD_TYPE=Release \
      -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 \
      -DFUSEC_FUZZ=ON -DFUSEC_ENABLE_BENCHMARKS=OFF
  fi
  echo "== building $sanitize_build"
  cmake --build "$sanitize_build"
}

# Leaks are not checked: MLIR's and NVRTC's process-lifetime singletons
# would be reported.
sanitizer_env=(ASAN_OPTIONS=detect_leaks=0:abort_on_error=1:detect_odr_violation=0
               UBSAN_OPTIONS=print_stacktrace=1)

run_sanitized_suite() {
  echo "== the unit and lit suites under ASan and UBSan"
  env "${sanitizer_env[@]}" cmake --build "$sanitize_build" --target check-fusec
}

# Each target on its committed seeds (test/Fuzz/TARGET) plus what earlier
# runs found (build-asan/fuzz/TARGET), with its dictionary, for $1 seconds.
# A crash, a leak of the sanitizers' kind or a timeout stops the run with
# the input saved as build-asan/fuzz/crash-TARGET-*.
run_fuzzers() {
  local seconds="$1" status=0
  for target in npy fsx mlir onnx; do
    local work="$sanitize_build/fuzz/$target"
    mkdir -p "$work"
    echo "== fusec-fuzz-$target for $seconds s"
    if ! env "${sanitizer_env[@]}" "$sanitize_build/bin/fusec-fuzz-$target" \
        -max_total_time="$seconds" -timeout=30 -rss_limit_mb=4096 \
        -dict="$root/test/Fuzz/$target.dict" -print_final_stats=1 \
        -artifact_prefix="$sanitize_build/fuzz/crash-$target-" \
        "$work" "$root/test/Fuzz/$target" > "$work.log" 2>&1; then
      status=1
      tail -40 "$work.log"
    fi
    grep -E "stat::number_of_executed_units|stat::new_units_added" "$work.log" |
      sed "s/^/  $target: /" || true
  done
  return "$status"
}

run_example() {
  local ex="$root/docs/examples"
  local out="$build/example"
  # On the GPU when there is one (the report says which device ran), else
  # on the interpreter with a note saying why.
  echo "== fusec docs/examples/mlp.mlir --run --device-report"
  "$build/bin/fusec" "$ex/mlp.mlir" --run --device-report \
    --input="$ex/mlp/x.npy" --input="$ex/mlp/w1.npy" \
    --input="$ex/mlp/b1.npy" --input="$ex/mlp/w2.npy" \
    --input="$ex/mlp/b2.npy" --output-dir="$out"
  /usr/bin/python3 - "$out" <<'PY'
import sys
import numpy as np
np.set_printoptions(precision=3, suppress=True, linewidth=100)
out = sys.argv[1]
print("class probabilities (result0.npy):")
print(np.load(out + "/result0.npy"))
print("predicted classes (result1.npy):", np.load(out + "/result1.npy"))
PY
}

case "${1:-}" in
  example)
    install_missing_packages
    python_env
    build_fusec
    run_example
    ;;
  test)
    install_missing_packages
    python_env
    build_fusec
    cmake --build "$build" --target check-fusec
    if [ "${FUSEC_SANITIZE:-1}" != 0 ]; then
      build_sanitized
      run_sanitized_suite
      run_fuzzers "${FUSEC_FUZZ_SECONDS:-60}"
    fi
    ;;
  sanitize)
    build_sanitized
    run_sanitized_suite
    run_fuzzers "${FUSEC_FUZZ_SECONDS:-60}"
    ;;
  fuzz)
    build_sanitized
    run_fuzzers "${2:-900}"
    ;;
  build)
    install_missing_packages
    python_env
    build_fusec
    ;;
  *)
    sed -n '2,21p' "$0" | sed 's/^# \{0,1\}//'
    exit 2
    ;;
esac
