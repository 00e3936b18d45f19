# Writes graph.pb, a binary GraphDef of y = w * x + b with TensorFlow 1.x's Saver
# subgraph (save/Const, save/SaveV2, save/RestoreV2, save/Assign*, save/restore_all),
# and model.index / model.data-00000-of-00001, the checkpoint that Saver writes, as
# tf.compat.v1 writes them. tests/io/tf_saver_ops_test.cpp runs the Saver's own restore
# and save ops and checks the values this script prints. Run with pip's tensorflow-cpu.
import tensorflow.compat.v1 as tf

tf.disable_eager_execution()
tf.disable_resource_variables()

x = tf.placeholder(tf.float32, shape=[None], name="x")
w = tf.Variable([2.0, -1.0], name="w")
b = tf.Variable(0.5, name="b")
label = tf.Variable(b"linear", name="label")
y = tf.identity(w * x + b, name="y")
saver = tf.train.Saver([w, b, label])
print(saver.saver_def)
with tf.Session() as s:
    s.run(tf.global_variables_initializer())
    s.run([w.assign([3.0, 4.0]), b.assign(-2.0), label.assign(b"trained")])
    saver.save(s, "./model", write_meta_graph=False, write_state=False)
    print(s.run(y, {x: [1.0, 2.0]}))
tf.io.write_graph(tf.get_default_graph().as_graph_def(), ".", "graph.pb", as_text=False)
print(sorted({n.op for n in tf.get_default_graph().as_graph_def().node}))

# The same model with a sharded Saver (as SavedModels have): save/ShardedFilename,
# save/MergeV2Checkpoints and a Select on strings. Its checkpoint is sharded.*.
tf.reset_default_graph()
x = tf.placeholder(tf.float32, shape=[None], name="x")
w = tf.Variable([2.0, -1.0], name="w")
b = tf.Variable(0.5, name="b")
y = tf.identity(w * x + b, name="y")
saver = tf.train.Saver([w, b], sharded=True)
print(saver.saver_def)
with tf.Session() as s:
    s.run(tf.global_variables_initializer())
    s.run([w.assign([5.0, 6.0]), b.assign(1.0)])
    saver.save(s, "./sharded", write_meta_graph=False, write_state=False)
    print(s.run(y, {x: [1.0, 2.0]}))
tf.io.write_graph(tf.get_default_graph().as_graph_def(), ".", "sharded_graph.pb", as_text=False)
