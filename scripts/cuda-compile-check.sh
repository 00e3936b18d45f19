#!/usr/bin/env bash
# Compiles headers (or .cu files) of the Thrust backend with nvcc for CUDA, without running
# anything: a CUDA build break shows here on a machine with no GPU.
#   scripts/cuda-compile-check.sh include/symflow/backend/thrust/kernels_nn.cuh [...]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
nvcc="${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}"
work="$(mktemp -d /tmp/cuda_check.XXXXXX)"
trap 'rm -rf "$work"' EXIT
{
  echo '#include <symflow/backend/thrust/define_backend.cuh>'
  echo '#include <symflow/symflow.hpp>'
  for f in "$@"; do echo "#include \"$(realpath "$f")\""; done
  echo 'int main() { return symflow::thrust_backend::all_kernels().empty() ? 1 : 0; }'
} > "$work/check.cu"
"$nvcc" -std=c++20 -O1 -arch=sm_90 --expt-relaxed-constexpr --extended-lambda \
  -diag-suppress=20012,20013,20015,68 -DSYMFLOW_THRUST -I"$root/include" -isystem /usr/include/eigen3 \
  -c "$work/check.cu" -o "$work/check.o"
echo "cuda-compile-check: OK ($*)"
