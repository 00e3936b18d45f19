#!/usr/bin/env bash
# make fuzz: builds the libFuzzer programs of fuzz/*_fuzzer.cpp with clang (ASan + UBSan) in
# $FUZZ_DIR and runs each for $FUZZ_SECONDS, starting from its regression corpus
# (fuzz/corpus/<target>) and the real files under ../shared/fixtures. New inputs go to
# $FUZZ_DIR/corpus/<target>; an input that finds a bug is written to fuzz/findings/<target>/
# and stops the run: minimise it, fix the bug, and add it to fuzz/corpus/<target>.
set -euo pipefail
cd "$(dirname "$0")/.."

FUZZ_DIR=${FUZZ_DIR:-build-fuzz}
FUZZ_SECONDS=${FUZZ_SECONDS:-60}
JOBS=${JOBS:-$(nproc)}
SHARED=${SYMFLOW_SHARED_DIR:-../shared}

# clang with libFuzzer's runtime: Debian's clang and libclang-rt-dev (clang 14 on Debian 12).
if ! command -v clang++ >/dev/null || ! dpkg-query -W -f='${Status}' libclang-rt-14-dev 2>/dev/null |
    grep -q "install ok installed"; then
  if [[ $(id -u) -ne 0 ]]; then
    echo "fuzz: needs clang and libclang-rt-14-dev (sudo apt-get install clang libclang-rt-14-dev)" >&2
    exit 1
  fi
  apt-get update
  DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends clang libclang-rt-14-dev
fi

cmake -S . -B "$FUZZ_DIR" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_COMPILER=clang++ -DSYMFLOW_FUZZ=ON -DSYMFLOW_BUILD_EXAMPLES=OFF \
  -DSYMFLOW_INSTALL=OFF -DSYMFLOW_CUDA=OFF -DSYMFLOW_THRUST=OFF ${CMAKE_ARGS:-}

targets=()
for src in fuzz/*_fuzzer.cpp; do targets+=("$(basename "$src" .cpp)"); done
cmake --build "$FUZZ_DIR" --target "${targets[@]}" -j"$JOBS"

# The real files a target starts from, besides its corpus.
seeds() {
  case "$1" in
    graph_def) echo "$SHARED/fixtures/tf/tf1_small_graphdefs $SHARED/fixtures/tf/tf2_frozen_dense_graphdef" ;;
    tf_checkpoint_index)
      echo "$SHARED/fixtures/tf/tf1_half_plus_two_ckpt $SHARED/fixtures/tf/tf1_half_plus_two_savedmodel/variables $SHARED/fixtures/tf/tf1_mnist_mlp_ckpt/checkpoint" ;;
    tf_string_tensor) ;;  # its corpus folder holds the seeds
  esac
}

for t in "${targets[@]}"; do
  name=${t%_fuzzer}
  work="$FUZZ_DIR/corpus/$name"
  mkdir -p "$work" "fuzz/findings/$name"
  seed_dirs=()
  for d in fuzz/corpus/"$name" $(seeds "$name"); do [[ -d "$d" ]] && seed_dirs+=("$d"); done
  echo "fuzz: $name for ${FUZZ_SECONDS}s"
  "$FUZZ_DIR/tests/fuzz/$t" -max_total_time="$FUZZ_SECONDS" -max_len=65536 \
    -artifact_prefix="fuzz/findings/$name/" -print_final_stats=1 "$work" "${seed_dirs[@]}"
done
