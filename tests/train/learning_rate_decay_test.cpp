// The learning-rate schedules against TensorFlow 1.x's (oracle: TensorFlow 2.21,
// tf.compat.v1 with v2 behaviour off, so that the global step is a ref variable): graphs
// node for node, and values at global steps 0, 3, 10, 15, 25 and 40.
#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <symflow/symflow.hpp>
#include <symflow/train/learning_rate_decay.hpp>
#include <symflow/train/train.hpp>
#include <vector>

#include "../test_util.hpp"

namespace symflow_test_train_learning_rate_decay_test {

namespace tf = symflow;
using tf::test::check_close;

namespace {

const std::vector<std::int64_t> kSteps{0, 3, 10, 15, 25, 40};

// "name type [inputs]" for every node made since `first`.
std::vector<std::string> rows_since(const tf::Graph& g, std::size_t first) {
  std::vector<std::string> rows;
  auto ops = g.get_operations();
  for (std::size_t i = first; i < ops.size(); ++i) {
    tf::NodeDef def = ops[i].node_def();
    std::string inputs;
    for (const auto& in : def.input) inputs += (inputs.empty() ? "" : ",") + in;
    rows.push_back(def.name + " " + def.op + " [" + inputs + "]");
  }
  return rows;
}

void check_rows(const std::vector<std::string>& got, const std::vector<std::string>& want) {
  CHECK(got.size() == want.size());
  for (std::size_t i = 0; i < std::min(got.size(), want.size()); ++i) {
    CAPTURE(i);
    CHECK(got[i] == want[i]);
  }
}

// A graph with a global step, and the node count once it exists.
struct StepGraph {
  tf::Graph g;
  tf::DefaultGraphGuard guard{g};
  tf::Variable step = tf::train::get_or_create_global_step();
  std::size_t first = g.num_nodes();

  // The float32 values of `schedules` with the global step set to each of `steps`.
  std::vector<std::vector<double>> at(const std::vector<tf::Output>& schedules,
                                      const std::vector<std::int64_t>& steps = kSteps) {
    auto value = tf::placeholder<std::int64_t>(tf::Shape{}, "set_step");
    tf::Output set = tf::assign(step.ref(), value);
    tf::Session sess(g);
    sess.run(tf::global_variables_initializer());
    std::vector<std::vector<double>> out(schedules.size());
    for (std::int64_t s : steps) {
      sess.run(std::vector<tf::Fetch>{}, {{value, tf::Value(s)}}, {set.op()});
      for (std::size_t i = 0; i < schedules.size(); ++i)
        out[i].push_back(sess.run(schedules[i]).scalar<float>());
    }
    return out;
  }
};

}  // namespace

TEST_CASE("train/learning_rate_decay: exponential_decay builds TensorFlow's graph") {
  StepGraph m;
  tf::Output lr = tf::train::exponential_decay(0.1, m.step, 10, 0.5);
  CHECK(lr.name() == "ExponentialDecay:0");
  CHECK(lr.dtype() == tf::DType::float32);
  check_rows(
      rows_since(m.g, m.first),
      {
          "ExponentialDecay/initial_learning_rate Const []",
          "ExponentialDecay/Cast/x Const []",
          "ExponentialDecay/Cast Cast [ExponentialDecay/Cast/x]",
          "ExponentialDecay/Cast_1/x Const []",
          "ExponentialDecay/Cast_2 Cast [global_step/read]",
          "ExponentialDecay/truediv RealDiv [ExponentialDecay/Cast_2,ExponentialDecay/Cast]",
          "ExponentialDecay/Pow Pow [ExponentialDecay/Cast_1/x,ExponentialDecay/truediv]",
          "ExponentialDecay Mul [ExponentialDecay/initial_learning_rate,ExponentialDecay/Pow]",
      });
  CHECK(m.g.get_operation_by_name("ExponentialDecay/Cast").get_attr<tf::DType>("SrcT") ==
        tf::DType::int32);
  CHECK(m.g.get_operation_by_name("ExponentialDecay/Cast_2").get_attr<tf::DType>("SrcT") ==
        tf::DType::int64);
  // A second schedule gets a fresh scope; `name` names the scope and the result.
  CHECK(tf::train::exponential_decay(0.1, m.step, 10, 0.5).name() == "ExponentialDecay_1:0");
  CHECK(tf::train::exponential_decay(0.1, m.step, 10, 0.5, {.name = "lr"}).name() == "lr:0");
}

TEST_CASE("train/learning_rate_decay: exponential_decay's values, smooth and staircase") {
  StepGraph m;
  tf::Output smooth = tf::train::exponential_decay(0.1, m.step, 10, 0.5);
  tf::Output staircase = tf::train::exponential_decay(0.1, m.step, 10, 0.5, {.staircase = true});
  CHECK(staircase.op().inputs()[1].op().inputs()[1].op().type() == "Floor");
  auto got = m.at({smooth, staircase});
  // TensorFlow:
  check_close(got[0], {0.10000000149011612, 0.08122523874044418, 0.05000000074505806,
                       0.0353553406894207, 0.01767767034471035, 0.0062500000931322575});
  check_close(got[1], {0.10000000149011612, 0.10000000149011612, 0.05000000074505806,
                       0.05000000074505806, 0.02500000037252903, 0.0062500000931322575});
}

TEST_CASE("train/learning_rate_decay: natural_exp_decay negates the rate outside the scope") {
  StepGraph m;
  tf::Output smooth = tf::train::natural_exp_decay(0.1, m.step, 10, 0.5);
  CHECK(smooth.name() == "ExponentialDecay:0");
  check_rows(
      rows_since(m.g, m.first),
      {
          "Neg/x Const []",
          "Neg Neg [Neg/x]",
          "Exp Exp [Neg]",
          "ExponentialDecay/initial_learning_rate Const []",
          "ExponentialDecay/Cast/x Const []",
          "ExponentialDecay/Cast Cast [ExponentialDecay/Cast/x]",
          "ExponentialDecay/Cast_1 Cast [global_step/read]",
          "ExponentialDecay/truediv RealDiv [ExponentialDecay/Cast_1,ExponentialDecay/Cast]",
          "ExponentialDecay/Pow Pow [Exp,ExponentialDecay/truediv]",
          "ExponentialDecay Mul [ExponentialDecay/initial_learning_rate,ExponentialDecay/Pow]",
      });
  tf::Output staircase = tf::train::natural_exp_decay(0.1, m.step, 10, 0.5, {.staircase = true});
  auto got = m.at({smooth, staircase});
  // TensorFlow:
  check_close(got[0], {0.10000000149011612, 0.08607079833745956, 0.060653068125247955,
                       0.04723665863275528, 0.02865048125386238, 0.013533529825508595});
  check_close(got[1], {0.10000000149011612, 0.10000000149011612, 0.060653068125247955,
                       0.060653068125247955, 0.03678794577717781, 0.013533529825508595});
}

TEST_CASE("train/learning_rate_decay: inverse_time_decay's graph and values") {
  StepGraph m;
  tf::Output smooth = tf::train::inverse_time_decay(0.1, m.step, 10, 0.5);
  CHECK(smooth.name() == "InverseTimeDecay:0");
  check_rows(
      rows_since(m.g, m.first),
      {
          "InverseTimeDecay/initial_learning_rate Const []",
          "InverseTimeDecay/Cast/x Const []",
          "InverseTimeDecay/Cast Cast [InverseTimeDecay/Cast/x]",
          "InverseTimeDecay/Cast_1/x Const []",
          "InverseTimeDecay/Cast_2 Cast [global_step/read]",
          "InverseTimeDecay/truediv RealDiv [InverseTimeDecay/Cast_2,InverseTimeDecay/Cast]",
          "InverseTimeDecay/Const Const []",
          "InverseTimeDecay/Cast_3 Cast [InverseTimeDecay/Const]",
          "InverseTimeDecay/Mul Mul [InverseTimeDecay/Cast_1/x,InverseTimeDecay/truediv]",
          // TensorFlow 1.14 and later build AddV2 here (docs/decisions.md).
          "InverseTimeDecay/Add Add [InverseTimeDecay/Cast_3,InverseTimeDecay/Mul]",
          "InverseTimeDecay RealDiv [InverseTimeDecay/initial_learning_rate,InverseTimeDecay/Add]",
      });
  tf::Output staircase = tf::train::inverse_time_decay(0.1, m.step, 10, 0.5, {.staircase = true});
  auto got = m.at({smooth, staircase});
  // TensorFlow:
  check_close(got[0], {0.10000000149011612, 0.08695652335882187, 0.06666667014360428,
                       0.05714285746216774, 0.04444444552063942, 0.03333333507180214});
  check_close(got[1], {0.10000000149011612, 0.10000000149011612, 0.06666667014360428,
                       0.06666667014360428, 0.05000000074505806, 0.03333333507180214});
}

TEST_CASE("train/learning_rate_decay: tensors as learning rate, decay steps and rate") {
  StepGraph m;
  auto base = tf::placeholder<float>(tf::Shape{}, "base");
  tf::Output rate = tf::constant(0.5f, "rate");
  std::size_t first = m.g.num_nodes();
  tf::Output lr = tf::train::inverse_time_decay(base, m.step, 10.0, rate);
  // A float32 tensor is used as it is, and a float number needs no Cast (TensorFlow's graph).
  check_rows(
      rows_since(m.g, first),
      {
          "InverseTimeDecay/Cast/x Const []",
          "InverseTimeDecay/Cast_1 Cast [global_step/read]",
          "InverseTimeDecay/truediv RealDiv [InverseTimeDecay/Cast_1,InverseTimeDecay/Cast/x]",
          "InverseTimeDecay/Const Const []",
          "InverseTimeDecay/Cast_2 Cast [InverseTimeDecay/Const]",
          "InverseTimeDecay/Mul Mul [rate,InverseTimeDecay/truediv]",
          "InverseTimeDecay/Add Add [InverseTimeDecay/Cast_2,InverseTimeDecay/Mul]",
          "InverseTimeDecay RealDiv [base,InverseTimeDecay/Add]",
      });
  tf::Session sess(m.g);
  sess.run(tf::global_variables_initializer());
  sess.run(tf::assign(m.step.ref(), tf::constant(std::int64_t{15})));
  // TensorFlow: 0.11428571492433548
  CHECK(sess.run(lr, {{base, 0.2f}}).scalar<float>() ==
        doctest::Approx(0.11428571492433548).epsilon(1e-7));
}

TEST_CASE("train/learning_rate_decay: an int32 step placeholder and a float64 learning rate") {
  tf::Graph g;
  auto guard = g.as_default();
  auto step = tf::placeholder<std::int32_t>(tf::Shape{}, "step");
  tf::Output f32 = tf::train::exponential_decay(0.1, step, 10, 0.5);
  std::size_t first = g.num_nodes();
  tf::Output f64 = tf::train::exponential_decay(tf::constant(0.1), step, 10, 0.5);
  CHECK(f64.dtype() == tf::DType::float64);
  // The float32 rate is cast to float64: "Cast_1/x" and "Cast_1" (TensorFlow's graph).
  check_rows(
      rows_since(g, first),
      {
          "Const Const []",
          "ExponentialDecay_1/Cast/x Const []",
          "ExponentialDecay_1/Cast Cast [ExponentialDecay_1/Cast/x]",
          "ExponentialDecay_1/Cast_1/x Const []",
          "ExponentialDecay_1/Cast_1 Cast [ExponentialDecay_1/Cast_1/x]",
          "ExponentialDecay_1/Cast_2 Cast [step]",
          "ExponentialDecay_1/truediv RealDiv "
          "[ExponentialDecay_1/Cast_2,ExponentialDecay_1/Cast]",
          "ExponentialDecay_1/Pow Pow [ExponentialDecay_1/Cast_1,ExponentialDecay_1/truediv]",
          "ExponentialDecay_1 Mul [Const,ExponentialDecay_1/Pow]",
      });
  tf::Session sess(g);
  // TensorFlow: 0.06155722215771675 (float32), 0.06155722066724582 (float64)
  CHECK(sess.run(f32, {{step, std::int32_t{7}}}).scalar<float>() ==
        doctest::Approx(0.06155722215771675).epsilon(1e-7));
  CHECK(sess.run(f64, {{step, std::int32_t{7}}}).scalar<double>() ==
        doctest::Approx(0.06155722066724582).epsilon(1e-12));
}

TEST_CASE("train/learning_rate_decay: polynomial_decay's graph and values") {
  StepGraph m;
  tf::Output linear = tf::train::polynomial_decay(0.1, m.step, 20);
  CHECK(linear.name() == "PolynomialDecay:0");
  check_rows(
      rows_since(m.g, m.first),
      {
          "PolynomialDecay/initial_learning_rate Const []",
          "PolynomialDecay/Cast/x Const []",
          "PolynomialDecay/Cast_1/x Const []",
          "PolynomialDecay/Cast_2 Cast [global_step/read]",
          "PolynomialDecay/Cast_3/x Const []",
          "PolynomialDecay/Cast_3 Cast [PolynomialDecay/Cast_3/x]",
          "PolynomialDecay/Minimum Minimum [PolynomialDecay/Cast_2,PolynomialDecay/Cast_3]",
          "PolynomialDecay/truediv RealDiv [PolynomialDecay/Minimum,PolynomialDecay/Cast_3]",
          "PolynomialDecay/sub Sub [PolynomialDecay/initial_learning_rate,PolynomialDecay/Cast/x]",
          "PolynomialDecay/sub_1/x Const []",
          "PolynomialDecay/sub_1 Sub [PolynomialDecay/sub_1/x,PolynomialDecay/truediv]",
          "PolynomialDecay/Pow Pow [PolynomialDecay/sub_1,PolynomialDecay/Cast_1/x]",
          "PolynomialDecay/Mul Mul [PolynomialDecay/sub,PolynomialDecay/Pow]",
          "PolynomialDecay Add [PolynomialDecay/Mul,PolynomialDecay/Cast/x]",
      });
  tf::Output squared =
      tf::train::polynomial_decay(0.1, m.step, 20, {.end_learning_rate = 0.01, .power = 2.0});
  auto got = m.at({linear, squared});
  // TensorFlow:
  check_close(got[0], {0.10000000149011612, 0.08501500636339188, 0.050050001591444016,
                       0.025074999779462814, 9.999999747378752e-05, 9.999999747378752e-05});
  check_close(got[1], {0.10000000149011612, 0.07502499967813492, 0.032499998807907104, 0.015625,
                       0.009999999776482582, 0.009999999776482582});
}

TEST_CASE("train/learning_rate_decay: polynomial_decay with cycle=true") {
  StepGraph m;
  tf::Output cycled = tf::train::polynomial_decay(0.1, m.step, 20, {.cycle = true});
  CHECK(cycled.name() == "PolynomialDecay:0");
  check_rows(
      rows_since(m.g, m.first),
      {
          "PolynomialDecay/initial_learning_rate Const []",
          "PolynomialDecay/Cast/x Const []",
          "PolynomialDecay/Cast_1/x Const []",
          "PolynomialDecay/Cast_2 Cast [global_step/read]",
          "PolynomialDecay/Cast_3/x Const []",
          "PolynomialDecay/Cast_3 Cast [PolynomialDecay/Cast_3/x]",
          "PolynomialDecay/Equal/y Const []",
          "PolynomialDecay/Equal Equal [PolynomialDecay/Cast_2,PolynomialDecay/Equal/y]",
          "PolynomialDecay/truediv/y Const []",
          "PolynomialDecay/truediv RealDiv [PolynomialDecay/Cast_2,PolynomialDecay/truediv/y]",
          "PolynomialDecay/Ceil Ceil [PolynomialDecay/truediv]",
          "PolynomialDecay/SelectV2/t Const []",
          "PolynomialDecay/SelectV2 SelectV2 "
          "[PolynomialDecay/Equal,PolynomialDecay/SelectV2/t,PolynomialDecay/Ceil]",
          "PolynomialDecay/Mul Mul [PolynomialDecay/Cast_3,PolynomialDecay/SelectV2]",
          "PolynomialDecay/truediv_1 RealDiv [PolynomialDecay/Cast_2,PolynomialDecay/Mul]",
          "PolynomialDecay/sub Sub [PolynomialDecay/initial_learning_rate,PolynomialDecay/Cast/x]",
          "PolynomialDecay/sub_1/x Const []",
          "PolynomialDecay/sub_1 Sub [PolynomialDecay/sub_1/x,PolynomialDecay/truediv_1]",
          "PolynomialDecay/Pow Pow [PolynomialDecay/sub_1,PolynomialDecay/Cast_1/x]",
          "PolynomialDecay/Mul_1 Mul [PolynomialDecay/sub,PolynomialDecay/Pow]",
          // TensorFlow 2.21 builds AddV2 for `+`; symflow's is Add (docs/decisions.md).
          "PolynomialDecay Add [PolynomialDecay/Mul_1,PolynomialDecay/Cast/x]",
      });
  tf::Output squared = tf::train::polynomial_decay(
      0.1, m.step, 20, {.end_learning_rate = 0.01, .power = 2.0, .cycle = true});
  auto got = m.at({cycled, squared});
  // TensorFlow: past step 20 the decay starts over toward step 40 (at 25: 0.0375625).
  check_close(got[0], {0.10000000149011612, 0.08501500636339188, 0.050050001591444016,
                       0.025074999779462814, 0.037562500685453415, 9.999999747378752e-05});
  check_close(got[1], {0.10000000149011612, 0.07502499967813492, 0.032499998807907104, 0.015625,
                       0.02265625074505806, 0.009999999776482582});
}

TEST_CASE("train/learning_rate_decay: cosine_decay's graph and values") {
  StepGraph m;
  tf::Output cosine = tf::train::cosine_decay(0.1, m.step, 20);
  // TensorFlow names node names unique ignoring case: the last Mul follows mul_2.
  CHECK(cosine.name() == "CosineDecay/Mul_3:0");
  check_rows(rows_since(m.g, m.first),
             {
                 "CosineDecay/initial_learning_rate Const []",
                 "CosineDecay/Cast/x Const []",
                 "CosineDecay/Cast Cast [CosineDecay/Cast/x]",
                 "CosineDecay/Cast_1 Cast [global_step/read]",
                 "CosineDecay/Minimum Minimum [CosineDecay/Cast_1,CosineDecay/Cast]",
                 "CosineDecay/truediv RealDiv [CosineDecay/Minimum,CosineDecay/Cast]",
                 "CosineDecay/Const Const []",
                 "CosineDecay/mul Mul [CosineDecay/Const,CosineDecay/truediv]",
                 "CosineDecay/Cos Cos [CosineDecay/mul]",
                 "CosineDecay/add/x Const []",
                 // TensorFlow 2.21: AddV2 (here and add_1); symflow's `+` is Add.
                 "CosineDecay/add Add [CosineDecay/add/x,CosineDecay/Cos]",
                 "CosineDecay/mul_1/x Const []",
                 "CosineDecay/mul_1 Mul [CosineDecay/mul_1/x,CosineDecay/add]",
                 "CosineDecay/mul_2/x Const []",
                 "CosineDecay/mul_2 Mul [CosineDecay/mul_2/x,CosineDecay/mul_1]",
                 "CosineDecay/add_1/y Const []",
                 "CosineDecay/add_1 Add [CosineDecay/mul_2,CosineDecay/add_1/y]",
                 "CosineDecay/Mul_3 Mul [CosineDecay/initial_learning_rate,CosineDecay/add_1]",
             });
  CHECK(m.g.get_operation_by_name("CosineDecay/Cast/x").get_attr<tf::Value>("value").dtype() ==
        tf::DType::int32);
  CHECK(
      m.g.get_operation_by_name("CosineDecay/Const").get_attr<tf::Value>("value").scalar<float>() ==
      3.14159265f);
  tf::Output floored = tf::train::cosine_decay(0.1, m.step, 20, 0.25);
  CHECK(floored.name() == "CosineDecay_1/Mul_3:0");
  CHECK(tf::train::cosine_decay(0.1, m.step, 20, 0.0, "cos").name() == "cos/Mul_3:0");
  auto got = m.at({cosine, floored});
  // TensorFlow:
  check_close(got[0], {0.10000000149011612, 0.09455032646656036, 0.04999999701976776,
                       0.014644661918282509, 0.0, 0.0});
  check_close(got[1], {0.10000000149011612, 0.09591274708509445, 0.0625, 0.03598349913954735,
                       0.02500000037252903, 0.02500000037252903});
}

TEST_CASE("train/learning_rate_decay: cosine_decay's errors") {
  StepGraph m;
  // TF: ValueError "None values not supported." for a None global step.
  auto none =
      tf::test::thrown<tf::ValueError>([&] { tf::train::cosine_decay(0.1, tf::Output{}, 20); });
  REQUIRE(none);
  CHECK(none->message() == "None values not supported.");
  // TF: a float64 learning rate meets the float32 pi: TypeError "Input 'y' of 'Mul' Op has
  // type float64 that does not match type float32 of argument 'x'."
  auto mixed = tf::test::thrown<tf::TypeError>(
      [&] { tf::train::cosine_decay(tf::Output(tf::constant<double>(0.1)), m.step, 20); });
  REQUIRE(mixed);
  CHECK(tf::test::contains(mixed->message(), "float64"));
  CHECK(tf::test::contains(mixed->message(), "float32"));
}

TEST_CASE("train/learning_rate_decay: piecewise_constant over the global step") {
  StepGraph m;
  tf::Output lr = tf::train::piecewise_constant(m.step, {10, 20}, {1.0, 0.5, 0.1});
  CHECK(lr.dtype() == tf::DType::float32);
  CHECK(lr.name() == "PiecewiseConstant/case/cond/Merge:0");
  auto rows = rows_since(m.g, m.first);
  REQUIRE(rows.size() > 12);
  // TensorFlow's nodes up to its case (whose exclusivity Assert symflow does not build).
  check_rows(std::vector<std::string>(rows.begin(), rows.begin() + 12),
             {
                 "Const Const []",
                 "Const_1 Const []",
                 "Const_2 Const []",
                 "Const_3 Const []",
                 "Const_4 Const []",
                 "Cast Cast [Const]",
                 "Cast_1 Cast [Const_1]",
                 "PiecewiseConstant/LessEqual LessEqual [global_step/read,Cast]",
                 "PiecewiseConstant/Greater Greater [global_step/read,Cast_1]",
                 "PiecewiseConstant/Greater_1 Greater [global_step/read,Cast]",
                 "PiecewiseConstant/LessEqual_1 LessEqual [global_step/read,Cast_1]",
                 "PiecewiseConstant/and LogicalAnd "
                 "[PiecewiseConstant/Greater_1,PiecewiseConstant/LessEqual_1]",
             });
  CHECK(m.g.get_operation_by_name("PiecewiseConstant/case/cond/cond/cond/Merge").type() == "Merge");
  auto got = m.at({lr});
  // TensorFlow: 1.0, 1.0, 1.0, 0.5, 0.1, 0.1
  check_close(got[0], {1.0, 1.0, 1.0, 0.5, 0.10000000149011612, 0.10000000149011612});
}

TEST_CASE("train/learning_rate_decay: piecewise_constant over int32 and float tensors") {
  tf::Graph g;
  auto guard = g.as_default();
  auto step = tf::placeholder<std::int32_t>(tf::Shape{}, "step");
  tf::Output lr = tf::train::piecewise_constant(step, {10, 20}, {1.0, 0.5, 0.1});
  auto x = tf::placeholder<float>(tf::Shape{}, "x");
  tf::Output by_x = tf::train::piecewise_constant(x, {0.5, 1.5}, {3, 2, 1});
  CHECK(by_x.dtype() == tf::DType::int32);
  tf::Session sess(g);
  // TensorFlow: 0.5 at 15, 1.0 at 10, 0.1 at 21; 3, 2, 2, 1 at 0.5, 0.7, 1.5, 2.0
  CHECK(sess.run(lr, {{step, std::int32_t{15}}}).scalar<float>() == 0.5f);
  CHECK(sess.run(lr, {{step, std::int32_t{10}}}).scalar<float>() == 1.0f);
  CHECK(sess.run(lr, {{step, std::int32_t{21}}}).scalar<float>() == 0.1f);
  std::vector<std::int32_t> got;
  for (float v : {0.5f, 0.7f, 1.5f, 2.0f})
    got.push_back(sess.run(by_x, {{x, v}}).scalar<std::int32_t>());
  CHECK(got == std::vector<std::int32_t>{3, 2, 2, 1});
}

TEST_CASE("train/learning_rate_decay: bad input gives TensorFlow's errors") {
  StepGraph m;
  CHECK_THROWS_WITH_AS(tf::train::piecewise_constant(m.step, {10, 20}, {1.0, 0.5}),
                       "The length of boundaries should be 1 less than the length of values",
                       tf::ValueError);
  CHECK_THROWS_WITH_AS(tf::train::piecewise_constant(m.step, {10.0, 20.0}, {1.0, 0.5, 0.1}),
                       "Boundaries (<dtype: 'float32'>) must have the same dtype as x (<dtype: "
                       "'int64'>).",
                       tf::ValueError);
  CHECK_THROWS_WITH_AS(tf::train::piecewise_constant(m.step, {10, 20}, {1.0, 0.5, 1}),
                       "Values must have elements all with the same dtype (<dtype: 'float32'> vs "
                       "<dtype: 'int32'>).",
                       tf::ValueError);
  // No global step: TensorFlow fails converting None.
  CHECK_THROWS_WITH_AS(tf::train::exponential_decay(0.1, tf::Output{}, 10, 0.5),
                       "None values not supported.", tf::ValueError);
  CHECK_THROWS_WITH_AS(tf::train::polynomial_decay(0.1, tf::Output{}, 10),
                       "None values not supported.", tf::ValueError);
}

TEST_CASE("train/learning_rate_decay: decay_steps of 0 is not checked, as in TensorFlow") {
  StepGraph m;
  tf::Output lr = tf::train::exponential_decay(0.1, m.step, 0, 0.5);
  // TensorFlow at step 5: 0.0 (0.5 ^ inf)
  CHECK(m.at({lr}, {5})[0] == std::vector<double>{0.0});
}

}  // namespace symflow_test_train_learning_rate_decay_test
