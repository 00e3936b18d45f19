# Writes graph.pb, a binary GraphDef whose variable "w" ([5, 3] float32) is split by
# tf.fixed_size_partitioner(2) into w/part_0 ([3, 3]) and w/part_1 ([2, 3]), with the
# Saver TensorFlow builds for it: its SaveV2 and RestoreV2 carry slice specs
# ("5 3 0,3:0,3", "5 3 3,2:0,3"). model.index / model.data-00000-of-00001 is the
# checkpoint that Saver writes, holding "w" as two slices. tests/io/tf_saver_ops_test.cpp
# restores and saves it through the Saver's own ops and checks the values printed here.
# Run with pip's tensorflow-cpu.
import numpy as np
import tensorflow.compat.v1 as tf

tf.disable_eager_execution()
tf.disable_resource_variables()

x = tf.placeholder(tf.float32, shape=[None, 5], name="x")
w = tf.get_variable("w", shape=[5, 3], initializer=tf.zeros_initializer(),
                    partitioner=tf.fixed_size_partitioner(2))
b = tf.get_variable("b", shape=[3], initializer=tf.zeros_initializer())
y = tf.identity(tf.matmul(x, w) + b, name="y")
saver = tf.train.Saver()
print(saver.saver_def)
value = np.arange(15, dtype=np.float32).reshape(5, 3) * 0.5 - 3.0
with tf.Session() as s:
    s.run(tf.global_variables_initializer())
    s.run([v.assign(value[:3] if v.name.startswith("w/part_0") else value[3:])
           for v in w] + [b.assign([1.0, 2.0, 3.0])])
    saver.save(s, "./model", write_meta_graph=False, write_state=False)
    print(s.run(y, {x: [[1, 0, 2, 0, -1]]}))
tf.io.write_graph(tf.get_default_graph().as_graph_def(), ".", "graph.pb", as_text=False)
graph = tf.get_default_graph()
print(graph.get_tensor_by_name("save/SaveV2/shape_and_slices:0").op.get_attr("value"))
print(sorted(tf.train.list_variables("./model")))
