#!/usr/bin/env bash
# Install symflow's build dependencies on Debian 12 (bookworm). Idempotent and quiet when
# everything is already there; apt-get runs only when a package is missing.
set -euo pipefail

packages=(
  build-essential
  cmake
  libeigen3-dev
  xtensor-dev
  xtl-dev
  libxsimd-dev
  nlohmann-json3-dev
  doctest-dev
  zlib1g-dev
  libsnappy-dev
  libre2-dev
  libpng-dev
  pkgconf
  dataset-fashion-mnist
  graphviz           # dot: tests/io/graph_dot_test.cpp renders the DOT output as SVG
  fonts-liberation2  # graphviz's fonts (only a Recommends; the script installs without them)
  libopenmpi-dev     # symflow::mpi (include/symflow/distributed/) and its mpi tests
  openmpi-bin        # mpirun for the mpi tests
)

if ! command -v dpkg-query >/dev/null 2>&1; then
  echo "install-deps: dpkg-query not found; this script supports Debian/Ubuntu only." >&2
  echo "install-deps: needed: ${packages[*]}" >&2
  exit 1
fi

missing=()
for pkg in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null || true)
  if [[ "$status" != "install ok installed" ]]; then
    missing+=("$pkg")
  fi
done

if ((${#missing[@]} == 0)); then
  exit 0
fi

if [[ $(id -u) -ne 0 ]]; then
  echo "install-deps: missing Debian packages: ${missing[*]}" >&2
  echo "install-deps: run as root (or: sudo apt-get install -y --no-install-recommends ${missing[*]})" >&2
  exit 1
fi

echo "install-deps: installing ${missing[*]}"
apt-get update
DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}"
