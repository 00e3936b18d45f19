"""Writes a TensorFlow 1.x MetaGraphDef in protobuf's text format and its checkpoint:
model.meta.txt (tf.train.export_meta_graph(as_text=True, strip_default_attrs=True)),
model.index and model.data-00000-of-00001 (tf.train.Saver.save). The graph is
y = relu(x @ w + b) with w, b variables set to known values, a `train_op` collection of a
GradientDescent step, and a float_list and int64_list collection. Run with
tensorflow-cpu 2.21:  python3 make_files.py
"""
import os

import numpy as np
import tensorflow.compat.v1 as tf

tf.disable_eager_execution()
tf.disable_resource_variables()

here = os.path.dirname(os.path.abspath(__file__))
with tf.Graph().as_default() as g, tf.Session() as sess:
    x = tf.placeholder(tf.float32, [None, 2], name="x")
    w = tf.Variable([[1.0, -2.0], [0.5, 3.0]], name="w")
    b = tf.Variable([0.25, -1.0], name="b")
    y = tf.nn.relu(tf.matmul(x, w) + b, name="y")
    loss = tf.reduce_sum(tf.square(y), name="loss")
    train = tf.train.GradientDescentOptimizer(0.1).minimize(loss, name="train")
    tf.add_to_collection("train_op", train)
    tf.add_to_collection("rates", 0.5)
    tf.add_to_collection("rates", 2.0)
    tf.add_to_collection("steps", 7)
    saver = tf.train.Saver()
    sess.run(tf.global_variables_initializer())
    saver.save(sess, os.path.join(here, "model"), write_meta_graph=False, write_state=False)
    tf.train.export_meta_graph(os.path.join(here, "model.meta.txt"), as_text=True,
                               strip_default_attrs=True, saver_def=saver.as_saver_def())
    feed = {x: np.array([[1.0, 2.0], [-1.0, 0.5]], np.float32)}
    print("y =", sess.run(y, feed).tolist())
    sess.run(train, feed)
    print("w after one step =", sess.run(w).tolist())
