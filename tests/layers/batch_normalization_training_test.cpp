// symflow::layers::batch_normalization with `training` a bool tensor, checked against
// tf.compat.v1.layers.batch_normalization(x, training=t, fused=False) (TensorFlow 2.21,
// graph mode, control flow v1, ref variables): conds choose the statistics and guard the
// moving-average updates, so that one graph serves training and inference.

#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <variant>
#include <vector>

#include <symflow/layers/batch_normalization.hpp>
#include <symflow/symflow.hpp>

#include "../test_util.hpp"

namespace symflow_test_layers_batch_normalization_training_test {

using namespace symflow;
using namespace symflow::test;

// TF's test input: 4 rows, 3 channels.
const Value kX = Value::from_vector<float>({1, 2, 3, 4, 0, -1, 2, 2, 2, 0.5f, 1, 8}, {4, 3});

// "name op input, input, ..." for the nodes whose names start with one of `prefixes`,
// sorted (TensorFlow's GraphDef lists a branch's Switch after the op that reads it,
// symflow's before; the nodes and their inputs are the same).
std::vector<std::string> sorted_lines(const Graph& g, const std::vector<std::string>& prefixes) {
  std::vector<std::string> out;
  for (const NodeDef& n : g.as_graph_def().node) {
    if (std::none_of(prefixes.begin(), prefixes.end(),
                     [&](const std::string& p) { return n.name.rfind(p, 0) == 0; }))
      continue;
    std::string line = n.name + " " + n.op;
    for (std::size_t i = 0; i < n.input.size(); ++i) line += (i ? ", " : " ") + n.input[i];
    out.push_back(line);
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::string colocation(const Graph& g, const std::string& op) {
  return g.get_operation_by_name(op).get_attr<StringList>("_class").items.at(0);
}

TEST_CASE("layers/batch_normalization_training: TensorFlow's conds, node for node") {
  Graph g;
  auto guard = g.as_default();
  auto x = placeholder<float>(Shape{-1, 3}, "x");
  auto t = placeholder<bool>(Shape{}, "t");
  Output y = layers::batch_normalization(x, t);
  CHECK(y.name() == "batch_normalization/batchnorm/add_1:0");
  CHECK(y.get_shape().to_string() == "(?, 3)");
  CHECK(variable_names(global_variables()) ==
        std::vector<std::string>{"batch_normalization/gamma:0", "batch_normalization/beta:0",
                                 "batch_normalization/moving_mean:0",
                                 "batch_normalization/moving_variance:0"});
  CHECK(variable_names(trainable_variables()) ==
        std::vector<std::string>{"batch_normalization/gamma:0", "batch_normalization/beta:0"});

  // TF 2.21: the moments are built first (as in training), then cond and cond_1 choose
  // between them and the moving statistics, cond_2 and cond_3 hold the updates, and the
  // normalisation reads the first two conds' Merges. (TF 2.21's adds are AddV2; symflow
  // builds Add, docs/decisions.md.)
  std::vector<std::string> want = {
      "batch_normalization/cond/Switch Switch t, t",
      "batch_normalization/cond/switch_t Identity batch_normalization/cond/Switch:1",
      "batch_normalization/cond/switch_f Identity batch_normalization/cond/Switch",
      "batch_normalization/cond/pred_id Identity t",
      "batch_normalization/cond/Switch_1 Switch batch_normalization/moments/Squeeze, "
      "batch_normalization/cond/pred_id",
      "batch_normalization/cond/Switch_2 Switch batch_normalization/moving_mean/read, "
      "batch_normalization/cond/pred_id",
      "batch_normalization/cond/Merge Merge batch_normalization/cond/Switch_2, "
      "batch_normalization/cond/Switch_1:1",
      "batch_normalization/cond_1/Switch Switch t, t",
      "batch_normalization/cond_1/switch_t Identity batch_normalization/cond_1/Switch:1",
      "batch_normalization/cond_1/switch_f Identity batch_normalization/cond_1/Switch",
      "batch_normalization/cond_1/pred_id Identity t",
      "batch_normalization/cond_1/Switch_1 Switch batch_normalization/moments/Squeeze_1, "
      "batch_normalization/cond_1/pred_id",
      "batch_normalization/cond_1/Switch_2 Switch batch_normalization/moving_variance/read, "
      "batch_normalization/cond_1/pred_id",
      "batch_normalization/cond_1/Merge Merge batch_normalization/cond_1/Switch_2, "
      "batch_normalization/cond_1/Switch_1:1",
      "batch_normalization/cond_2/Switch Switch t, t",
      "batch_normalization/cond_2/switch_t Identity batch_normalization/cond_2/Switch:1",
      "batch_normalization/cond_2/switch_f Identity batch_normalization/cond_2/Switch",
      "batch_normalization/cond_2/pred_id Identity t",
      "batch_normalization/cond_2/AssignMovingAvg/decay Const ^batch_normalization/cond_2/switch_t",
      "batch_normalization/cond_2/AssignMovingAvg/sub Sub "
      "batch_normalization/cond_2/AssignMovingAvg/sub/Switch:1, "
      "batch_normalization/cond_2/AssignMovingAvg/sub/Switch_1:1",
      "batch_normalization/cond_2/AssignMovingAvg/sub/Switch Switch "
      "batch_normalization/moving_mean/read, batch_normalization/cond_2/pred_id",
      "batch_normalization/cond_2/AssignMovingAvg/sub/Switch_1 Switch "
      "batch_normalization/cond/Merge, batch_normalization/cond_2/pred_id",
      "batch_normalization/cond_2/AssignMovingAvg/mul Mul batch_normalization/cond_2/"
      "AssignMovingAvg/sub, batch_normalization/cond_2/AssignMovingAvg/decay",
      "batch_normalization/cond_2/AssignMovingAvg AssignSub "
      "batch_normalization/cond_2/AssignMovingAvg/Switch:1, "
      "batch_normalization/cond_2/AssignMovingAvg/mul",
      "batch_normalization/cond_2/AssignMovingAvg/Switch RefSwitch "
      "batch_normalization/moving_mean, batch_normalization/cond_2/pred_id",
      "batch_normalization/cond_2/Switch_1 Switch batch_normalization/moving_mean/read, "
      "batch_normalization/cond_2/pred_id",
      "batch_normalization/cond_2/Merge Merge batch_normalization/cond_2/Switch_1, "
      "batch_normalization/cond_2/AssignMovingAvg",
      "batch_normalization/cond_3/Switch Switch t, t",
      "batch_normalization/cond_3/switch_t Identity batch_normalization/cond_3/Switch:1",
      "batch_normalization/cond_3/switch_f Identity batch_normalization/cond_3/Switch",
      "batch_normalization/cond_3/pred_id Identity t",
      "batch_normalization/cond_3/AssignMovingAvg/decay Const ^batch_normalization/cond_3/switch_t",
      "batch_normalization/cond_3/AssignMovingAvg/sub Sub "
      "batch_normalization/cond_3/AssignMovingAvg/sub/Switch:1, "
      "batch_normalization/cond_3/AssignMovingAvg/sub/Switch_1:1",
      "batch_normalization/cond_3/AssignMovingAvg/sub/Switch Switch "
      "batch_normalization/moving_variance/read, batch_normalization/cond_3/pred_id",
      "batch_normalization/cond_3/AssignMovingAvg/sub/Switch_1 Switch "
      "batch_normalization/cond_1/Merge, batch_normalization/cond_3/pred_id",
      "batch_normalization/cond_3/AssignMovingAvg/mul Mul batch_normalization/cond_3/"
      "AssignMovingAvg/sub, batch_normalization/cond_3/AssignMovingAvg/decay",
      "batch_normalization/cond_3/AssignMovingAvg AssignSub "
      "batch_normalization/cond_3/AssignMovingAvg/Switch:1, "
      "batch_normalization/cond_3/AssignMovingAvg/mul",
      "batch_normalization/cond_3/AssignMovingAvg/Switch RefSwitch "
      "batch_normalization/moving_variance, batch_normalization/cond_3/pred_id",
      "batch_normalization/cond_3/Switch_1 Switch batch_normalization/moving_variance/read, "
      "batch_normalization/cond_3/pred_id",
      "batch_normalization/cond_3/Merge Merge batch_normalization/cond_3/Switch_1, "
      "batch_normalization/cond_3/AssignMovingAvg",
      "batch_normalization/batchnorm/add/y Const",
      "batch_normalization/batchnorm/add Add batch_normalization/cond_1/Merge, "
      "batch_normalization/batchnorm/add/y",
      "batch_normalization/batchnorm/Rsqrt Rsqrt batch_normalization/batchnorm/add",
      "batch_normalization/batchnorm/mul Mul batch_normalization/batchnorm/Rsqrt, "
      "batch_normalization/gamma/read",
      "batch_normalization/batchnorm/mul_1 Mul x, batch_normalization/batchnorm/mul",
      "batch_normalization/batchnorm/mul_2 Mul batch_normalization/cond/Merge, "
      "batch_normalization/batchnorm/mul",
      "batch_normalization/batchnorm/sub Sub batch_normalization/beta/read, "
      "batch_normalization/batchnorm/mul_2",
      "batch_normalization/batchnorm/add_1 Add batch_normalization/batchnorm/mul_1, "
      "batch_normalization/batchnorm/sub",
  };
  std::sort(want.begin(), want.end());
  CHECK(sorted_lines(g, {"batch_normalization/cond", "batch_normalization/batchnorm/"}) == want);
  CHECK(g.get_operation_by_name("batch_normalization/moments/mean").type() == "Mean");
  CHECK(g.get_operation_by_name("batch_normalization/moments/Squeeze_1").type() == "Squeeze");

  // TF: UPDATE_OPS holds the update conds' Merges; each Switch is colocated with its data,
  //     the update's arithmetic with the moving variable.
  std::vector<Operation> updates = update_ops(g);
  REQUIRE(updates.size() == 2);
  CHECK(updates[0].name() == "batch_normalization/cond_2/Merge");
  CHECK(updates[1].name() == "batch_normalization/cond_3/Merge");
  CHECK(updates[0].output(0).dtype() == DType::float32);
  CHECK(colocation(g, "batch_normalization/cond/Switch_1") ==
        "loc:@batch_normalization/moments/Squeeze");
  CHECK(colocation(g, "batch_normalization/cond/Switch_2") ==
        "loc:@batch_normalization/moving_mean");
  CHECK(colocation(g, "batch_normalization/cond_2/AssignMovingAvg/decay") ==
        "loc:@batch_normalization/moving_mean");
  CHECK(colocation(g, "batch_normalization/cond_2/AssignMovingAvg") ==
        "loc:@batch_normalization/moving_mean");
  CHECK(colocation(g, "batch_normalization/cond_2/AssignMovingAvg/sub/Switch_1") ==
        "loc:@batch_normalization/cond/Merge");
  CHECK(colocation(g, "batch_normalization/cond_3/AssignMovingAvg/mul") ==
        "loc:@batch_normalization/moving_variance");
  CHECK_FALSE(g.get_operation_by_name("batch_normalization/cond_2/Merge").attrs().count("_class"));
}

TEST_CASE("layers/batch_normalization_training: one graph, both feeds, TensorFlow's values") {
  Graph g;
  auto guard = g.as_default();
  auto x = placeholder<float>(Shape{-1, 3}, "x");
  auto t = placeholder<bool>(Shape{}, "t");
  Output y = layers::batch_normalization(x, t);
  std::vector<Output> updates;
  for (const Operation& op : update_ops(g)) updates.push_back(op.output(0));
  Variable moving_mean = global_variables()[2], moving_variance = global_variables()[3];
  Session sess(g);
  sess.run(global_variables_initializer());

  // TF: fed false, the moving statistics (0, 1): x / sqrt(1 + 1e-3).
  check_close(sess.run(y, {{x, kX}, {t, Value(false)}}).to_vector<float>(),
              {0.9995003938674927f, 1.9990007877349854f, 2.9985013008117676f, 3.9980015754699707f,
               0.0f, -0.9995003938674927f, 1.9990007877349854f, 1.9990007877349854f,
               1.9990007877349854f, 0.49975019693374634f, 0.9995003938674927f, 7.996003150939941f});
  // TF: fed true, the batch's moments.
  const std::vector<float> y_training = {
      -0.6525717973709106f, 0.9038769006729126f,  0.0f,
      1.5848171710968018f,  -1.506461501121521f,  -1.2343679666519165f,
      0.09322452545166016f, 0.9038769006729126f,  -0.3085920214653015f,
      -1.0254700183868408f, -0.3012923002243042f, 1.5429599285125732f};
  check_close(sess.run(y, {{x, kX}, {t, Value(true)}}).to_vector<float>(), y_training, 1e-5);

  // TF: the updates fed true move the statistics by 1 - momentum (0.01) towards the batch's;
  //     each Merge gives the variable's new value.
  std::vector<Value> moved = sess.run(updates, {{x, kX}, {t, Value(true)}});
  const std::vector<float> mean_1 = {0.01874999888241291f, 0.01249999925494194f,
                                     0.029999999329447746f};
  const std::vector<float> variance_1 = {1.007968783378601f, 0.996874988079071f,
                                         1.0950000286102295f};
  check_close(moved[0].to_vector<float>(), mean_1);
  check_close(moved[1].to_vector<float>(), variance_1);
  check_close(sess.run(moving_mean).to_vector<float>(), mean_1);
  check_close(sess.run(moving_variance).to_vector<float>(), variance_1);

  // TF: fed false, they leave the variables as they are and return their values.
  std::vector<Value> kept = sess.run(updates, {{x, kX}, {t, Value(false)}});
  check_close(kept[0].to_vector<float>(), mean_1);
  check_close(kept[1].to_vector<float>(), variance_1);
  check_close(sess.run(moving_mean).to_vector<float>(), mean_1);
  check_close(sess.run(moving_variance).to_vector<float>(), variance_1);

  // TF: inference now reads the moved statistics.
  check_close(
      sess.run(y, {{x, kX}, {t, Value(false)}}).to_vector<float>(),
      {0.9768790006637573f, 1.9896150827407837f, 2.836946487426758f, 3.963515520095825f,
       -0.012513301335275173f, -0.9838568568229675f, 1.9724245071411133f, 1.9896150827407837f,
       1.88174569606781f, 0.47910627722740173f, 0.9885509014129639f, 7.612950801849365f},
      1e-5);

  // TF: a training step that runs the updates with the output (control dependencies)
  //     gives the batch-normalised output and moves the statistics once more.
  Output step;
  {
    control_dependencies deps(update_ops(g));
    step = identity(y);
  }
  check_close(sess.run(step, {{x, kX}, {t, Value(true)}}).to_vector<float>(), y_training, 1e-5);
  check_close(sess.run(moving_mean).to_vector<float>(),
              {0.037312500178813934f, 0.02487499825656414f, 0.059699997305870056f});
  check_close(sess.run(moving_variance).to_vector<float>(),
              {1.0158578157424927f, 0.9937812089920044f, 1.1890500783920288f});
}

TEST_CASE("layers/batch_normalization_training: 4-D input, both feeds") {
  Graph g;
  auto guard = g.as_default();
  auto x = placeholder<float>(Shape{-1, 2, 2, 3}, "x");
  auto t = placeholder<bool>(Shape{}, "t");
  Output y = layers::batch_normalization(x, t);
  CHECK(y.name() == "batch_normalization/batchnorm/add_1:0");
  CHECK(y.get_shape().to_string() == "(?, 2, 2, 3)");
  // TF (fused=False): the moments over axes [0, 1, 2], the same conds as for 2-D input.
  CHECK(g.get_operation_by_name("batch_normalization/moments/mean/reduction_indices")
            .get_attr<Value>("value")
            .to_vector<std::int32_t>() == std::vector<std::int32_t>{0, 1, 2});
  CHECK(g.get_operation_by_name("batch_normalization/cond_3/AssignMovingAvg").type() ==
        "AssignSub");

  // TF's input: (arange(24) * 0.37) % 2.3 - 1, shape (2, 2, 2, 3).
  const std::vector<float> xs = {-1.0f,
                                 -0.6299999952316284f,
                                 -0.25999999046325684f,
                                 0.11000001430511475f,
                                 0.48000001907348633f,
                                 0.8500000238418579f,
                                 1.2200000286102295f,
                                 -0.7099997997283936f,
                                 -0.3399999141693115f,
                                 0.029999971389770508f,
                                 0.40000009536743164f,
                                 0.7700002193450928f,
                                 1.1400001049041748f,
                                 -0.7899999618530273f,
                                 -0.4199995994567871f,
                                 -0.04999971389770508f,
                                 0.32000017166137695f,
                                 0.690000057220459f,
                                 1.059999942779541f,
                                 -0.8699996471405029f,
                                 -0.4999997615814209f,
                                 -0.12999987602233887f,
                                 0.24000048637390137f,
                                 0.6100003719329834f};
  const Value xv = Value::from_vector(xs, {2, 2, 2, 3});
  Session sess(g);
  sess.run(global_variables_initializer());
  check_close(
      sess.run(y, {{x, xv}, {t, Value(true)}}).to_vector<float>(),
      {-1.7814236879348755f, -0.7725785970687866f,  -0.7725786566734314f, -0.2574312090873718f,
       1.1988282203674316f,  1.1988282203674316f,   1.2665612697601318f,  -0.9146616458892822f,
       -0.9146618843078613f, -0.36726853251457214f, 1.056744933128357f,   1.056745171546936f,
       1.1567240953445435f,  -1.0567452907562256f,  -1.0567448139190674f, -0.47710540890693665f,
       0.914661705493927f,   0.9146615266799927f,   1.0468865633010864f,  -1.198828101158142f,
       -1.1988284587860107f, -0.5869429111480713f,  0.7725788354873657f,  0.7725787162780762f},
      1e-4);
  std::vector<Output> updates;
  for (const Operation& op : update_ops(g)) updates.push_back(op.output(0));
  std::vector<Value> moved = sess.run(updates, {{x, xv}, {t, Value(true)}});
  check_close(moved[0].to_vector<float>(),
              {0.002975000301375985f, -0.0019499982008710504f, 0.001750001683831215f}, 1e-4);
  check_close(moved[1].to_vector<float>(),
              {0.9952949285507202f, 0.9931602478027344f, 0.9931602478027344f}, 1e-5);
  check_close(
      sess.run(y, {{x, xv}, {t, Value(false)}}).to_vector<float>(),
      {-1.0048381090164185f, -0.6298918724060059f,  -0.26251763105392456f, 0.10722382366657257f,
       0.48336341977119446f, 0.8507376909255981f,   1.2192858457565308f,   -0.7101262807846069f,
       -0.3427521586418152f, 0.02707517333328724f,  0.40312889218330383f,  0.7705032825469971f,
       1.1391373872756958f,  -0.7903611063957214f,  -0.4229864776134491f,  -0.05307312309741974f,
       0.3228943347930908f,  0.6902684569358826f,   1.0589885711669922f,   -0.870595395565033f,
       -0.5032212138175964f, -0.13322189450263977f, 0.2426600456237793f,   0.610034167766571f},
      1e-5);
}

TEST_CASE("layers/batch_normalization_training: a constant training decides when built") {
  Graph g;
  auto guard = g.as_default();
  auto x = placeholder<float>(Shape{-1, 3}, "x");
  // TF: training=tf.constant(True) builds the training graph without a cond, its updates
  //     the plain AssignSubs; tf.constant(False) reads the moving statistics, no updates.
  Output y = layers::batch_normalization(x, constant(Value(true)));
  CHECK(y.name() == "batch_normalization/batchnorm/add_1:0");
  std::vector<Operation> updates = update_ops(g);
  REQUIRE(updates.size() == 2);
  CHECK(updates[0].name() == "batch_normalization/AssignMovingAvg");
  CHECK(updates[1].name() == "batch_normalization/AssignMovingAvg_1");
  Output y2 = layers::batch_normalization(x, constant(Value(false)));
  CHECK(y2.name() == "batch_normalization_1/batchnorm/add_1:0");
  CHECK(update_ops(g).size() == 2);
  CHECK(input_names(g.get_operation_by_name("batch_normalization_1/batchnorm/add")) ==
        std::vector<std::string>{"batch_normalization_1/moving_variance/read:0",
                                 "batch_normalization_1/batchnorm/add/y:0"});
  for (const Operation& op : g.get_operations()) CHECK(!contains(op.name(), "cond"));
}

TEST_CASE("layers/batch_normalization_training: a training tensor that is not a bool scalar") {
  Graph g;
  auto guard = g.as_default();
  auto x = placeholder<float>(Shape{-1, 3}, "x");
  // TF: the cond's Switch rejects it, after the layer's variables exist.
  auto f = placeholder<float>(Shape{}, "f");
  auto type_error = thrown<TypeError>([&] { layers::batch_normalization(x, f); });
  REQUIRE(type_error);
  CHECK(std::string(type_error->what()) ==
        "Input 'pred' of 'Switch' Op has type float32 that does not match expected type of bool.");
  auto b2 = placeholder<bool>(Shape{2}, "b2");
  auto rank_error = thrown<ValueError>([&] { layers::batch_normalization(x, b2); });
  REQUIRE(rank_error);
  // TF 2.21 names the node as "'{{node batch_normalization_1/cond/Switch}} =
  // Switch[T=DT_BOOL](b2, b2)'"; symflow's shape errors use TF 1.x's form.
  CHECK(std::string(rank_error->what()) ==
        "Shape must be rank 0 but is rank 1 for 'batch_normalization_1/cond/Switch' (op: "
        "'Switch') with input shapes: [2], [2].");
  CHECK(thrown<ValueError>([&] { layers::batch_normalization(x, Output()); }));
}

}  // namespace symflow_test_layers_batch_normalization_training_test
