#!/usr/bin/env bash
# Builds the given test files (one translation unit) against the Thrust backend on its OpenMP
# host system, as symflow_thrust_tests does, and runs them: a quick loop while writing kernels.
#   scripts/thrust-quick-test.sh tests/ops/math_ops_test.cpp [...] [-- doctest arguments]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
files=()
while [[ $# -gt 0 && "$1" != "--" ]]; do files+=("$(realpath "$1")"); shift; done
[[ "${1:-}" == "--" ]] && shift
[[ ${#files[@]} -gt 0 ]] || { echo "usage: $0 TEST.cpp... [-- doctest args]" >&2; exit 2; }
thrust_dir="${SYMFLOW_THRUST_INCLUDE_DIR:-/usr/local/cuda/include/cccl}"
hash="$(printf '%s\n' "${files[@]}" | md5sum | cut -c1-10)"
work="/tmp/thrust_quick_${hash}"
mkdir -p "$work"
flags=(-std=c++20 -O1 -fopenmp -Wall -Wextra -Wpedantic -Wno-array-bounds -Wno-stringop-overflow
  -Wno-maybe-uninitialized -DSYMFLOW_THRUST -DTHRUST_DEVICE_SYSTEM=THRUST_DEVICE_SYSTEM_OMP
  "-DSYMFLOW_SOURCE_DIR=\"$root\"" "-DSYMFLOW_SHARED_DIR=\"$(realpath -m "$root/../shared")\""
  -isystem "$thrust_dir" -isystem /usr/include/eigen3 -I"$root/include" -I"$root/tests")
main_obj="/tmp/thrust_quick_main.o"
[[ -f "$main_obj" ]] || g++ "${flags[@]}" -c "$root/tests/main.cpp" -o "$main_obj"
{
  echo '#include "symflow/backend/thrust/define_backend.cuh"'  # the kernels, as CMake's library
  for f in "${files[@]}"; do echo "#include \"$f\""; done
} > "$work/unity.cpp"
g++ "${flags[@]}" -c "$work/unity.cpp" -o "$work/unity.o"
g++ -fopenmp "$work/unity.o" "$main_obj" -o "$work/t" -lz -lpthread
cd "$work" && OMP_NUM_THREADS=2 ./t "$@"
