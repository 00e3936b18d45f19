"""A MobileNet-style CNN, frozen the TF1 way: the model `make interop` checks symflow on and
`make bench` times symflow and TensorFlow on (bench/frozen_bench.cpp, bench/tf_peer.py).

MobileNet v1's layout at width 0.25 on 96x96 RGB images: a 3x3 stride-2 convolution, then
13 depthwise-separable blocks (3x3 DepthwiseConv2dNative, then a 1x1 Conv2D, each followed
by FusedBatchNormV3 in inference mode and Relu6), a global average pool (Mean), a dense
layer and Softmax. Weights come from seeded initializers; the batch norms' moving means
and variances are variables too, so freezing leaves every FusedBatchNormV3 in the graph,
as a frozen TF1 MobileNet has them.

  python3 tests/interop/mobilenet.py OUT.pb     writes the frozen GraphDef (binary)
"""
import os
import sys

import numpy as np
import tensorflow.compat.v1 as tf

tf.disable_v2_behavior()

IMAGE = 96
CHANNELS = 3
CLASSES = 10
# (output channels, stride) of the 13 depthwise-separable blocks, MobileNet v1 at 0.25.
BLOCKS = [(16, 1), (32, 2), (32, 1), (64, 2), (64, 1), (128, 2), (128, 1), (128, 1), (128, 1),
          (128, 1), (128, 1), (256, 2), (256, 1)]
INPUT = "images"
OUTPUT = "probabilities"


def batch_norm_relu6(x, name):
    channels = int(x.shape[-1])
    with tf.variable_scope(name):
        scale = tf.get_variable("gamma", [channels],
                                initializer=tf.random_uniform_initializer(0.5, 1.5))
        offset = tf.get_variable("beta", [channels],
                                 initializer=tf.random_normal_initializer(stddev=0.1))
        mean = tf.get_variable("moving_mean", [channels],
                               initializer=tf.random_normal_initializer(stddev=0.1))
        variance = tf.get_variable("moving_variance", [channels],
                                   initializer=tf.random_uniform_initializer(0.5, 1.5))
        y, _, _ = tf.nn.fused_batch_norm(x, scale, offset, mean, variance, epsilon=1e-3,
                                         is_training=False)
    return tf.nn.relu6(y)


def build():
    """The model in the default graph; returns interop's (feeds, fetches)."""
    tf.set_random_seed(7)
    he = tf.variance_scaling_initializer(2.0)
    x = tf.placeholder(tf.float32, [None, IMAGE, IMAGE, CHANNELS], name=INPUT)
    with tf.variable_scope("conv0"):
        w = tf.get_variable("weights", [3, 3, CHANNELS, 8], initializer=he)
        h = batch_norm_relu6(tf.nn.conv2d(x, w, [1, 2, 2, 1], "SAME"), "bn")
    for i, (out, stride) in enumerate(BLOCKS, 1):
        with tf.variable_scope(f"block{i}"):
            dw = tf.get_variable("depthwise", [3, 3, int(h.shape[-1]), 1], initializer=he)
            h = batch_norm_relu6(tf.nn.depthwise_conv2d(h, dw, [1, stride, stride, 1], "SAME"),
                                 "dw_bn")
            pw = tf.get_variable("pointwise", [1, 1, int(h.shape[-1]), out], initializer=he)
            h = batch_norm_relu6(tf.nn.conv2d(h, pw, [1, 1, 1, 1], "SAME"), "pw_bn")
    pooled = tf.reduce_mean(h, axis=[1, 2], name="pool")
    with tf.variable_scope("logits"):
        kernel = tf.get_variable("kernel", [int(pooled.shape[-1]), CLASSES])
        bias = tf.get_variable("bias", [CLASSES], initializer=tf.random_normal_initializer())
        logits = tf.nn.bias_add(tf.matmul(pooled, kernel), bias)
    tf.nn.softmax(logits, name=OUTPUT)
    return {INPUT + ":0": images(2)}, [OUTPUT + ":0"]


def images(batch):
    """The inputs both benchmarks feed, a formula bench/frozen_bench.cpp repeats:
    element i of the flat [batch, 96, 96, 3] tensor is ((i * 7919) % 1000) / 500 - 1."""
    i = np.arange(batch * IMAGE * IMAGE * CHANNELS, dtype=np.int64)
    return (((i * 7919) % 1000) / 500.0 - 1.0).astype(np.float32).reshape(
        batch, IMAGE, IMAGE, CHANNELS)


def frozen_graph_def():
    g = tf.Graph()
    with g.as_default():
        build()
        with tf.Session(graph=g) as sess:
            sess.run(tf.global_variables_initializer())
            return tf.graph_util.convert_variables_to_constants(sess, g.as_graph_def(), [OUTPUT])


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    graph_def = frozen_graph_def()
    out = sys.argv[1]
    tf.io.write_graph(graph_def, os.path.dirname(out) or ".", os.path.basename(out),
                      as_text=False)
