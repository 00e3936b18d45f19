#!/usr/bin/env bash
# Install the benchmark peers of bench/ on Debian 12 (bookworm): Google Benchmark, OpenBLAS,
# LibTorch 1.13 (the PyTorch C++ API) from Debian, and TensorFlow (pip's tensorflow-cpu) for
# bench/tf_peer.py. Idempotent and quiet when everything is already there: apt-get runs only
# when a package is missing, pip only when `import tensorflow` fails.
set -euo pipefail

packages=(
  libbenchmark-dev
  libopenblas-dev
  libtorch-dev
  python3
  python3-pip
)

if ! command -v dpkg-query >/dev/null 2>&1; then
  echo "install-bench-deps: dpkg-query not found; this script supports Debian/Ubuntu only." >&2
  echo "install-bench-deps: needed: ${packages[*]} and pip's tensorflow-cpu" >&2
  exit 1
fi

missing=()
for pkg in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null || true)
  if [[ "$status" != "install ok installed" ]]; then
    missing+=("$pkg")
  fi
done

need_tf=0
if ! python3 -c "import tensorflow" >/dev/null 2>&1; then
  need_tf=1
fi

if ((${#missing[@]} == 0 && need_tf == 0)); then
  exit 0
fi

if [[ $(id -u) -ne 0 ]]; then
  if ((${#missing[@]} > 0)); then
    echo "install-bench-deps: missing Debian packages: ${missing[*]}" >&2
    echo "install-bench-deps: run as root (or: sudo apt-get install -y --no-install-recommends ${missing[*]})" >&2
  fi
  if ((need_tf)); then
    echo "install-bench-deps: python3 cannot import tensorflow (pip install tensorflow-cpu)" >&2
  fi
  exit 1
fi

if ((${#missing[@]} > 0)); then
  echo "install-bench-deps: installing ${missing[*]}"
  apt-get update
  DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}"
fi

if ((need_tf)); then
  echo "install-bench-deps: installing tensorflow-cpu with pip"
  # Debian 12's Python is "externally managed" (PEP 668); older pips do not know the flag.
  if ! python3 -m pip install --quiet --break-system-packages tensorflow-cpu; then
    python3 -m pip install --quiet tensorflow-cpu
  fi
  python3 -c "import tensorflow" >/dev/null
fi
