# symflow: the commands. `make demo` and `make test` work as the very first command on a fresh
# Debian 12 machine (as root): `deps` installs the missing Debian packages first.
#
#   make deps          install missing build dependencies (scripts/install-deps.sh)
#   make configure     cmake -S . -B build -DCMAKE_BUILD_TYPE=Release
#   make build         build everything (library checks, tests, examples)
#   make demo          build and run the main example: examples/fashion_mnist trains an MLP on
#                      Fashion-MNIST for DEMO_EPOCHS epochs (10), saving checkpoints, and
#                      examples/fashion_mnist_restore restores the newest one without the
#                      model's code and prints the same test accuracy
#   make test          build everything, then run all tests with ctest (the sanitizer builds
#                      and, without a GPU, the CUDA build are targets of their own, below)
#   make asan          the same in build-asan/ with AddressSanitizer + UBSan
#   make sanitize      the unit and fuzz-corpus tests under AddressSanitizer + UBSan
#                      (build-asan/), then make tsan
#   make tsan          the concurrent-run tests under ThreadSanitizer (build-tsan/)
#   make clang         build the library, tests and examples with clang (Debian 12's clang 14,
#                      installed when missing) in build-clang/, warnings as errors, and run
#                      the unit tests
#   make cuda-check    where nvcc is but no GPU: build the CUDA backend, the CUDA tests and
#                      examples/devices with nvcc (build-cuda/) and run the CUDA tests' no-GPU
#                      cases; where a GPU is, make test does all that already
#   make bench         install the benchmark peers (scripts/install-bench-deps.sh), build bench/
#                      in build-bench/ and run it: bench/RESULTS.md, bench/results.json
#   make interop       symflow against real TensorFlow (pip's tensorflow-cpu, installed when
#                      missing): each reads the other's GraphDefs (scripts/interop.sh)
#   make fuzz          build the libFuzzer programs of fuzz/ with clang in build-fuzz/ and run each
#                      for FUZZ_SECONDS (60) from its corpus (scripts/fuzz.sh)
#   make format        clang-format -i the C++ sources
#   make format-check  fail if a C++ source is not clang-formatted
#   make clean         remove the build directories (build, build-asan, build-tsan, build-cuda,
#                      build-clang, build-bench, build-fuzz)

SHELL := /bin/bash

CMAKE        ?= cmake
CTEST        ?= ctest
CLANG_FORMAT ?= clang-format
BUILD_TYPE   ?= Release
BUILD_DIR    ?= build
ASAN_DIR     ?= build-asan
TSAN_DIR     ?= build-tsan
CUDA_DIR     ?= build-cuda
CLANG_DIR    ?= build-clang
JOBS         ?= $(shell nproc 2>/dev/null || echo 2)
# Most tests are short processes whose time goes to starting and waiting rather than to the
# CPU, so ctest runs twice as many side by side as there are cores (the unit tests on 2 cores:
# 39 s with -j2, 28 s with -j8).
CTEST_JOBS   ?= $(shell echo $$(( $(JOBS) * 2 )))
CMAKE_ARGS   ?=
CTEST_ARGS   ?=
DEMO_EPOCHS  ?= 10
FUZZ_SECONDS ?= 60

# cmake --build runs make again: keep its output free of "Entering directory" lines.
MAKEFLAGS    += --no-print-directory

FORMAT_DIRS   = $(wildcard include tests examples bench)
FORMAT_FILES  = $(if $(FORMAT_DIRS),$(shell find $(FORMAT_DIRS) -type f \
                  \( -name '*.hpp' -o -name '*.cpp' -o -name '*.cuh' -o -name '*.cu' \) | sort))

.PHONY: all deps configure build demo test asan asan-configure asan-build sanitize tsan \
        clang cuda-check bench fuzz interop format format-check clean

all: build

deps:
	@bash scripts/install-deps.sh

configure: deps
	$(CMAKE) -S . -B $(BUILD_DIR) -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) $(CMAKE_ARGS)

build: configure
	$(CMAKE) --build $(BUILD_DIR) -j$(JOBS)

# The demo is the whole story: train and save a checkpoint per epoch, then restore the newest
# one in a second program that has no model code, which prints the same test accuracy.
demo: configure
	$(CMAKE) --build $(BUILD_DIR) --target fashion_mnist fashion_mnist_restore -j$(JOBS)
	rm -rf $(BUILD_DIR)/demo && mkdir -p $(BUILD_DIR)/demo
	cd $(BUILD_DIR)/demo && ../examples/fashion_mnist --model mlp --epochs $(DEMO_EPOCHS) \
	  --save checkpoints
	cd $(BUILD_DIR)/demo && ../examples/fashion_mnist_restore --checkpoint-dir checkpoints

test: build
	$(CTEST) --test-dir $(BUILD_DIR) --output-on-failure -j$(CTEST_JOBS) $(CTEST_ARGS)

# Sanitizers: optimised (-O1) with line tables (-g1) and assertions on, so the tests stay fast.
asan-configure: deps
	$(CMAKE) -S . -B $(ASAN_DIR) -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	  '-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -g1' \
	  -DSYMFLOW_SANITIZE=address,undefined $(CMAKE_ARGS)

asan-build: asan-configure
	$(CMAKE) --build $(ASAN_DIR) -j$(JOBS)

interop: configure
	BUILD_DIR=$(BUILD_DIR) JOBS=$(JOBS) bash scripts/interop.sh

fuzz: deps
	FUZZ_SECONDS=$(FUZZ_SECONDS) JOBS=$(JOBS) CMAKE_ARGS="$(CMAKE_ARGS)" bash scripts/fuzz.sh

asan: asan-build
	ASAN_OPTIONS=detect_leaks=1:strict_string_checks=1:detect_stack_use_after_return=1 \
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	  $(CTEST) --test-dir $(ASAN_DIR) --output-on-failure -j$(JOBS) -LE package $(CTEST_ARGS)

# The sanitizers without the examples and package builds (whose code the tests cover): the
# test binary (its CPU and its Thrust cases) and the fuzz corpora's replayer under ASan +
# UBSan, then TSan.
sanitize: asan-configure
	$(CMAKE) --build $(ASAN_DIR) -j$(JOBS) --target symflow_tests symflow_fuzz_replay
	ASAN_OPTIONS=detect_leaks=1:strict_string_checks=1:detect_stack_use_after_return=1 \
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	  $(CTEST) --test-dir $(ASAN_DIR) --output-on-failure -j$(CTEST_JOBS) \
	    -L 'unit|fuzz|thrust' -E '^(native|allocation)/' $(CTEST_ARGS)
	$(MAKE) tsan

tsan: deps
	$(CMAKE) -S . -B $(TSAN_DIR) -DCMAKE_BUILD_TYPE=Release -DSYMFLOW_TSAN=ON \
	  -DSYMFLOW_BUILD_EXAMPLES=OFF -DSYMFLOW_BUILD_TOOLS=OFF $(CMAKE_ARGS)
	$(CMAKE) --build $(TSAN_DIR) -j$(JOBS) --target symflow_tsan_tests
	$(CTEST) --test-dir $(TSAN_DIR) --output-on-failure -L tsan $(CTEST_ARGS)

clang: deps
	@command -v clang++ >/dev/null || { \
	  if [ "$$(id -u)" -ne 0 ]; then echo "clang: needs clang++ (apt-get install clang)" >&2; exit 1; fi; \
	  apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends clang; }
	$(CMAKE) -S . -B $(CLANG_DIR) -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER=clang++ \
	  -DCMAKE_C_COMPILER=clang $(CMAKE_ARGS)
	$(CMAKE) --build $(CLANG_DIR) -j$(JOBS)
	$(CTEST) --test-dir $(CLANG_DIR) --output-on-failure -j$(CTEST_JOBS) -L unit $(CTEST_ARGS)

cuda-check: deps
	@if ! command -v nvcc >/dev/null && [ ! -x /usr/local/cuda/bin/nvcc ]; then \
	  echo "cuda-check: no nvcc (/usr/local/cuda/bin/nvcc): nothing to check"; exit 0; fi; \
	$(CMAKE) -S . -B $(CUDA_DIR) -DCMAKE_BUILD_TYPE=Release -DSYMFLOW_CUDA=ON \
	  -DSYMFLOW_BUILD_TOOLS=OFF $(CMAKE_ARGS) && \
	$(CMAKE) --build $(CUDA_DIR) -j$(JOBS) --target symflow_cuda_tests devices_cuda && \
	$(CTEST) --test-dir $(CUDA_DIR) --output-on-failure -L cuda $(CTEST_ARGS)

# Benchmarks (issue 7): symflow side by side with TensorFlow, LibTorch, OpenBLAS and
# hand-written Eigen. Release build of bench/ only; BENCH_ARGS go to bench/run.py
# (e.g. BENCH_ARGS='--repetitions 3' or BENCH_ARGS='--filter matmul').
BENCH_DIR    ?= build-bench
BENCH_ARGS   ?=

bench: deps
	@bash scripts/install-bench-deps.sh
	$(CMAKE) -S . -B $(BENCH_DIR) -DCMAKE_BUILD_TYPE=Release -DSYMFLOW_BUILD_BENCH=ON \
	  -DSYMFLOW_BUILD_TESTS=OFF -DSYMFLOW_BUILD_EXAMPLES=OFF -DSYMFLOW_INSTALL=OFF $(CMAKE_ARGS)
	$(CMAKE) --build $(BENCH_DIR) -j$(JOBS)
	python3 bench/run.py --build $(BENCH_DIR) $(BENCH_ARGS)

format:
	@if [ -n "$(FORMAT_FILES)" ]; then $(CLANG_FORMAT) -i $(FORMAT_FILES); fi

format-check:
	@if [ -n "$(FORMAT_FILES)" ]; then $(CLANG_FORMAT) --dry-run --Werror $(FORMAT_FILES); fi

clean:
	rm -rf $(BUILD_DIR) $(ASAN_DIR) $(TSAN_DIR) $(CUDA_DIR) $(CLANG_DIR) $(BENCH_DIR) build-fuzz
