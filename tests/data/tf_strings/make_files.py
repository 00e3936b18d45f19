# Writes a checkpoint (strings.index, strings.data-00000-of-00001) holding string
# variables, and graph.pb, a binary GraphDef of string ops, as TensorFlow 1.x writes them
# (tf.compat.v1 graph mode). tests/io/tf_strings_test.cpp reads both and checks the values
# this script prints. Run with pip's tensorflow-cpu.
import tensorflow.compat.v1 as tf

tf.disable_eager_execution()
tf.disable_resource_variables()

words = tf.Variable([b"a", b"bc\x00d", b"", "\u00e9t\u00e9".encode()], name="words")
title = tf.Variable(b"hello", name="title")
number = tf.Variable(2.5, name="number")
saver = tf.train.Saver([words, title, number])
with tf.Session() as s:
    s.run(tf.global_variables_initializer())
    saver.save(s, "./strings", write_meta_graph=False, write_state=False)
    print(s.run([words, title, number]))

g = tf.Graph()
with g.as_default():
    x = tf.placeholder(tf.float32, shape=[None], name="x")
    names = tf.placeholder(tf.string, shape=[None], name="names")
    text = tf.strings.join([names, tf.as_string(x, precision=2)], separator="=", name="text")
    long_names = tf.strings.regex_full_match(names, "[a-z]{3,}", name="long_names")
    lengths = tf.strings.length(text, name="lengths")
    tf.io.write_graph(g.as_graph_def(), ".", "graph.pb", as_text=False)
    with tf.Session() as s:
        print(s.run([text, long_names, lengths],
                    {x: [1.5, -0.25], names: [b"ab", b"width"]}))

# Feeds for symflow-run (tests/tools/symflow_run_test.cpp), and what NumPy writes for the
# `text` it must fetch.
import numpy as np

np.save("names.npy", np.array([b"ab", b"width"]))
np.save("x.npy", np.array([1.5, -0.25], dtype=np.float32))
np.save("text.npy", np.array([b"ab=1.50", b"width=-0.25"]))
