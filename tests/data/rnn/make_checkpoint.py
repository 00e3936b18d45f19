# Writes lstm.ckpt.* and gru.ckpt.* (tf.train.Saver, TensorFlow's V2 format) of two small
# tf.nn.dynamic_rnn graphs, and prints the outputs and final states TensorFlow computes from
# them for the inputs 1.0 * sin(0.7 k + 0.3), [2, 5, 3], sequence_length [5, 3].
# Run once with TensorFlow 2.21: TF_USE_LEGACY_KERAS=1 python3 make_checkpoint.py
import os

os.environ.setdefault("TF_USE_LEGACY_KERAS", "1")
import numpy as np
import tensorflow.compat.v1 as tf

tf.disable_eager_execution()
tf.disable_control_flow_v2()
here = os.path.dirname(os.path.abspath(__file__))
inputs = np.sin(np.arange(30) * 0.7 + 0.3).astype(np.float32).reshape(2, 5, 3)

for name, make_cell in [("lstm", lambda: tf.nn.rnn_cell.BasicLSTMCell(4)),
                        ("gru", lambda: tf.nn.rnn_cell.GRUCell(4))]:
    g = tf.Graph()
    with g.as_default():
        tf.set_random_seed(7)
        x = tf.placeholder(tf.float32, [2, 5, 3], name="x")
        outputs, state = tf.nn.dynamic_rnn(make_cell(), x, sequence_length=[5, 3],
                                           dtype=tf.float32)
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            # Non-zero biases, so that a bias restored in the wrong place shows.
            for v in tf.global_variables():
                if "bias" in v.op.name:
                    n = int(np.prod(v.shape.as_list()))
                    s.run(v.assign(np.linspace(-0.5, 0.5, n).astype(np.float32)))
            tf.train.Saver().save(s, os.path.join(here, name + ".ckpt"), write_meta_graph=False,
                                  write_state=False)
            values = s.run([outputs] + tf.nest.flatten(state), {x: inputs})
            print(name, [v.op.name for v in tf.global_variables()])
            for v in values:
                print("  {" + ", ".join(repr(float(f)) + "f" for f in v.ravel()) + "}")
