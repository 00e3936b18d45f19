# Writes model.meta and the checkpoint model.* of a tf.compat.v1 graph whose resource
# variables pass through control flow v1: a tf.cond reads w and b in its branches (the
# handles go through Switch) and a tf.while_loop reads w in its body (the handle goes
# through Enter). tests/io/tf_resource_flow_test.cpp restores it and checks the values
# this script prints. Run with pip's tensorflow-cpu.
import numpy as np
import tensorflow.compat.v1 as tf

tf.disable_v2_behavior()
tf.disable_control_flow_v2()

x = tf.placeholder(tf.float32, [None, 3], name="x")
flag = tf.placeholder(tf.bool, [], name="flag")
w = tf.get_variable("w", [3, 2], initializer=tf.ones_initializer(), use_resource=True)
b = tf.get_variable("b", [2], initializer=tf.zeros_initializer(), use_resource=True)
y = tf.cond(flag, lambda: tf.matmul(x, w) + b, lambda: tf.matmul(x, w) * 2.0)
_, acc = tf.while_loop(lambda i, a: i < 3, lambda i, a: (i + 1, a + tf.reduce_sum(w)),
                       [tf.constant(0), tf.constant(0.0)])
tf.identity(y, name="y")
tf.identity(acc, name="acc")
saver = tf.train.Saver()
with tf.Session() as s:
    s.run(tf.global_variables_initializer())
    s.run([w.assign(np.arange(6, dtype=np.float32).reshape(3, 2)), b.assign([0.5, -0.5])])
    saver.save(s, "./model", write_state=False)
    print(s.run(["y:0", "acc:0"], {x: [[1, 2, 3]], flag: True}))
    print(s.run("y:0", {x: [[1, 2, 3]], flag: False}))
print(sorted({n.op for n in tf.get_default_graph().as_graph_def().node}))
