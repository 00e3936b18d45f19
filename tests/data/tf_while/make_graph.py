# Writes graph.pbtxt: while loops as TensorFlow 1.x builds them (tf.compat.v1 graph mode,
# control flow v1): two loop variables and a tensor from outside, a nested loop, a cond
# inside a loop, a loop inside a cond, and maximum_iterations.
# tests/io/tf_while_import_test.cpp imports it and checks the values this script prints.
# Run with pip's tensorflow-cpu.
import tensorflow.compat.v1 as tf

tf.disable_eager_execution()
tf.disable_control_flow_v2()

x = tf.placeholder(tf.float32, shape=[2], name="x")
n = tf.placeholder(tf.int32, shape=[], name="n")
p = tf.placeholder(tf.bool, shape=[], name="p")

# acc <- acc * x + 1, n times.
_, acc = tf.while_loop(lambda i, a: i < n, lambda i, a: (i + 1, a * x + 1.0),
                       [tf.constant(0), tf.ones([2])], name="power")
acc = tf.identity(acc, name="acc")


# sum over i < n of (the number of j < i): a loop inside a loop.
def outer_body(i, total):
    _, inner = tf.while_loop(lambda j, c: j < i, lambda j, c: (j + 1, c + 1),
                             [tf.constant(0), tf.constant(0)], name="inner")
    return i + 1, total + inner


_, pairs = tf.while_loop(lambda i, t: i < n, outer_body, [tf.constant(0), tf.constant(0)],
                         name="outer")
pairs = tf.identity(pairs, name="pairs")

# a cond inside a loop: + i for even i, - i for odd.
_, alternating = tf.while_loop(
    lambda i, s: i < n,
    lambda i, s: (i + 1, s + tf.cond(tf.equal(i % 2, 0), lambda: i, lambda: -i)),
    [tf.constant(0), tf.constant(0)], name="alternate")
alternating = tf.identity(alternating, name="alternating")

# a loop inside a cond.
chosen = tf.cond(
    p, lambda: tf.while_loop(lambda v: tf.reduce_sum(v) < 100.0, lambda v: v * 2.0, [x + 1.0]),
    lambda: x - 1.0, name="choose")
chosen = tf.identity(chosen, name="chosen")

# maximum_iterations stops a loop whose condition always holds.
capped = tf.while_loop(lambda k: tf.constant(True), lambda k: k + 3, [tf.constant(1)],
                       maximum_iterations=n, name="capped")
capped = tf.identity(capped, name="capped_value")

tf.io.write_graph(tf.get_default_graph().as_graph_def(), ".", "graph.pbtxt", as_text=True)
with tf.Session() as s:
    for nv, pv in ((4, True), (0, False), (7, True)):
        print(nv, pv, s.run([acc, pairs, alternating, chosen, capped],
                            {x: [2.0, 0.5], n: nv, p: pv}))
