# Writes graph.pbtxt: a tf.cond and its gradient as TensorFlow 1.x builds them
# (tf.compat.v1 graph mode, control flow v1). tests/io/tf_cond_import_test.cpp imports
# it and checks the values this script prints. Run with pip's tensorflow-cpu.
import tensorflow.compat.v1 as tf

tf.disable_eager_execution()
tf.disable_control_flow_v2()

x = tf.placeholder(tf.float32, shape=[2], name="x")
p = tf.placeholder(tf.bool, shape=[], name="p")
y = tf.cond(p, lambda: x * x, lambda: tf.nn.relu(x) + 1.0, name="branch")
z = tf.identity(y * 3.0, name="z")
dz = tf.identity(tf.gradients(z, x)[0], name="dz")
tf.io.write_graph(tf.get_default_graph().as_graph_def(), ".", "graph.pbtxt", as_text=True)
with tf.Session() as s:
    for pv in (True, False):
        print(pv, s.run([z, dz], {x: [1.5, -2.0], p: pv}))
