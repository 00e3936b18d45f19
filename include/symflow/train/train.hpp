#pragma once
// symflow::train: gradients, optimizers, the global step, and saving and restoring
// (TensorFlow 1.x's tf.train).

#include "symflow/ops/training_ops.hpp"
#include "symflow/train/adagrad.hpp"
#include "symflow/train/adam.hpp"
#include "symflow/train/checkpoint_state.hpp"
#include "symflow/train/gradient_descent.hpp"
#include "symflow/train/gradients.hpp"
#include "symflow/train/import_meta_graph.hpp"
#include "symflow/train/learning_rate_decay.hpp"
#include "symflow/train/meta_graph.hpp"
#include "symflow/train/momentum.hpp"
#include "symflow/train/optimizer.hpp"
#include "symflow/train/rmsprop.hpp"
#include "symflow/train/saver.hpp"
#include "symflow/train/slot_creator.hpp"
#include "symflow/train/training_util.hpp"
