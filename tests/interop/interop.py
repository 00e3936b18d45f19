"""make interop: symflow and real TensorFlow read each other's files.

Run by scripts/interop.sh as  python3 interop.py SYMFLOW_RUN WORK_DIR TRAINING_GRAPH_WRITER.
TensorFlow (tf.compat.v1, graph mode) builds models, writes them as binary and text
GraphDefs with its inputs and its own outputs as .npy files; symflow-run runs each file
and must give TensorFlow's outputs. Then symflow writes each graph back (symflow-run
--write-graph, binary), TensorFlow imports symflow's file, runs it and must get its own
outputs again. Exits non-zero, listing every mismatch, if anything differs.
"""
import os
import shutil
import subprocess
import sys

# tf.layers (batch_normalization, dropout) is Keras 2's: pip's tf_keras, which TensorFlow
# uses when this is set before it is imported.
os.environ.setdefault("TF_USE_LEGACY_KERAS", "1")

import numpy as np  # noqa: E402
import tensorflow.compat.v1 as tf  # noqa: E402
from tensorflow.core.protobuf import meta_graph_pb2  # noqa: E402
from tensorflow.python.framework import meta_graph  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mobilenet  # noqa: E402  (the frozen CNN make bench times too)

tf.disable_v2_behavior()

SYMFLOW_RUN, WORK = sys.argv[1], sys.argv[2]
TRAINING_GRAPH_WRITER = sys.argv[3] if len(sys.argv) > 3 else None
TOLERANCE = 1e-5
failures = []
checked = 0


def frozen(build):
    """A graph from build(), its variables (if any) folded into constants, as a
    GraphDef; plus the feeds and fetch names build() returns and TF's outputs."""
    g = tf.Graph()
    with g.as_default():
        feeds, fetches = build()
        with tf.Session(graph=g) as sess:
            sess.run(tf.global_variables_initializer())
            outputs = sess.run(fetches, {name: value for name, value in feeds.items()})
            graph_def = tf.graph_util.convert_variables_to_constants(
                sess, g.as_graph_def(), [f.split(":")[0] for f in fetches])
    return graph_def, feeds, fetches, outputs


def dense(x, units, name, activation=None):
    """tf.layers.dense as TF1 builds it (tf.layers needs Keras 2, which TF 2.16+ lacks)."""
    with tf.variable_scope(name):
        kernel = tf.get_variable("kernel", [x.shape[-1], units])
        bias = tf.get_variable("bias", [units], initializer=tf.random_normal_initializer())
        y = tf.nn.bias_add(tf.matmul(x, kernel), bias)
    return activation(y) if activation else y


def conv2d(x, filters, size, strides, name):
    with tf.variable_scope(name):
        kernel = tf.get_variable("kernel", [size, size, x.shape[-1], filters])
        bias = tf.get_variable("bias", [filters], initializer=tf.random_normal_initializer())
        y = tf.nn.conv2d(x, kernel, [1, strides, strides, 1], "SAME")
    return tf.nn.relu(tf.nn.bias_add(y, bias))


def mlp():
    rng = np.random.RandomState(1)
    x = tf.placeholder(tf.float32, [None, 8], name="x")
    h = dense(x, 16, "hidden", tf.nn.relu)
    logits = dense(h, 4, "logits")
    tf.nn.softmax(logits, name="probs")
    return {"x:0": rng.randn(5, 8).astype(np.float32)}, ["probs:0", "logits/BiasAdd:0"]


def cnn():
    rng = np.random.RandomState(2)
    x = tf.placeholder(tf.float32, [None, 12, 12, 3], name="images")
    c = conv2d(x, 8, 3, 2, "conv")
    p = tf.nn.max_pool(c, [1, 2, 2, 1], [1, 2, 2, 1], "VALID", name="pool")
    a = tf.nn.avg_pool(c, [1, 2, 2, 1], [1, 2, 2, 1], "SAME", name="avg")
    flat = tf.reshape(tf.concat([p, a[:, :3, :3, :]], axis=3), [-1, 3 * 3 * 16], name="flat")
    logits = dense(flat, 5, "fc")
    tf.nn.softmax(logits, name="scores")
    return {"images:0": rng.rand(2, 12, 12, 3).astype(np.float32)}, ["scores:0"]


def elementwise():
    rng = np.random.RandomState(3)
    a = tf.placeholder(tf.float32, [3, 4], name="a")
    b = tf.placeholder(tf.float32, [4], name="b")
    i = tf.placeholder(tf.int32, [3, 4], name="i")
    s = a + b                                  # AddV2
    t = tf.nn.leaky_relu(s, 0.2) * tf.sigmoid(a) - tf.tanh(b)
    u = tf.where_v2(a > 0.0, t, tf.squared_difference(a, b))
    v = tf.reduce_mean(u, axis=1, keepdims=True) + tf.reduce_max(u) - tf.reduce_sum(u, 0)
    w = tf.transpose(tf.expand_dims(v, 0), [1, 0, 2])[:, 0, 1:3]
    m = tf.floormod(i, 3) + tf.floordiv(i, -2) + tf.argmax(a, axis=1, output_type=tf.int32)[0]
    tf.identity(w, name="w")
    tf.identity(m, name="m")
    tf.identity(tf.cast(tf.tile(i[:1], [2, 1]), tf.float32) / 2.0, name="tiled")
    return ({"a:0": rng.randn(3, 4).astype(np.float32),
             "b:0": rng.randn(4).astype(np.float32),
             "i:0": rng.randint(-9, 9, size=(3, 4)).astype(np.int32)},
            ["w:0", "m:0", "tiled:0"])


def control_flow(seed):
    """tf.cond, nested, with a gradient through both, as TF1 builds them (control flow
    v1): Switch, Merge and the gradient's Switches and Merges. The predicates come from
    x, so each seed takes other branches."""
    def build():
        rng = np.random.RandomState(seed)
        x = tf.placeholder(tf.float32, [3, 4], name="x")
        total = tf.reduce_sum(x)
        y = tf.cond(total > 0.0, lambda: tf.nn.relu(x) * 2.0, lambda: x - 1.0, name="pos")
        z = tf.cond(total < 0.0, lambda: tf.square(x),
                    lambda: tf.cond(tf.reduce_max(x) > 1.0, lambda: x * 3.0,
                                    lambda: tf.tanh(x)), name="neg")
        grad = tf.gradients(y * z, x)[0]
        tf.identity(y + z, name="out")
        tf.identity(grad, name="grad")
        values = rng.randn(3, 4).astype(np.float32)
        return {"x:0": values}, ["out:0", "grad:0"]
    return build


def while_loops(seed):
    """tf.while_loop as TF1 builds it (control flow v1): an RNN-like loop reading a
    variable (frozen to a constant), a loop inside a loop with a cond inside it, and
    maximum_iterations; the gradient through the first two, and a gradient taken inside a
    loop's body. The iteration count is fed."""
    def build():
        rng = np.random.RandomState(seed)
        x = tf.placeholder(tf.float32, [3, 4], name="x")
        n = tf.placeholder(tf.int32, [], name="n")
        w = tf.get_variable("w", [4, 4],
                            initializer=tf.random_normal_initializer(stddev=0.5, seed=seed))
        _, h = tf.while_loop(lambda i, h: i < n,
                             lambda i, h: (i + 1, tf.tanh(tf.matmul(h, w) + x)),
                             [tf.constant(0), tf.zeros([3, 4])], name="rnn")

        def outer(i, acc):
            _, inner = tf.while_loop(
                lambda j, a: j < i,
                lambda j, a: (j + 1, a + tf.reduce_mean(x) * tf.cast(j, tf.float32)),
                [tf.constant(0), acc], name="inner")
            return i + 1, tf.cond(inner > 0.0, lambda: inner * 0.5, lambda: inner - 1.0)

        _, acc = tf.while_loop(lambda i, a: i < n, outer, [tf.constant(0), tf.constant(0.0)],
                               name="outer")
        capped = tf.while_loop(lambda v: tf.reduce_sum(v) < 1e9, lambda v: v * 1.5 + 0.1,
                               [tf.abs(x)], maximum_iterations=n, name="capped")
        # Through both loops, the nested one's backward loop inside the outer one's.
        grad = tf.gradients(acc * 2.0 + tf.reduce_sum(h), x)[0]

        # A gradient taken inside a loop's body: each iteration differentiates an inner
        # loop of its own, whose stack and backward loop live in that iteration.
        def differentiating(i, total):
            xi = x * (tf.cast(i, tf.float32) + 1.0) * 0.25
            _, p = tf.while_loop(lambda j, p: j <= i, lambda j, p: (j + 1, p * tf.tanh(xi)),
                                 [tf.constant(0), tf.ones([3, 4])], name="power")
            return i + 1, total + tf.gradients(tf.reduce_sum(p), xi)[0]

        _, inside = tf.while_loop(lambda i, t: i < n, differentiating,
                                  [tf.constant(0), tf.zeros([3, 4])], name="grad_inside")
        tf.identity(h, name="h")
        tf.identity(acc, name="acc")
        tf.identity(capped, name="capped_out")
        tf.identity(grad, name="grad")
        tf.identity(inside, name="grad_inside_out")
        feeds = {"x:0": rng.randn(3, 4).astype(np.float32), "n:0": np.int32(seed % 5 + 2)}
        return feeds, ["h:0", "acc:0", "capped_out:0", "grad:0", "grad_inside_out:0"]
    return build


def rnn(seed):
    """tf.nn.dynamic_rnn as TF1 builds it: a while loop over TensorArrays, an LSTM cell
    with sequence lengths (Select masks the finished steps) and a GRU cell, and the
    gradient of their outputs with respect to the inputs: the backward loop, its stacks
    and its gradient TensorArrays. Frozen, so the cells' variables are constants."""
    def build():
        rng = np.random.RandomState(seed)
        x = tf.placeholder(tf.float32, [2, 5, 3], name="x")
        lengths = tf.placeholder(tf.int32, [2], name="lengths")
        init = tf.random_normal_initializer(stddev=0.5, seed=seed)
        with tf.variable_scope("lstm", initializer=init):
            out, state = tf.nn.dynamic_rnn(tf.nn.rnn_cell.BasicLSTMCell(4), x,
                                           sequence_length=lengths, dtype=tf.float32)
        with tf.variable_scope("gru", initializer=init):
            out2, _ = tf.nn.dynamic_rnn(tf.nn.rnn_cell.GRUCell(3), x, dtype=tf.float32)
        grad = tf.gradients(tf.reduce_sum(out) + tf.reduce_sum(out2 * out2), x)[0]
        tf.identity(out, name="lstm_out")
        tf.identity(state.h, name="lstm_h")
        tf.identity(out2, name="gru_out")
        tf.identity(grad, name="grad")
        feeds = {"x:0": rng.randn(2, 5, 3).astype(np.float32),
                 "lengths:0": np.array([5, seed % 4 + 1], np.int32)}
        return feeds, ["lstm_out:0", "lstm_h:0", "gru_out:0", "grad:0"]
    return build


def training_switch(training):
    """tf.layers.dense, batch_normalization and dropout on a `training` placeholder, as a
    TF1 model is written for training and inference at once: both layers become conds on
    the placeholder. Dropout is fetched only when it is off (its mask is random)."""
    def build():
        x = tf.placeholder(tf.float32, [4, 3], name="x")
        is_training = tf.placeholder(tf.bool, [], name="training")
        h = tf.layers.dense(x, 5, activation=tf.nn.relu, name="dense",
                            kernel_initializer=tf.random_normal_initializer(seed=1))
        b = tf.layers.batch_normalization(h, training=is_training, name="bn")
        d = tf.layers.dropout(b, rate=0.5, training=is_training, seed=3, name="drop")
        tf.identity(b, name="normalized")
        tf.identity(d, name="dropped")
        feeds = {"x:0": np.random.RandomState(0).randn(4, 3).astype(np.float32),
                 "training:0": np.bool_(training)}
        return feeds, ["normalized:0"] + ([] if training else ["dropped:0"])
    return build


def strip_default_attrs(graph_def):
    """The GraphDef as export_meta_graph(strip_default_attrs=True) writes it."""
    m = meta_graph_pb2.MetaGraphDef()
    m.graph_def.CopyFrom(graph_def)
    meta_graph.strip_graph_default_valued_attrs(m)
    return m.graph_def


def compare(what, got, want):
    global checked
    checked += 1
    got, want = np.asarray(got), np.asarray(want)
    if got.shape != want.shape:
        failures.append(f"{what}: shape {got.shape}, TensorFlow {want.shape}")
    elif not np.allclose(got, want, rtol=TOLERANCE, atol=TOLERANCE):
        failures.append(f"{what}: max difference {np.max(np.abs(got - want))}")


def run_symflow(model, feeds, fetches, folder, extra=()):
    args = [SYMFLOW_RUN, model]
    for name, value in feeds.items():
        path = os.path.join(folder, name.replace(":", "_") + ".npy")
        np.save(path, value)
        args += ["--feed", f"{name}={path}"]
    outs = []
    for name in fetches:
        path = os.path.join(folder, "out_" + name.replace(":", "_").replace("/", "_") + ".npy")
        outs.append(path)
        args += ["--fetch", f"{name}={path}"]
    args += list(extra)
    done = subprocess.run(args, capture_output=True, text=True)
    if done.returncode != 0:
        failures.append(f"symflow-run {os.path.basename(model)}: exit {done.returncode}: "
                        f"{done.stderr.strip()}")
        return None
    return [np.load(p) for p in outs]


def run_tf(graph_def, feeds, fetches):
    g = tf.Graph()
    with g.as_default():
        tf.import_graph_def(graph_def, name="")
        with tf.Session(graph=g) as sess:
            return sess.run(fetches, feeds)


def check_checkpoints(folder):
    """TensorFlow's Saver writes a V2 checkpoint (a partitioned variable among the
    others); symflow reads every tensor, and restores the variables of TensorFlow's
    unfrozen GraphDef from it, running to TensorFlow's outputs."""
    os.makedirs(folder, exist_ok=True)
    g = tf.Graph()
    with g.as_default():
        feeds, fetches = mlp()
        parts = tf.get_variable("partitioned", [7, 3],
                                partitioner=tf.fixed_size_partitioner(3))
        counter = tf.get_variable("counter", [], tf.int64, tf.constant_initializer(42))
        # The GraphDef before the Saver: the Saver's own ops take string tensors.
        tf.io.write_graph(g.as_graph_def(), folder, "mlp_vars.pbtxt", as_text=True)
        saver = tf.train.Saver()
        with tf.Session(graph=g) as sess:
            sess.run(tf.global_variables_initializer())
            prefix = saver.save(sess, os.path.join(folder, "model.ckpt"), global_step=3)
            want = sess.run(fetches, feeds)
            whole = sess.run(tf.concat(list(parts), axis=0))
            kernel, count = sess.run([g.get_tensor_by_name("hidden/kernel:0"), counter])
    # Read from the folder: its `checkpoint` state file names the prefix.
    for name, value in [("partitioned", whole), ("hidden/kernel", kernel), ("counter", count)]:
        out = os.path.join(folder, name.replace("/", "_") + ".npy")
        done = subprocess.run([SYMFLOW_RUN, "--checkpoint", folder, "--fetch", f"{name}={out}"],
                              capture_output=True, text=True)
        if done.returncode != 0:
            failures.append(f"symflow-run --checkpoint: {done.stderr.strip()}")
            continue
        compare(f"symflow reading TF's checkpoint, tensor {name}", np.load(out), value)
    got = run_symflow(os.path.join(folder, "mlp_vars.pbtxt"), feeds, fetches, folder,
                      ["--checkpoint", prefix])
    if got is not None:
        for fetch, g_, w in zip(fetches, got, want):
            compare(f"symflow on TF's unfrozen graph restored from TF's checkpoint, {fetch}",
                    g_, w)


def check_saver_graph(folder):
    """TensorFlow's whole graph, Saver ops included (SaveV2, RestoreV2 and a string
    variable), and its checkpoint: symflow runs the Saver's restore op with the prefix
    fed, gets TensorFlow's outputs, then runs the Saver's save op; TensorFlow reads the
    checkpoint symflow wrote and finds its own values."""
    os.makedirs(folder, exist_ok=True)
    g = tf.Graph()
    with g.as_default():
        feeds, fetches = mlp()
        note = tf.Variable(b"trained \xff", name="note")
        saver = tf.train.Saver()
        with tf.Session(graph=g) as sess:
            sess.run(tf.global_variables_initializer())
            prefix = saver.save(sess, os.path.join(folder, "model.ckpt"))
            want = sess.run(fetches, feeds)
        tf.io.write_graph(g.as_graph_def(), folder, "saver_graph.pb", as_text=False)
        filename = saver.saver_def.filename_tensor_name
        restore = saver.saver_def.restore_op_name
        save = saver.saver_def.save_tensor_name.split(":")[0]
    copy = os.path.join(folder, "by_symflow.ckpt")
    for suffix in (".index", ".data-00000-of-00001"):
        shutil.copyfile(prefix + suffix, copy + suffix)
    name_file = os.path.join(folder, "prefix.npy")
    np.save(name_file, np.array(copy.encode()))
    got = run_symflow(os.path.join(folder, "saver_graph.pb"), feeds, fetches, folder,
                      ["--feed", f"{filename}={name_file}", "--run", restore, "--run", save])
    if got is None:
        return
    for fetch, g_, w in zip(fetches, got, want):
        compare(f"symflow on TF's Saver graph after its restore op, {fetch}", g_, w)
    theirs, ours = tf.train.load_checkpoint(prefix), tf.train.load_checkpoint(copy)
    names = sorted(theirs.get_variable_to_shape_map())
    if sorted(ours.get_variable_to_shape_map()) != names:
        failures.append(f"TF reading symflow's checkpoint: tensors {sorted(ours.get_variable_to_shape_map())}, "
                        f"expected {names}")
        return
    for name in names:
        a, b = ours.get_tensor(name), theirs.get_tensor(name)
        if isinstance(b, bytes):
            global checked
            checked += 1
            if a != b:
                failures.append(f"TF reading symflow's checkpoint, {name}: {a!r}, expected {b!r}")
        else:
            compare(f"TF reading symflow's checkpoint, {name}", a, b)


def check_storage_dtypes(folder):
    """Variables of TensorFlow's other number types (int8 ... complex64) in TF's Saver
    graph: symflow runs the restore op on TF's checkpoint, casts each to float64 as TF
    does, runs the save op, and TF reads symflow's checkpoint bit for bit. The GraphDef
    symflow writes back keeps each Const's bits."""
    os.makedirs(folder, exist_ok=True)
    values = {"i8": (tf.int8, [-128, 5, 127]), "i16": (tf.int16, [-300, 7]),
              "u16": (tf.uint16, [65535, 3]), "u32": (tf.uint32, [4000000000, 1]),
              "u64": (tf.uint64, np.array([2**64 - 1, 2], np.uint64)),
              "f16": (tf.float16, [0.1, -2.5, 65504]), "bf16": (tf.bfloat16, [0.1, 3.0, -1e30]),
              "c64": (tf.complex64, [1 + 2j, -0.5j])}
    g = tf.Graph()
    with g.as_default():
        fetches = []
        for name, (dtype, value) in values.items():
            v = tf.Variable(tf.constant(value, dtype=dtype), name="v_" + name)
            c = tf.constant(value, dtype=dtype, name="c_" + name)
            # A plain Cast node (tf.cast would add a Real op for complex64): the real
            # part, as TF's Cast kernel keeps it.
            fetches.append(tf.raw_ops.Cast(x=v, DstT=tf.float64, name="f_" + name).name)
            fetches.append(tf.raw_ops.Cast(x=c, DstT=tf.float64, name="g_" + name).name)
        saver = tf.train.Saver()
        with tf.Session(graph=g) as sess:
            sess.run(tf.global_variables_initializer())
            prefix = saver.save(sess, os.path.join(folder, "model.ckpt"))
            want = sess.run(fetches)
        tf.io.write_graph(g.as_graph_def(), folder, "storage.pb", as_text=False)
        filename = saver.saver_def.filename_tensor_name
        restore = saver.saver_def.restore_op_name
        save = saver.saver_def.save_tensor_name.split(":")[0]
    copy = os.path.join(folder, "by_symflow.ckpt")
    name_file = os.path.join(folder, "prefix.npy")
    np.save(name_file, np.array(copy.encode()))
    for suffix in (".index", ".data-00000-of-00001"):
        shutil.copyfile(prefix + suffix, copy + suffix)
    written = os.path.join(folder, "symflow_storage.pb")
    got = run_symflow(os.path.join(folder, "storage.pb"), {}, fetches, folder,
                      ["--feed", f"{filename}={name_file}", "--run", restore, "--run", save,
                       "--write-graph", written])
    if got is None:
        return
    for fetch, g_, w in zip(fetches, got, want):
        compare(f"symflow on TF's storage-dtype graph, {fetch}", g_, w)
    theirs, ours = tf.train.load_checkpoint(prefix), tf.train.load_checkpoint(copy)
    global checked
    for name in sorted(theirs.get_variable_to_shape_map()):
        a, b = ours.get_tensor(name), theirs.get_tensor(name)
        checked += 1
        if a.dtype != b.dtype or a.shape != b.shape or a.tobytes() != b.tobytes():
            failures.append(f"TF reading symflow's checkpoint, {name}: {a!r}, expected {b!r}")
    back = tf.GraphDef()
    with open(written, "rb") as f:
        back.ParseFromString(f.read())
    consts = [f"c_{name}:0" for name in values]
    with tf.Graph().as_default() as g2:
        tf.import_graph_def(back, name="")
        with tf.Session(graph=g2) as sess:
            ours_c = sess.run(consts)
    with g.as_default(), tf.Session(graph=g) as sess:
        theirs_c = sess.run(consts)
    for name, a, b in zip(consts, ours_c, theirs_c):
        checked += 1
        if a.dtype != b.dtype or a.tobytes() != b.tobytes():
            failures.append(f"TF on symflow's GraphDef, {name}: {a!r}, expected {b!r}")


def training_model(use_resource):
    """A small regression model trained with Momentum (slot variables too), its
    variables resource variables when `use_resource`, as TF2's tf.compat.v1 makes them."""
    rng = np.random.RandomState(3)
    x = tf.placeholder(tf.float32, [None, 4], name="x")
    y = tf.placeholder(tf.float32, [None, 1], name="y")
    with tf.variable_scope("model", use_resource=use_resource):
        h = tf.layers.dense(x, 8, tf.nn.tanh, name="hidden")
        pred = tf.identity(tf.layers.dense(h, 1, name="out"), name="pred")
    loss = tf.reduce_mean(tf.square(pred - y), name="loss")
    tf.train.MomentumOptimizer(0.05, 0.9).minimize(loss, name="train")
    feeds = {"x:0": rng.randn(6, 4).astype(np.float32),
             "y:0": rng.randn(6, 1).astype(np.float32)}
    return x, pred, feeds


def check_saved_model_and_meta(folder, use_resource):
    """TensorFlow writes a SavedModel (binary and text) and a Saver checkpoint with its
    .meta: symflow serves the SavedModel's signature, and restores the .meta's graph,
    runs its train op 3 times and saves (symflow-run --save); TensorFlow imports the .meta
    symflow wrote, restores its checkpoint and finds the weights of its own 3 steps."""
    os.makedirs(folder, exist_ok=True)
    kind = "resource" if use_resource else "ref"
    g = tf.Graph()
    with g.as_default():
        x, pred, feeds = training_model(use_resource)
        saver = tf.train.Saver()
        with tf.Session(graph=g) as sess:
            sess.run(tf.global_variables_initializer())
            prefix = saver.save(sess, os.path.join(folder, "model.ckpt"))
            want_pred = sess.run(pred, feeds)
            for as_text in (False, True):
                export = os.path.join(folder, "saved_model_text" if as_text else "saved_model")
                shutil.rmtree(export, ignore_errors=True)
                g.clear_collection(tf.saved_model.MAIN_OP_KEY)  # one main op per export
                builder = tf.saved_model.Builder(export)
                signature = tf.saved_model.predict_signature_def({"x": x}, {"pred": pred})
                builder.add_meta_graph_and_variables(
                    sess, ["serve"], signature_def_map={"serving_default": signature},
                    main_op=tf.group(tf.no_op(), name="main_op"))
                builder.save(as_text=as_text)
                got = run_symflow(export, {"x": feeds["x:0"]}, ["pred"], folder,
                                  ["--signature", "serving_default"])
                if got is not None:
                    compare(f"symflow serving TF's {os.path.basename(export)} ({kind} variables)",
                            got[0], want_pred)
            for _ in range(3):
                sess.run("train", feeds)
            variables = sorted(tf.global_variables(), key=lambda v: v.op.name)
            want = dict(zip([v.op.name for v in variables],
                            sess.run([v.read_value() for v in variables])))
    out = os.path.join(folder, "by_symflow")
    done = subprocess.run([SYMFLOW_RUN, prefix + ".meta", "--checkpoint", prefix] +
                          [a for name, value in feeds.items() for a in
                           ("--feed", f"{name}={save_npy(folder, name, value)}")] +
                          ["--run", "train:3", "--save", out], capture_output=True, text=True)
    if done.returncode != 0:
        failures.append(f"symflow-run --save ({kind}): {done.stderr.strip()}")
        return
    g = tf.Graph()
    with g.as_default(), tf.Session(graph=g) as sess:
        tf.train.import_meta_graph(out + ".meta").restore(sess, out)
        for v in sorted(tf.global_variables(), key=lambda v: v.op.name):
            compare(f"TF restoring symflow's .meta and checkpoint after 3 steps ({kind}), "
                    f"{v.op.name}", sess.run(v.read_value()), want[v.op.name])


def check_symflow_training_graph(folder):
    """symflow builds a training graph (its gradients, with TensorFlow's GATE_OP tuples,
    and GradientDescent), saves it as TensorFlow's .meta and checkpoint and trains it 3
    steps itself (tests/interop/training_graph.cpp); TensorFlow imports the .meta,
    restores, runs the graph's train op 3 times and must reach symflow's weights, in each
    of 5 runs with default threading."""
    if TRAINING_GRAPH_WRITER is None:
        failures.append("no training graph writer given (third argument)")
        return
    os.makedirs(folder, exist_ok=True)
    prefix = os.path.join(folder, "model")
    done = subprocess.run([TRAINING_GRAPH_WRITER, prefix], capture_output=True, text=True)
    if done.returncode != 0:
        failures.append(f"training graph writer: {done.stderr.strip()}")
        return
    check_symflow_events(prefix + "_logs", done.stdout)
    x = np.arange(24, dtype=np.float32).reshape(6, 4) / np.float32(10) - np.float32(1)
    y = np.arange(6, dtype=np.float32).reshape(6, 1) / np.float32(6)
    after = tf.train.load_checkpoint(prefix + "_after")
    for run in range(5):
        g = tf.Graph()
        with g.as_default(), tf.Session(graph=g) as sess:
            tf.train.import_meta_graph(prefix + ".meta").restore(sess, prefix)
            train = tf.get_collection(tf.GraphKeys.TRAIN_OP)[0]
            for _ in range(3):
                sess.run(train, {"x:0": x, "y:0": y})
            for v in tf.global_variables():
                compare(f"TF training symflow's graph, run {run + 1}, {v.op.name}",
                        sess.run(v), after.get_tensor(v.op.name))


def check_symflow_events(logdir, stdout):
    """TensorFlow's summary_iterator reads the event file symflow's FileWriter wrote: the
    version event, the graph (a GraphDef TensorFlow parses, with the model's nodes), and
    per step the loss scalar (symflow's value) and w1's histogram."""
    files = [f for f in os.listdir(logdir) if f.startswith("events.out.tfevents.")]
    compare("event files in symflow's logdir", np.array(len(files)), np.array(1))
    if len(files) != 1:
        return
    events = list(tf.train.summary_iterator(os.path.join(logdir, files[0])))
    compare("first event is the file version", np.array(events[0].file_version == "brain.Event:2"),
            np.array(True))
    graphs = [e for e in events if e.graph_def]
    compare("one graph event", np.array(len(graphs)), np.array(1))
    if graphs:
        graph_def = tf.GraphDef()
        graph_def.ParseFromString(graphs[0].graph_def)
        names = {n.name for n in graph_def.node}
        compare("the graph event holds the model",
                np.array({"loss", "pred", "w1"} <= names), np.array(True))
    losses = {int(step): float(value) for _, step, value in
              (line.split() for line in stdout.splitlines() if line.startswith("loss "))}
    scalars = {e.step: v.simple_value for e in events if e.HasField("summary")
               for v in e.summary.value if v.tag == "train_loss"}
    histograms = {e.step: v.histo for e in events if e.HasField("summary")
                  for v in e.summary.value if v.tag == "w1_weights"}
    compare("summary steps", np.array(sorted(scalars)), np.array(sorted(losses)))
    for step, value in losses.items():
        compare(f"loss scalar at step {step}", np.float32(scalars.get(step, np.nan)),
                np.float32(value))
        histo = histograms.get(step)
        compare(f"w1 histogram at step {step} counts its 32 weights",
                np.array(histo.num if histo else -1), np.array(32.0))


def save_npy(folder, name, value):
    path = os.path.join(folder, name.replace(":", "_") + ".npy")
    np.save(path, value)
    return path


def main():
    os.makedirs(WORK, exist_ok=True)
    for name, build in [("mlp", mlp), ("cnn", cnn), ("elementwise", elementwise),
                        ("cond_a", control_flow(5)), ("cond_b", control_flow(11)),
                        ("while_a", while_loops(3)), ("while_b", while_loops(7)),
                        ("rnn_a", rnn(2)), ("rnn_b", rnn(5)),
                        ("layers_training", training_switch(True)),
                        ("layers_inference", training_switch(False)),
                        ("mobilenet", mobilenet.build)]:
        folder = os.path.join(WORK, name)
        os.makedirs(folder, exist_ok=True)
        graph_def, feeds, fetches, want = frozen(build)
        stripped = strip_default_attrs(graph_def)
        for graph, as_text, file in [(graph_def, False, name + ".pb"),
                                     (graph_def, True, name + ".pbtxt"),
                                     (stripped, False, name + "_stripped.pb")]:
            tf.io.write_graph(graph, folder, file, as_text=as_text)
            written = os.path.join(folder, "symflow_" + name + ".pb")
            got = run_symflow(os.path.join(folder, file), feeds, fetches, folder,
                              ["--write-graph", written])
            if got is None:
                continue
            for fetch, g, w in zip(fetches, got, want):
                compare(f"symflow on TF's {file}, {fetch}", g, w)
            # TensorFlow reads the GraphDef symflow wrote and gets its own outputs.
            back = tf.GraphDef()
            with open(written, "rb") as f:
                back.ParseFromString(f.read())
            for fetch, g, w in zip(fetches, run_tf(back, feeds, fetches), want):
                compare(f"TF on symflow's {os.path.basename(written)} (from {file}), {fetch}", g, w)
    check_checkpoints(os.path.join(WORK, "checkpoint"))
    check_saver_graph(os.path.join(WORK, "saver_graph"))
    check_storage_dtypes(os.path.join(WORK, "storage_dtypes"))
    check_saved_model_and_meta(os.path.join(WORK, "saved_model_ref"), use_resource=False)
    check_saved_model_and_meta(os.path.join(WORK, "saved_model_resource"), use_resource=True)
    check_symflow_training_graph(os.path.join(WORK, "symflow_training_graph"))
    print(f"interop: {checked} comparisons, {len(failures)} failures")
    for f in failures:
        print("  FAIL", f)
    return 1 if failures or checked == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
