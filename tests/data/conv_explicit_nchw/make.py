# Writes graph.pbtxt: a small NCHW network whose convolution has explicit padding, as
# TensorFlow (tf.compat.v1 graph mode) builds it, with the gradient ops of its pooling and
# bias, and a Conv2DBackpropInput with the same explicit padding. tests/ops/conv_nchw_test.cpp
# imports it and checks the values this script prints. Run with pip's tensorflow.
# TensorFlow's CPU runs every node but d_x ("Conv2DCustomBackpropInputOp only supports NHWC":
# explicit padding and NCHW together), so d_x's value is that of the same op in NHWC,
# transposed, which the script computes in a second graph.
import numpy as np
import tensorflow.compat.v1 as tf
from tensorflow.python.ops import gen_nn_ops

tf.disable_eager_execution()


def pattern(dims, a, b, m, off):
    i = np.arange(int(np.prod(dims)))
    return (((i * a + b) % m) - off).astype(np.float32).reshape(dims)


x = tf.placeholder(tf.float32, shape=[1, 2, 5, 6], name="x")
w = tf.constant(pattern([3, 2, 2, 3], 5, 1, 7, 3), name="w")
b = tf.constant(np.array([0.5, -1.0, 2.0], np.float32), name="b")
pads = [[0, 0], [0, 0], [1, 0], [2, 1]]
conv = tf.nn.conv2d(x, w, [1, 1, 1, 2], pads, data_format="NCHW", name="conv")
biased = tf.nn.bias_add(conv, b, data_format="NCHW", name="biased")
pooled = tf.nn.max_pool(biased, [1, 1, 2, 2], [1, 1, 2, 2], "SAME", data_format="NCHW",
                        name="pooled")
out = tf.nn.avg_pool(pooled, [1, 1, 2, 2], [1, 1, 1, 1], "VALID", data_format="NCHW", name="out")
d_biased, d_b = tf.gradients(out, [biased, b])
d_biased = tf.identity(d_biased, name="d_biased")
d_b = tf.identity(d_b, name="d_b")
d_x = gen_nn_ops.conv2d_backprop_input(
    tf.constant([1, 2, 5, 6]), w, d_biased, [1, 1, 1, 2], "EXPLICIT",
    explicit_paddings=[0, 0, 0, 0, 1, 0, 2, 1], data_format="NCHW", name="d_x")
tf.io.write_graph(tf.get_default_graph().as_graph_def(), ".", "graph.pbtxt", as_text=True)

print([n.name + ":" + n.op for n in tf.get_default_graph().as_graph_def().node])


def show(name, v):
    print(name, list(v.shape), "{" + ", ".join("%.9g" % e for e in v.ravel()) + "}")


x_value = pattern([1, 2, 5, 6], 7, 3, 11, 5)
with tf.Session() as s:
    biased_value, out_value, d_b_value, d_biased_value = s.run([biased, out, d_b, d_biased],
                                                               {x: x_value})
show("biased", biased_value)
show("out", out_value)
show("d_b", d_b_value)
with tf.Graph().as_default():
    nhwc = gen_nn_ops.conv2d_backprop_input(
        tf.constant([1, 5, 6, 2]), tf.constant(pattern([3, 2, 2, 3], 5, 1, 7, 3)),
        tf.constant(d_biased_value.transpose(0, 2, 3, 1)), [1, 1, 2, 1], "EXPLICIT",
        explicit_paddings=[0, 0, 1, 0, 2, 1, 0, 0])
    with tf.Session() as s:
        show("d_x", s.run(nhwc).transpose(0, 3, 1, 2))
