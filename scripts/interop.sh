#!/usr/bin/env bash
# make interop: symflow against real TensorFlow. Installs python3 and pip's tensorflow-cpu
# (and tf_keras, for tf.layers) when missing (as `make bench` does), builds symflow-run in
# $BUILD_DIR, and runs tests/interop/interop.py: TensorFlow writes models (binary, text
# and strip_default_attrs GraphDefs) that symflow runs, and reads back the GraphDefs
# symflow writes; every output must match TensorFlow's own. Then
# tests/interop/tensorboard_check.py loads a log directory symflow wrote with TensorBoard's
# own event loader and its HTTP server (pip's tensorboard, installed when missing).
set -euo pipefail
cd "$(dirname "$0")/.."

BUILD_DIR=${BUILD_DIR:-build}
JOBS=${JOBS:-$(nproc)}
PYTHON=${PYTHON:-python3}

if ! "$PYTHON" -c "import tensorflow" >/dev/null 2>&1; then
  if [[ $(id -u) -ne 0 && "$PYTHON" == python3 ]]; then
    echo "interop: $PYTHON cannot import tensorflow (pip install tensorflow-cpu, or set PYTHON)" >&2
    exit 1
  fi
  if ! command -v "$PYTHON" >/dev/null 2>&1 || ! "$PYTHON" -m pip --version >/dev/null 2>&1; then
    apt-get update
    DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends python3 python3-pip
  fi
  echo "interop: installing tensorflow-cpu with pip"
  # Debian 12's Python is "externally managed" (PEP 668); older pips do not know the flag.
  "$PYTHON" -m pip install --quiet --break-system-packages tensorflow-cpu ||
    "$PYTHON" -m pip install --quiet tensorflow-cpu
fi

# tf.layers for the models that use it: Keras 2 (tf_keras). --no-deps: it names the
# `tensorflow` package, which tensorflow-cpu provides under another name.
if ! "$PYTHON" -c "import tf_keras" >/dev/null 2>&1; then
  echo "interop: installing tf_keras with pip"
  "$PYTHON" -m pip install --quiet --no-deps --break-system-packages tf_keras ||
    "$PYTHON" -m pip install --quiet --no-deps tf_keras
fi

# TensorBoard, for tests/interop/tensorboard_check.py (pip's tensorflow-cpu lacks it).
if ! "$PYTHON" -c "import tensorboard" >/dev/null 2>&1; then
  echo "interop: installing tensorboard with pip"
  "$PYTHON" -m pip install --quiet --break-system-packages tensorboard ||
    "$PYTHON" -m pip install --quiet tensorboard
fi

cmake --build "$BUILD_DIR" --target symflow-run symflow_interop_training_graph \
  symflow_interop_write_summaries -j"$JOBS"
work=$(mktemp -d "${TMPDIR:-/tmp}/symflow-interop.XXXXXX")
trap 'rm -rf "$work"' EXIT
status=0
TF_CPP_MIN_LOG_LEVEL=2 "$PYTHON" tests/interop/interop.py "$BUILD_DIR/tools/symflow-run" "$work" \
  "$BUILD_DIR/tests/symflow_interop_training_graph" || status=1
TF_CPP_MIN_LOG_LEVEL=2 "$PYTHON" tests/interop/tensorboard_check.py \
  "$BUILD_DIR/tests/symflow_interop_write_summaries" "$work/tensorboard" || status=1
exit $status
