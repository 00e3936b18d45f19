// The update ops (ApplyGradientDescent, ApplyMomentum, ApplyAdam, ApplyRMSProp,
// ApplyCenteredRMSProp, ApplyAdagrad): one step against the formula and TensorFlow.
#include <doctest/doctest.h>

#include <cmath>
#include <symflow/ops/registry.hpp>
#include <symflow/symflow.hpp>

#include "../test_util.hpp"

namespace symflow_test_train_training_ops_test {

namespace tf = symflow;
using tf::test::check_close;

namespace {

const std::vector<double> kVar{1.0, -2.0, 3.0};
const std::vector<double> kGrad{0.5, -1.5, 2.0};

template <class T>
tf::Variable make_var(const std::vector<double>& values, const std::string& name) {
  std::vector<T> v(values.begin(), values.end());
  return tf::Variable(tf::Value::from_vector(v, {static_cast<std::int64_t>(v.size())}),
                      {.name = name});
}

template <class T>
tf::Output make_const(const std::vector<double>& values) {
  std::vector<T> v(values.begin(), values.end());
  return tf::constant(tf::Value::from_vector(v, {static_cast<std::int64_t>(v.size())}));
}

template <class T>
std::vector<double> read(tf::Session& sess, const tf::Variable& v) {
  auto got = sess.run(v).to_vector<T>();
  return {got.begin(), got.end()};
}

}  // namespace

TEST_CASE("train/ops: ApplyGradientDescent builds TensorFlow's node and steps var") {
  tf::Graph g;
  auto guard = g.as_default();
  auto var = make_var<float>(kVar, "var");
  auto out = tf::apply_gradient_descent(var, 0.1f, make_const<float>(kGrad));
  CHECK(out.op().type() == "ApplyGradientDescent");
  CHECK(out.op().name() == "ApplyGradientDescent");
  CHECK(tf::test::input_names(out) ==
        std::vector<std::string>{"var:0", "ApplyGradientDescent/alpha:0", "Const:0"});
  CHECK(out.op().get_attr<bool>("use_locking") == false);
  CHECK(out.op().get_attr<tf::DType>("T") == tf::DType::float32);
  CHECK(out.is_ref());
  CHECK(out.get_shape() == tf::Shape{3});
  tf::Session sess(g);
  sess.run(var.initializer());
  // The result is var's reference: fetching it gives the new value.
  auto fetched = sess.run(out).to_vector<float>();
  // TensorFlow 2.21, float32: [0.949999988079071, -1.850000023841858, 2.799999952316284]
  check_close(fetched, {0.949999988079071f, -1.850000023841858f, 2.799999952316284f});
  check_close(read<float>(sess, var), {1.0 - 0.1f * 0.5, -2.0 + 0.1f * 1.5, 3.0 - 0.1f * 2.0},
              1e-6);
}

TEST_CASE("train/ops: every update op matches the formula and TensorFlow in float64") {
  using T = double;
  tf::Graph g;
  auto guard = g.as_default();
  auto grad = make_const<T>(kGrad);
  auto var = make_var<T>(kVar, "var");
  auto gd = tf::apply_gradient_descent(var, 0.1, grad);
  auto v2 = make_var<T>(kVar, "v2"), acc2 = make_var<T>({0.2, 0.3, -0.4}, "acc2");
  auto mom = tf::apply_momentum(v2, acc2, 0.1, grad, 0.9);
  auto v3 = make_var<T>(kVar, "v3"), acc3 = make_var<T>({0.2, 0.3, -0.4}, "acc3");
  auto nes = tf::apply_momentum(v3, acc3, 0.1, grad, 0.9, false, true);
  const double b1p = std::pow(0.9, 3), b2p = std::pow(0.999, 3);
  auto v4 = make_var<T>(kVar, "v4"), m4 = make_var<T>({0.1, 0.2, -0.3}, "m4"),
       s4 = make_var<T>({0.01, 0.02, 0.03}, "s4");
  auto adam = tf::apply_adam(v4, m4, s4, b1p, b2p, 0.01, 0.9, 0.999, 1e-8, grad);
  auto v5 = make_var<T>(kVar, "v5"), m5 = make_var<T>({0.1, 0.2, -0.3}, "m5"),
       s5 = make_var<T>({0.01, 0.02, 0.03}, "s5");
  auto adamn = tf::apply_adam(v5, m5, s5, b1p, b2p, 0.01, 0.9, 0.999, 1e-8, grad, false, true);
  auto v6 = make_var<T>(kVar, "v6"), ms6 = make_var<T>({1.0, 0.5, 2.0}, "ms6"),
       mo6 = make_var<T>({0.1, 0.2, -0.3}, "mo6");
  auto rms = tf::apply_rms_prop(v6, ms6, mo6, 0.01, 0.9, 0.5, 1e-10, grad);
  auto v7 = make_var<T>(kVar, "v7"), mg7 = make_var<T>({0.1, -0.1, 0.2}, "mg7"),
       ms7 = make_var<T>({1.0, 0.5, 2.0}, "ms7"), mo7 = make_var<T>({0.1, 0.2, -0.3}, "mo7");
  auto crms = tf::apply_centered_rms_prop(v7, mg7, ms7, mo7, 0.01, 0.9, 0.5, 1e-10, grad);
  auto v8 = make_var<T>(kVar, "v8"), ac8 = make_var<T>({0.1, 0.2, 0.3}, "ac8");
  auto ada = tf::apply_adagrad(v8, ac8, 0.1, grad);
  auto v9 = make_var<T>(kVar, "v9"), ac9 = make_var<T>({0.1, 0.2, 0.3}, "ac9");
  auto ada2 = tf::apply_adagrad(v9, ac9, 0.1, grad, false, false);
  CHECK(mom.op().get_attr<bool>("use_nesterov") == false);
  CHECK(nes.op().get_attr<bool>("use_nesterov") == true);
  CHECK(ada.op().get_attr<bool>("update_slots") == true);
  CHECK(tf::test::input_names(crms) ==
        std::vector<std::string>{"v7:0", "mg7:0", "ms7:0", "mo7:0", "ApplyCenteredRMSProp/lr:0",
                                 "ApplyCenteredRMSProp/rho:0", "ApplyCenteredRMSProp/momentum:0",
                                 "ApplyCenteredRMSProp/epsilon:0", "Const:0"});

  tf::Session sess(g);
  sess.run(tf::global_variables_initializer());
  sess.run(std::vector<tf::Fetch>{gd, mom, nes, adam, adamn, rms, crms, ada, ada2});

  // The formulas, written out (TensorFlow's training_ops kernels).
  std::vector<double> want_gd, want_mom, want_acc, want_nes, want_adam, want_m, want_v, want_adamn;
  std::vector<double> want_rms, want_ms, want_mo, want_crms, want_mg, want_cmo, want_ada, want_ac,
      want_ada2;
  const std::vector<double> acc0{0.2, 0.3, -0.4}, m0{0.1, 0.2, -0.3}, s0{0.01, 0.02, 0.03},
      ms0{1.0, 0.5, 2.0}, mo0{0.1, 0.2, -0.3}, mg0{0.1, -0.1, 0.2}, ac0{0.1, 0.2, 0.3};
  for (std::size_t i = 0; i < 3; ++i) {
    double x = kVar[i], gr = kGrad[i];
    want_gd.push_back(x - 0.1 * gr);
    double acc = acc0[i] * 0.9 + gr;
    want_acc.push_back(acc);
    want_mom.push_back(x - 0.1 * acc);
    want_nes.push_back(x - (gr * 0.1 + acc * 0.9 * 0.1));
    double alpha = 0.01 * std::sqrt(1 - b2p) / (1 - b1p);
    double m = m0[i] + (gr - m0[i]) * (1 - 0.9);
    double v = s0[i] + (gr * gr - s0[i]) * (1 - 0.999);
    want_m.push_back(m);
    want_v.push_back(v);
    want_adam.push_back(x - m * alpha / (std::sqrt(v) + 1e-8));
    want_adamn.push_back(x - (gr * (1 - 0.9) + 0.9 * m) * alpha / (std::sqrt(v) + 1e-8));
    double ms = ms0[i] + (gr * gr - ms0[i]) * (1 - 0.9);
    double mo = mo0[i] * 0.5 + gr * 0.01 / std::sqrt(ms + 1e-10);
    want_ms.push_back(ms);
    want_mo.push_back(mo);
    want_rms.push_back(x - mo);
    double mg = mg0[i] + (gr - mg0[i]) * (1 - 0.9);
    double cmo = mo0[i] * 0.5 + gr * 0.01 / std::sqrt(ms - mg * mg + 1e-10);
    want_mg.push_back(mg);
    want_cmo.push_back(cmo);
    want_crms.push_back(x - cmo);
    double ac = ac0[i] + gr * gr;
    want_ac.push_back(ac);
    want_ada.push_back(x - gr * 0.1 / std::sqrt(ac));
    want_ada2.push_back(x - gr * 0.1 / std::sqrt(ac0[i]));
  }
  check_close(read<T>(sess, var), want_gd, 1e-14);
  check_close(read<T>(sess, v2), want_mom, 1e-14);
  check_close(read<T>(sess, acc2), want_acc, 1e-14);
  check_close(read<T>(sess, v3), want_nes, 1e-14);
  check_close(read<T>(sess, acc3), want_acc, 1e-14);
  check_close(read<T>(sess, v4), want_adam, 1e-14);
  check_close(read<T>(sess, m4), want_m, 1e-14);
  check_close(read<T>(sess, s4), want_v, 1e-14);
  check_close(read<T>(sess, v5), want_adamn, 1e-14);
  check_close(read<T>(sess, v6), want_rms, 1e-14);
  check_close(read<T>(sess, ms6), want_ms, 1e-14);
  check_close(read<T>(sess, mo6), want_mo, 1e-14);
  check_close(read<T>(sess, v7), want_crms, 1e-14);
  check_close(read<T>(sess, mg7), want_mg, 1e-14);
  check_close(read<T>(sess, mo7), want_cmo, 1e-14);
  check_close(read<T>(sess, v8), want_ada, 1e-14);
  check_close(read<T>(sess, ac8), want_ac, 1e-14);
  check_close(read<T>(sess, v9), want_ada2, 1e-14);
  check_close(read<T>(sess, ac9), ac0, 1e-14);

  // TensorFlow 2.21's results for the same inputs (float64).
  check_close(read<T>(sess, v2), {0.9319999999999999, -1.877, 2.836}, 1e-14);
  check_close(read<T>(sess, v3), {0.8888, -1.7393, 2.6524}, 1e-14);
  check_close(read<T>(sess, v4), {0.9972051907788179, -2.000406467332417, 3.0007672279152597},
              1e-14);
  check_close(read<T>(sess, v5), {0.9964865255505139, -1.9983334839370899, 2.998498425365849},
              1e-14);
  check_close(read<T>(sess, v6), {0.9448012475511807, -2.081742581417847, 3.1365160027510415},
              1e-14);
  check_close(read<T>(sess, v7), {0.944745277824295, -2.080909911293516, 3.136050434156383}, 1e-14);
  check_close(read<T>(sess, mo7), {0.05525472217570508, 0.0809099112935157, -0.13605043415638307},
              1e-13);
  check_close(read<T>(sess, v8), {0.9154845745271484, -1.904168515250009, 2.9035514355659178},
              1e-14);
  check_close(read<T>(sess, v9), {0.841886116991581, -1.6645898033750315, 2.6348516283298893},
              1e-14);
}

TEST_CASE("train/ops: the update ops in float32 match TensorFlow") {
  using T = float;
  tf::Graph g;
  auto guard = g.as_default();
  auto grad = make_const<T>(kGrad);
  auto v4 = make_var<T>(kVar, "v4"), m4 = make_var<T>({0.1, 0.2, -0.3}, "m4"),
       s4 = make_var<T>({0.01, 0.02, 0.03}, "s4");
  auto adam =
      tf::apply_adam(v4, m4, s4, static_cast<float>(std::pow(0.9, 3)),
                     static_cast<float>(std::pow(0.999, 3)), 0.01f, 0.9f, 0.999f, 1e-8f, grad);
  auto v6 = make_var<T>(kVar, "v6"), ms6 = make_var<T>({1.0, 0.5, 2.0}, "ms6"),
       mo6 = make_var<T>({0.1, 0.2, -0.3}, "mo6");
  auto rms = tf::apply_rms_prop(v6, ms6, mo6, 0.01f, 0.9f, 0.5f, 1e-10f, grad);
  auto v2 = make_var<T>(kVar, "v2"), acc2 = make_var<T>({0.2, 0.3, -0.4}, "acc2");
  auto mom = tf::apply_momentum(v2, acc2, 0.1f, grad, 0.9f);
  auto v8 = make_var<T>(kVar, "v8"), ac8 = make_var<T>({0.1, 0.2, 0.3}, "ac8");
  auto ada = tf::apply_adagrad(v8, ac8, 0.1f, grad);
  tf::Session sess(g);
  sess.run(tf::global_variables_initializer());
  sess.run(std::vector<tf::Fetch>{adam, rms, mom, ada});
  // TensorFlow 2.21, float32.
  check_close(read<T>(sess, v4), {0.9972051978111267, -2.000406503677368, 3.000767230987549}, 1e-6);
  check_close(read<T>(sess, m4), {0.14000001549720764, 0.029999956488609314, -0.06999996304512024},
              1e-5);
  check_close(read<T>(sess, s4), {0.010239996947348118, 0.02222997136414051, 0.033969946205616},
              1e-6);
  check_close(read<T>(sess, v6), {0.9448012709617615, -2.081742525100708, 3.1365160942077637},
              1e-6);
  check_close(read<T>(sess, v2), {0.9319999814033508, -1.8769999742507935, 2.8359999656677246},
              1e-6);
  check_close(read<T>(sess, v8), {0.9154845476150513, -1.9041684865951538, 2.9035513401031494},
              1e-6);
}

TEST_CASE("train/ops: build-time errors name the op's inputs as TensorFlow does") {
  tf::Graph g;
  auto guard = g.as_default();
  tf::Variable w(tf::Value{1.0f, 2.0f}, {.name = "w"});
  tf::Variable b(3.0f, {.name = "b"});
  auto two = tf::constant(tf::Value{1.0f, 2.0f});
  // TensorFlow: "Shape must be rank 0 but is rank 1 for '{{node ApplyGradientDescent}} ..."
  CHECK_THROWS_WITH_AS(tf::apply_gradient_descent(w, tf::constant(tf::Value{1.0f}), two),
                       doctest::Contains("Shape must be rank 0 but is rank 1 for "
                                         "'ApplyGradientDescent' (op: 'ApplyGradientDescent')"),
                       tf::ValueError);
  CHECK_THROWS_WITH_AS(
      tf::apply_gradient_descent(w, 1.0f, tf::constant(tf::Value{1.0f, 2.0f, 3.0f})),
      doctest::Contains("Dimension 0 in both shapes must be equal, but are 2 and 3. Shapes are "
                        "[2] and [3]."),
      tf::ValueError);
  CHECK_THROWS_WITH_AS(
      tf::apply_gradient_descent(w, tf::constant(1.0), two),
      doctest::Contains("Input 'alpha' of 'ApplyGradientDescent' Op has type float64 that does "
                        "not match type float32 of argument 'var'."),
      tf::TypeError);
  CHECK_THROWS_WITH_AS(tf::apply_gradient_descent(w.value(), 1.0f, two),
                       doctest::Contains("'ApplyGradientDescent' Op requires that input 'var' be "
                                         "a mutable tensor (e.g.: a tf.Variable)"),
                       tf::TypeError);
  CHECK_THROWS_WITH_AS(tf::apply_momentum(w, b, 1.0f, two, 0.9f),
                       doctest::Contains("Shapes must be equal rank, but are 1 and 0"),
                       tf::ValueError);
  tf::Variable iv(tf::Value{1, 2}, {.name = "iv"});
  CHECK_THROWS_WITH_AS(tf::apply_gradient_descent(iv, 1, tf::constant({1, 2})),
                       doctest::Contains("DataType int32 not in list of allowed values"),
                       tf::TypeError);
}

TEST_CASE("train/ops: run-time errors: uninitialized variables, scalars and shapes") {
  tf::Graph g;
  auto guard = g.as_default();
  tf::Variable w(tf::Value{1.0f, 2.0f}, {.name = "w"});
  tf::Variable acc(tf::Value{0.1f, 0.1f}, {.name = "acc"});
  auto p = tf::placeholder<float>();
  auto gd = tf::apply_gradient_descent(w, p, tf::constant(tf::Value{1.0f, 2.0f}));
  auto gd2 = tf::apply_gradient_descent(w, 0.5f, p);
  auto ada = tf::apply_adagrad(w, acc, 0.5f, tf::constant(tf::Value{1.0f, 2.0f}));
  tf::Session sess(g);
  CHECK_THROWS_WITH_AS(sess.run(gd, {{p, 0.5f}}),
                       doctest::Contains("Attempting to use uninitialized value w"),
                       tf::FailedPreconditionError);
  sess.run(w.initializer());
  CHECK_THROWS_WITH_AS(sess.run(ada),
                       doctest::Contains("Attempting to use uninitialized value acc"),
                       tf::FailedPreconditionError);
  // TensorFlow: "alpha is not a scalar: [2]" and "var and delta do not have the same shape[2] [3]"
  CHECK_THROWS_WITH_AS(sess.run(gd, {{p, tf::Value{0.5f, 0.5f}}}),
                       doctest::Contains("alpha is not a scalar: [2]"), tf::InvalidArgumentError);
  CHECK_THROWS_WITH_AS(sess.run(gd2, {{p, tf::Value{1.0f, 2.0f, 3.0f}}}),
                       doctest::Contains("var and delta do not have the same shape[2] [3]"),
                       tf::InvalidArgumentError);
  // A failed update leaves the variable as it was.
  CHECK(sess.run(w).to_vector<float>() == std::vector<float>{1.0f, 2.0f});
  CHECK(sess.run(gd, {{p, 0.5f}}).to_vector<float>() == std::vector<float>{0.5f, 1.0f});
}

TEST_CASE("train/ops: a value read before the update keeps what it read") {
  tf::Graph g;
  auto guard = g.as_default();
  tf::Variable w(tf::Value{1.0f, 2.0f}, {.name = "w"});
  auto before = tf::identity(w.value() * tf::constant(1.0f));
  tf::Output step;
  {
    tf::control_dependencies deps({before});
    step = tf::apply_gradient_descent(w, 1.0f, tf::constant(tf::Value{1.0f, 1.0f}));
  }
  tf::Session sess(g);
  sess.run(w.initializer());
  auto got = sess.run(std::vector<tf::Fetch>{before, step});
  CHECK(got[0].to_vector<float>() == std::vector<float>{1.0f, 2.0f});
  CHECK(got[1].to_vector<float>() == std::vector<float>{0.0f, 1.0f});
}

TEST_CASE("train/ops: the update ops are registered without a gradient") {
  for (const char* type : {"ApplyGradientDescent", "ApplyMomentum", "ApplyAdam", "ApplyRMSProp",
                           "ApplyCenteredRMSProp", "ApplyAdagrad"}) {
    CAPTURE(type);
    const tf::OpEntry* entry = tf::find_op_entry(type);
    REQUIRE(entry != nullptr);
    CHECK(!entry->grad);
    CHECK(entry->def->stateful);
  }
}

}  // namespace symflow_test_train_training_ops_test
