"""Writes inputs.{index,data-*}: a TensorFlow V2 checkpoint holding the ten MNIST
digits of ../shared/fixtures/tf/tf1_mnist_mlp_ckpt/images as `images` (10 x 784
float64, gray values / 255, row-major) and, as `tf_prediction`, what TensorFlow itself
computes for them with that fixture's MetaGraph and checkpoint (import_meta_graph,
Saver.restore, `prediction:0`), and as `tf_bias_after_step` the value of `dense_2/bias`
after one run of its train op `GradientDescent` on those digits with their one-hot
labels. Run with tensorflow-cpu 2.21:
    python3 make_files.py ../../../../shared/fixtures/tf/tf1_mnist_mlp_ckpt
"""
import os
import sys

import numpy as np
import tensorflow.compat.v1 as tf

tf.disable_eager_execution()

fixture = sys.argv[1]
here = os.path.dirname(os.path.abspath(__file__))

with tf.Graph().as_default(), tf.Session() as sess:
    pngs = [tf.io.decode_png(tf.io.read_file(os.path.join(fixture, "images", "%d.png" % k)))
            for k in range(10)]
    images = np.stack([p.reshape(784) for p in sess.run(pngs)]).astype(np.float64) / 255.0

with tf.Graph().as_default(), tf.Session() as sess:
    saver = tf.train.import_meta_graph(os.path.join(fixture, "checkpoint", "train.ckpt.meta"))
    saver.restore(sess, os.path.join(fixture, "checkpoint", "train.ckpt"))
    prediction = sess.run("prediction:0", {"input:0": images})
    # One step of the graph's own train op (resource variables, GradientDescent).
    labels = np.eye(10)
    sess.run("GradientDescent", {"input:0": images, "label:0": labels})
    bias_after_step = sess.run("dense_2/bias/Read/ReadVariableOp:0")

with tf.Graph().as_default(), tf.Session() as sess:
    sess.run(tf.raw_ops.SaveV2(prefix=os.path.join(here, "inputs"),
                               tensor_names=["images", "tf_prediction", "tf_bias_after_step"],
                               shape_and_slices=["", "", ""],
                               tensors=[tf.constant(images), tf.constant(prediction),
                                        tf.constant(bias_after_step)]))
print(prediction.argmax(axis=1), prediction.max(axis=1))
