#!/usr/bin/env python3
"""TensorFlow as a peer of symflow's benchmark suite (issue 7), run exactly as a TF1 user
runs it: tf.compat.v1 graph mode, placeholders, feed_dict and Session.run, with the
session's ConfigProto setting intra- and inter-op threads.

  overhead/tensorflow/10       10 chained scalar adds on a fed scalar, time per Session.run
  chain/tensorflow/1M,16M      ((a*b + c)*2 - a)/(b + 1) on fed float vectors
  matmul/tensorflow/N          tf.matmul of two fed NxN float matrices
  conv2d/tensorflow/32         tf.nn.conv2d, NHWC [32,32,32,16] * [3,3,16,32], SAME
  mlp_step/tensorflow/64,256   one GradientDescentOptimizer step of the 784-256-128-10 MLP
  epoch/tensorflow/60000       one Fashion-MNIST epoch of that MLP at batch 64
  while_loop/tensorflow/100000 tf.while_loop counting i < n by i + 1 (control flow v1), n fed
  while_rnn/tensorflow/1000    tf.while_loop of h = tanh(h W + b), [1,32] x [32,32], 1000 times
  rnn_step/tensorflow/32       that step once, in a straight line
  frozen_sru/tensorflow/1,64   the real frozen SRU GraphDef (549 nodes) at batch 1 and 64
  frozen_cnn/tensorflow/1,64   the frozen MobileNet-style CNN of tests/interop/mobilenet.py
  frozen_load/tensorflow/sru,cnn  read, import, Session, first run at batch 1

One thread count per process (--threads): TensorFlow sizes some of its thread pools once
per process, so two counts in one process would measure the first count twice. Times are
wall-clock (time.perf_counter): each repetition runs enough iterations to last --min-time
seconds and yields its mean; the median over --repetitions repetitions is reported in
nanoseconds, under the keys of bench/results.json, as JSON on stdout (or in --out).
"""

import argparse
import gzip
import json
import os
import statistics
import sys
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import numpy as np  # noqa: E402  (after the log level, which TensorFlow reads on import)
import tensorflow as tf  # noqa: E402

tf1 = tf.compat.v1

MLP = (784, 256, 128, 10)
LEARNING_RATE = 0.01
EPOCH_BATCH = 64
DATA_DIR = os.environ.get("SYMFLOW_BENCH_DATA", "/usr/share/datasets/fashion-mnist")


def config(threads):
    return tf1.ConfigProto(intra_op_parallelism_threads=threads,
                           inter_op_parallelism_threads=threads)


def measure(fn, repetitions, min_time, iterations=None):
    """Median over repetitions of the mean time of one call of fn, in ns."""
    fn()  # warm-up: builds the executor and caches, as Google Benchmark's first run does
    if iterations is None:
        iterations = 1
        while True:
            start = time.perf_counter()
            for _ in range(iterations):
                fn()
            elapsed = time.perf_counter() - start
            if elapsed >= min_time:
                break
            iterations = max(iterations * 2, int(iterations * min_time * 1.2 / max(elapsed, 1e-9)))
    samples = []
    for _ in range(repetitions):
        start = time.perf_counter()
        for _ in range(iterations):
            fn()
        samples.append((time.perf_counter() - start) / iterations * 1e9)
    return statistics.median(samples), samples


def rng_floats(n, seed, lo=0.0, hi=1.0):
    return np.random.default_rng(seed).uniform(lo, hi, n).astype(np.float32)


def bench_overhead(threads, reps, min_time):
    g = tf.Graph()
    with g.as_default():
        x = tf1.placeholder(tf.float32, [], name="x")
        y = x
        for _ in range(10):
            y = y + 1.0
        with tf1.Session(graph=g, config=config(threads)) as sess:
            assert sess.run(y, {x: 1.0}) == 11.0
            yield "overhead/tensorflow/10", measure(lambda: sess.run(y, {x: 1.0}), reps, min_time)


def bench_chain(threads, reps, min_time):
    for n, label in ((1 << 20, "1M"), (1 << 24, "16M")):
        g = tf.Graph()
        with g.as_default():
            a, b, c = (tf1.placeholder(tf.float32, [None], name=s) for s in "abc")
            y = ((a * b + c) * 2 - a) / (b + 1)
            feeds = {a: rng_floats(n, 1), b: rng_floats(n, 2), c: rng_floats(n, 3)}
            with tf1.Session(graph=g, config=config(threads)) as sess:
                yield (f"chain/tensorflow/{label}",
                       measure(lambda: sess.run(y, feeds), reps, min_time))


def bench_matmul(threads, reps, min_time):
    for n in (64, 256, 512, 1024):
        g = tf.Graph()
        with g.as_default():
            a = tf1.placeholder(tf.float32, [n, n], name="a")
            b = tf1.placeholder(tf.float32, [n, n], name="b")
            y = tf.matmul(a, b)
            feeds = {a: rng_floats(n * n, 1).reshape(n, n), b: rng_floats(n * n, 2).reshape(n, n)}
            with tf1.Session(graph=g, config=config(threads)) as sess:
                yield f"matmul/tensorflow/{n}", measure(lambda: sess.run(y, feeds), reps, min_time)


def bench_conv2d(threads, reps, min_time):
    g = tf.Graph()
    with g.as_default():
        x = tf1.placeholder(tf.float32, [32, 32, 32, 16], name="x")
        w = tf1.placeholder(tf.float32, [3, 3, 16, 32], name="w")
        y = tf.nn.conv2d(x, w, [1, 1, 1, 1], "SAME")
        feeds = {x: rng_floats(32 * 32 * 32 * 16, 1).reshape(32, 32, 32, 16),
                 w: rng_floats(3 * 3 * 16 * 32, 2, -0.1, 0.1).reshape(3, 3, 16, 32)}
        with tf1.Session(graph=g, config=config(threads)) as sess:
            yield "conv2d/tensorflow/32", measure(lambda: sess.run(y, feeds), reps, min_time)


def bench_branches(threads, reps, min_time):
    n = 256
    g = tf.Graph()
    with g.as_default():
        x = tf1.placeholder(tf.float32, [n, n], name="x")
        total = None
        for k in range(4):
            w = tf.constant(rng_floats(n * n, 10 + k, -0.1, 0.1).reshape(n, n))
            y = tf.reduce_sum(tf.nn.relu(tf.matmul(x, w)))
            total = y if total is None else total + y
        feeds = {x: rng_floats(n * n, 1).reshape(n, n)}
        with tf1.Session(graph=g, config=config(threads)) as sess:
            yield f"branches/tensorflow/{n}", measure(lambda: sess.run(total, feeds), reps, min_time)


def build_mlp():
    """The MLP as tf.layers.dense builds it: Glorot-uniform kernels, zero biases."""
    tf1.set_random_seed(1)
    images = tf1.placeholder(tf.float32, [None, MLP[0]], name="images")
    labels = tf1.placeholder(tf.int32, [None], name="labels")
    h = images
    for i, (fan_in, fan_out) in enumerate(zip(MLP, MLP[1:])):
        with tf1.variable_scope("dense" if i == 0 else f"dense_{i}"):
            w = tf1.get_variable("kernel", [fan_in, fan_out],
                                 initializer=tf1.glorot_uniform_initializer())
            b = tf1.get_variable("bias", [fan_out], initializer=tf1.zeros_initializer())
            h = tf.matmul(h, w) + b
            if i < len(MLP) - 2:
                h = tf.nn.relu(h)
    loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=h))
    train_op = tf1.train.GradientDescentOptimizer(LEARNING_RATE).minimize(loss)
    return images, labels, loss, train_op


def bench_mlp_step(threads, reps, min_time):
    for batch in (64, 256):
        g = tf.Graph()
        with g.as_default():
            images, labels, _, train_op = build_mlp()
            feeds = {images: rng_floats(batch * MLP[0], 1).reshape(batch, MLP[0]),
                     labels: np.random.default_rng(2).integers(0, 10, batch).astype(np.int32)}
            with tf1.Session(graph=g, config=config(threads)) as sess:
                sess.run(tf1.global_variables_initializer())
                yield (f"mlp_step/tensorflow/{batch}",
                       measure(lambda: sess.run(train_op, feeds), reps, min_time))


def read_idx_gz(path, magic):
    with gzip.open(path, "rb") as f:
        raw = f.read()
    if int.from_bytes(raw[0:4], "big") != magic:
        raise ValueError(f"{path}: not an IDX file with magic {magic:#x}")
    rank = raw[3]
    dims = [int.from_bytes(raw[4 + 4 * i:8 + 4 * i], "big") for i in range(rank)]
    return np.frombuffer(raw, np.uint8, offset=4 + 4 * rank).reshape(dims)


def fashion_mnist():
    images = read_idx_gz(f"{DATA_DIR}/train-images-idx3-ubyte.gz", 0x803)
    labels = read_idx_gz(f"{DATA_DIR}/train-labels-idx1-ubyte.gz", 0x801)
    order = np.random.default_rng(1).permutation(len(labels))
    images = (images.reshape(len(labels), -1)[order].astype(np.float32) / 255.0)
    return np.ascontiguousarray(images), labels[order].astype(np.int32)


def bench_epoch(threads, reps, _min_time):
    data, targets = fashion_mnist()
    n = len(targets)
    g = tf.Graph()
    with g.as_default():
        images, labels, loss, train_op = build_mlp()
        with tf1.Session(graph=g, config=config(threads)) as sess:
            sess.run(tf1.global_variables_initializer())

            def one_epoch():
                for b in range(0, n, EPOCH_BATCH):
                    e = min(n, b + EPOCH_BATCH)
                    sess.run([loss, train_op], {images: data[b:e], labels: targets[b:e]})

            yield "epoch/tensorflow/60000", measure(one_epoch, reps, 0, iterations=1)


def bench_while_loop(threads, reps, min_time):
    n = 100000
    g = tf.Graph()
    with g.as_default():
        limit = tf1.placeholder(tf.int32, [], name="n")
        r = tf1.while_loop(lambda i: i < limit, lambda i: i + 1, [tf.constant(0)])
        with tf1.Session(graph=g, config=config(threads)) as sess:
            assert sess.run(r, {limit: n}) == n
            yield (f"while_loop/tensorflow/{n}",
                   measure(lambda: sess.run(r, {limit: n}), reps, min_time))


def rnn_weights():
    rng = np.random.default_rng(7)
    w = rng.uniform(-0.3, 0.3, (32, 32)).astype(np.float32)
    b = rng.uniform(-0.1, 0.1, (32,)).astype(np.float32)
    h0 = rng.uniform(0.0, 1.0, (1, 32)).astype(np.float32)
    return w, b, h0


def bench_while_rnn(threads, reps, min_time):
    n = 1000
    w, b, h0_value = rnn_weights()
    g = tf.Graph()
    with g.as_default():
        h0 = tf1.placeholder(tf.float32, [1, 32], name="h0")
        i, h = tf1.while_loop(lambda i, h: i < n,
                              lambda i, h: (i + 1, tf.tanh(tf.matmul(h, w) + b)),
                              [tf.constant(0), h0])
        with tf1.Session(graph=g, config=config(threads)) as sess:
            assert sess.run(i, {h0: h0_value}) == n
            yield (f"while_rnn/tensorflow/{n}",
                   measure(lambda: sess.run(h, {h0: h0_value}), reps, min_time))


def bench_rnn_step(threads, reps, min_time):
    w, b, h0_value = rnn_weights()
    g = tf.Graph()
    with g.as_default():
        h = tf1.placeholder(tf.float32, [1, 32], name="h")
        nxt = tf.tanh(tf.matmul(h, w) + b)
        with tf1.Session(graph=g, config=config(threads)) as sess:
            yield "rnn_step/tensorflow/32", measure(lambda: sess.run(nxt, {h: h0_value}), reps,
                                                    min_time)


# The input hello_tf_c_api feeds the SRU fixture ([1, 5, 12]); a batch repeats it.
SRU_INPUT = (
    -0.4809832, -0.3770838, 0.1743573, 0.7720509, -0.4064746, 0.0116595, 0.0051413, 0.9135732,
    0.7197526, -0.0400658, 0.1180671, -0.6829428, -0.4810135, -0.3772099, 0.1745346, 0.7719303,
    -0.4066443, 0.0114614, 0.0051195, 0.9135003, 0.7196983, -0.0400035, 0.1178188, -0.6830465,
    -0.4809143, -0.3773398, 0.1746384, 0.7719052, -0.4067171, 0.0111654, 0.0054433, 0.9134697,
    0.7192584, -0.0399981, 0.1177435, -0.6835230, -0.4808300, -0.3774327, 0.1748246, 0.7718700,
    -0.4070232, 0.0109549, 0.0059128, 0.9133330, 0.7188759, -0.0398740, 0.1181437, -0.6838635,
    -0.4807833, -0.3775733, 0.1748378, 0.7718275, -0.4073670, 0.0107582, 0.0062978, 0.9131795,
    0.7187147, -0.0394935, 0.1184392, -0.6840039)


def frozen_models():
    """The frozen GraphDefs of frozen_sru, frozen_cnn and frozen_load, as run.py names them
    (SYMFLOW_BENCH_SRU, SYMFLOW_BENCH_CNN), with the input and output names and the input
    of a batch: the SRU fixture's input repeated, and mobilenet.images."""
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests",
                                    "interop"))
    import mobilenet  # noqa: E402
    models = {
        "sru": ("SYMFLOW_BENCH_SRU", "input_4:0", "output_node0:0",
                lambda b: np.tile(np.array(SRU_INPUT, np.float32).reshape(1, 5, 12), (b, 1, 1))),
        "cnn": ("SYMFLOW_BENCH_CNN", "images:0", "probabilities:0", mobilenet.images),
    }
    return {name: (os.environ[var], *rest) for name, (var, *rest) in models.items()
            if var in os.environ}


def load_frozen(path):
    graph_def = tf1.GraphDef()
    with open(path, "rb") as f:
        graph_def.ParseFromString(f.read())
    return graph_def


def bench_frozen(model, threads, reps, min_time):
    if model not in frozen_models():
        return
    path, input_name, output_name, inputs = frozen_models()[model]
    g = tf.Graph()
    with g.as_default():
        tf1.import_graph_def(load_frozen(path), name="")
        with tf1.Session(graph=g, config=config(threads)) as sess:
            for batch in (1, 64):
                feeds = {input_name: inputs(batch)}
                yield (f"frozen_{model}/tensorflow/{batch}",
                       measure(lambda: sess.run(output_name, feeds), reps, min_time))


def bench_frozen_load(threads, reps, min_time):
    """Load and first run, as a program that serves one request does: read the file,
    import it, make a session, run batch 1."""
    for model, (path, input_name, output_name, inputs) in frozen_models().items():
        feeds = {input_name: inputs(1)}

        def load_and_run():
            g = tf.Graph()
            with g.as_default():
                tf1.import_graph_def(load_frozen(path), name="")
                with tf1.Session(graph=g, config=config(threads)) as sess:
                    sess.run(output_name, feeds)

        yield f"frozen_load/tensorflow/{model}", measure(load_and_run, reps, min_time)


WORKLOADS = {
    "overhead": bench_overhead,
    "chain": bench_chain,
    "matmul": bench_matmul,
    "conv2d": bench_conv2d,
    "branches": bench_branches,
    "mlp_step": bench_mlp_step,
    "epoch": bench_epoch,
    "while_loop": bench_while_loop,
    "while_rnn": bench_while_rnn,
    "rnn_step": bench_rnn_step,
    "frozen_sru": lambda *a: bench_frozen("sru", *a),
    "frozen_cnn": lambda *a: bench_frozen("cnn", *a),
    "frozen_load": bench_frozen_load,
}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--repetitions", type=int, default=5)
    parser.add_argument("--epoch-repetitions", type=int, default=3)
    parser.add_argument("--min-time", type=float, default=0.3,
                        help="seconds each repetition lasts at least")
    parser.add_argument("--workloads", default=",".join(WORKLOADS),
                        help="comma-separated subset of " + ",".join(WORKLOADS))
    parser.add_argument("--out", help="write the JSON here instead of stdout")
    args = parser.parse_args()

    tf1.disable_eager_execution()
    tf1.disable_control_flow_v2()  # TF1's while loops: Enter, Merge, Switch, ... in the graph
    results = {"context": {"tensorflow": tf.__version__, "threads": args.threads,
                           "onednn": os.environ.get("TF_ENABLE_ONEDNN_OPTS", "default")},
               "medians": {}, "samples": {}}
    for name in args.workloads.split(","):
        if name not in WORKLOADS:
            parser.error(f"unknown workload {name!r}")
        reps = args.epoch_repetitions if name == "epoch" else args.repetitions
        for key, (median, samples) in WORKLOADS[name](args.threads, reps, args.min_time):
            key = f"{key}/{args.threads}"
            results["medians"][key] = median
            results["samples"][key] = samples
            print(f"tf_peer: {key}: {median / 1e3:.1f} us", file=sys.stderr, flush=True)
    text = json.dumps(results, indent=1)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text + "\n")
    else:
        print(text)


if __name__ == "__main__":
    main()
