// The optimizers' graphs and steps, against TensorFlow 1.x's (oracle: TensorFlow 2.21
// in compat.v1 mode, apply_gradients of hand-made gradients gw = [0.1, -0.2] and
// gb = 0.3 to w = [1, 2] and b = 0.5, with a global step).
#include <doctest/doctest.h>

#include <cmath>
#include <functional>
#include <symflow/symflow.hpp>
#include <symflow/train/learning_rate_decay.hpp>
#include <symflow/train/train.hpp>

#include "../node_rows.hpp"
#include "../test_util.hpp"

namespace symflow_test_train_optimizer_test {

namespace tf = symflow;
using tf::test::check_close;
using tf::test::check_rows;
using tf::test::rows_since;

namespace {

std::vector<std::string> names(const std::vector<tf::Variable>& vars) {
  return tf::test::variable_names(vars);
}

// The graph every test below starts from.
struct Model {
  tf::Graph g;
  tf::DefaultGraphGuard guard{g};
  tf::Variable w{tf::Value{1.0f, 2.0f}, {.name = "w"}};
  tf::Variable b{tf::Value(0.5f), {.name = "b"}};
  tf::Output gw = tf::constant(tf::Value{0.1f, -0.2f}, "gw");
  tf::Output gb = tf::constant(tf::Value(0.3f), "gb");
  tf::Variable gs = tf::train::get_or_create_global_step();
  std::size_t first = g.num_nodes();

  tf::Operation apply(tf::train::Optimizer& opt) {
    return opt.apply_gradients({{gw, w}, {gb, b}}, gs);
  }
};

// Runs `train` `steps` times from fresh variables; returns w[0], w[1], b after each.
std::vector<std::vector<double>> steps(Model& m, const tf::Operation& train, int n) {
  tf::Session sess(m.g);
  sess.run(tf::global_variables_initializer());
  std::vector<std::vector<double>> out;
  for (int i = 0; i < n; ++i) {
    sess.run(train);
    auto w = sess.run(m.w).to_vector<float>();
    out.push_back({w[0], w[1], sess.run(m.b).scalar<float>()});
    CHECK(sess.run(m.gs).scalar<std::int64_t>() == i + 1);
  }
  return out;
}

// The same steps computed by hand in double precision: `rule(x, g, slots, t)` updates
// one element x with gradient g at step t (1-based).
using Rule = std::function<double(double, double, std::vector<double>&, int)>;
std::vector<std::vector<double>> by_hand(const Rule& rule, std::vector<double> initial_slots,
                                         int n) {
  std::vector<double> x{1.0, 2.0, 0.5};
  const std::vector<double> g{0.1, -0.2, 0.3};
  std::vector<std::vector<double>> slots(3, initial_slots);
  std::vector<std::vector<double>> out;
  for (int t = 1; t <= n; ++t) {
    for (std::size_t i = 0; i < 3; ++i) x[i] = rule(x[i], g[i], slots[i], t);
    out.push_back(x);
  }
  return out;
}

void check_steps(const std::vector<std::vector<double>>& got,
                 const std::vector<std::vector<double>>& want, double eps) {
  REQUIRE(got.size() == want.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    CAPTURE(i);
    check_close(got[i], want[i], eps);
  }
}

// float32 hyperparameters, as the optimizers' constants hold them.
double f32(double x) { return static_cast<double>(static_cast<float>(x)); }

}  // namespace

TEST_CASE("train/optimizer: GradientDescent builds TensorFlow's train op") {
  Model m;
  tf::train::GradientDescentOptimizer opt(0.1);
  tf::Operation train = m.apply(opt);
  CHECK(train.name() == "GradientDescent");
  CHECK(train.type() == "AssignAdd");
  check_rows(rows_since(m.g, m.first),
             {
                 "GradientDescent/learning_rate Const [] ",
                 "GradientDescent/update_w/ApplyGradientDescent ApplyGradientDescent "
                 "[w,GradientDescent/learning_rate,gw] loc:@w",
                 "GradientDescent/update_b/ApplyGradientDescent ApplyGradientDescent "
                 "[b,GradientDescent/learning_rate,gb] loc:@b",
                 "GradientDescent/update NoOp "
                 "[^GradientDescent/update_w/ApplyGradientDescent,^GradientDescent/update_b/"
                 "ApplyGradientDescent] ",
                 "GradientDescent/value Const [^GradientDescent/update] loc:@global_step",
                 "GradientDescent AssignAdd [global_step,GradientDescent/value] loc:@global_step",
             });
  CHECK(names(tf::global_variables()) == std::vector<std::string>{"w:0", "b:0", "global_step:0"});
  CHECK(opt.get_slot_names().empty());
  CHECK(m.g.get_operation_by_name("GradientDescent/learning_rate")
            .get_attr<tf::Value>("value")
            .scalar<float>() == 0.1f);
  auto got = steps(m, train, 1);
  // TensorFlow: w [0.9900000095367432, 2.0199999809265137], b 0.47
  check_steps(got, {{0.9900000095367432, 2.0199999809265137, 0.47}}, 1e-7);
  check_steps(got, by_hand([](double x, double g, auto&, int) { return x - f32(0.1) * g; }, {}, 1),
              1e-6);
}

TEST_CASE("train/optimizer: Momentum slots, graph and two steps") {
  Model m;
  tf::train::MomentumOptimizer opt(0.1, 0.9);
  tf::Operation train = m.apply(opt);
  CHECK(train.name() == "Momentum");
  check_rows(rows_since(m.g, m.first),
             {
                 "w/Momentum/Initializer/zeros Const [] loc:@w",
                 "w/Momentum VariableV2 [] loc:@w",
                 "w/Momentum/Assign Assign [w/Momentum,w/Momentum/Initializer/zeros] loc:@w",
                 "w/Momentum/read Identity [w/Momentum] loc:@w",
                 "b/Momentum/Initializer/zeros Const [] loc:@b",
                 "b/Momentum VariableV2 [] loc:@b",
                 "b/Momentum/Assign Assign [b/Momentum,b/Momentum/Initializer/zeros] loc:@b",
                 "b/Momentum/read Identity [b/Momentum] loc:@b",
                 "Momentum/learning_rate Const [] ",
                 "Momentum/momentum Const [] ",
                 "Momentum/update_w/ApplyMomentum ApplyMomentum "
                 "[w,w/Momentum,Momentum/learning_rate,gw,Momentum/momentum] loc:@w",
                 "Momentum/update_b/ApplyMomentum ApplyMomentum "
                 "[b,b/Momentum,Momentum/learning_rate,gb,Momentum/momentum] loc:@b",
                 "Momentum/update NoOp "
                 "[^Momentum/update_w/ApplyMomentum,^Momentum/update_b/ApplyMomentum] ",
                 "Momentum/value Const [^Momentum/update] loc:@global_step",
                 "Momentum AssignAdd [global_step,Momentum/value] loc:@global_step",
             });
  CHECK(names(tf::global_variables()) ==
        std::vector<std::string>{"w:0", "b:0", "global_step:0", "w/Momentum:0", "b/Momentum:0"});
  CHECK(names(tf::trainable_variables()) == std::vector<std::string>{"w:0", "b:0"});
  CHECK(opt.get_slot_names() == std::vector<std::string>{"momentum"});
  REQUIRE(opt.get_slot(m.w, "momentum"));
  CHECK(opt.get_slot(m.w, "momentum")->name() == "w/Momentum:0");
  CHECK(!opt.get_slot(m.w, "m"));
  CHECK(!opt.get_slot(m.gs, "momentum"));
  CHECK(
      m.g.get_operation_by_name("Momentum/update_w/ApplyMomentum").get_attr<bool>("use_nesterov") ==
      false);
  auto got = steps(m, train, 2);
  // TensorFlow: w [0.971, 2.058], b 0.413 after two steps
  check_steps(got,
              {{0.9900000095367432, 2.0199999809265137, 0.47},
               {0.9710000157356262, 2.058000087738037, 0.413}},
              1e-6);
  check_steps(got,
              by_hand(
                  [](double x, double g, std::vector<double>& s, int) {
                    s[0] = s[0] * f32(0.9) + g;
                    return x - f32(0.1) * s[0];
                  },
                  {0.0}, 2),
              1e-6);
}

TEST_CASE("train/optimizer: Momentum with use_nesterov") {
  Model m;
  tf::train::MomentumOptimizer opt(0.1, 0.9, {.use_nesterov = true});
  tf::Operation train = m.apply(opt);
  CHECK(
      m.g.get_operation_by_name("Momentum/update_w/ApplyMomentum").get_attr<bool>("use_nesterov") ==
      true);
  auto got = steps(m, train, 2);
  // TensorFlow: w [0.9539, 2.0922], b 0.3617 after two steps
  check_steps(got,
              {{0.9810000061988831, 2.0380001068115234, 0.443},
               {0.9538999795913696, 2.0922000408172607, 0.3617}},
              1e-6);
  check_steps(got,
              by_hand(
                  [](double x, double g, std::vector<double>& s, int) {
                    double lr = f32(0.1), mu = f32(0.9);
                    s[0] = s[0] * mu + g;
                    return x - (g * lr + s[0] * mu * lr);
                  },
                  {0.0}, 2),
              1e-6);
}

TEST_CASE("train/optimizer: Adam's slots, beta powers, graph and bias correction") {
  Model m;
  tf::train::AdamOptimizer opt({.learning_rate = 0.1});
  tf::Operation train = m.apply(opt);
  CHECK(train.name() == "Adam");
  check_rows(
      rows_since(m.g, m.first),
      {
          "beta1_power/initial_value Const [] loc:@b",
          "beta1_power VariableV2 [] loc:@b",
          "beta1_power/Assign Assign [beta1_power,beta1_power/initial_value] loc:@b",
          "beta1_power/read Identity [beta1_power] loc:@b",
          "beta2_power/initial_value Const [] loc:@b",
          "beta2_power VariableV2 [] loc:@b",
          "beta2_power/Assign Assign [beta2_power,beta2_power/initial_value] loc:@b",
          "beta2_power/read Identity [beta2_power] loc:@b",
          "w/Adam/Initializer/zeros Const [] loc:@w",
          "w/Adam VariableV2 [] loc:@w",
          "w/Adam/Assign Assign [w/Adam,w/Adam/Initializer/zeros] loc:@w",
          "w/Adam/read Identity [w/Adam] loc:@w",
          "w/Adam_1/Initializer/zeros Const [] loc:@w",
          "w/Adam_1 VariableV2 [] loc:@w",
          "w/Adam_1/Assign Assign [w/Adam_1,w/Adam_1/Initializer/zeros] loc:@w",
          "w/Adam_1/read Identity [w/Adam_1] loc:@w",
          "b/Adam/Initializer/zeros Const [] loc:@b",
          "b/Adam VariableV2 [] loc:@b",
          "b/Adam/Assign Assign [b/Adam,b/Adam/Initializer/zeros] loc:@b",
          "b/Adam/read Identity [b/Adam] loc:@b",
          "b/Adam_1/Initializer/zeros Const [] loc:@b",
          "b/Adam_1 VariableV2 [] loc:@b",
          "b/Adam_1/Assign Assign [b/Adam_1,b/Adam_1/Initializer/zeros] loc:@b",
          "b/Adam_1/read Identity [b/Adam_1] loc:@b",
          "Adam/learning_rate Const [] ",
          "Adam/beta1 Const [] ",
          "Adam/beta2 Const [] ",
          "Adam/epsilon Const [] ",
          "Adam/update_w/ApplyAdam ApplyAdam "
          "[w,w/Adam,w/Adam_1,beta1_power/read,beta2_power/read,Adam/learning_rate,Adam/beta1,"
          "Adam/beta2,Adam/epsilon,gw] loc:@w",
          "Adam/update_b/ApplyAdam ApplyAdam "
          "[b,b/Adam,b/Adam_1,beta1_power/read,beta2_power/read,Adam/learning_rate,Adam/beta1,"
          "Adam/beta2,Adam/epsilon,gb] loc:@b",
          "Adam/mul Mul [beta1_power/read,Adam/beta1,^Adam/update_w/ApplyAdam,^Adam/update_b/"
          "ApplyAdam] loc:@b",
          "Adam/Assign Assign [beta1_power,Adam/mul] loc:@b",
          "Adam/mul_1 Mul [beta2_power/read,Adam/beta2,^Adam/update_w/ApplyAdam,^Adam/update_b/"
          "ApplyAdam] loc:@b",
          "Adam/Assign_1 Assign [beta2_power,Adam/mul_1] loc:@b",
          "Adam/update NoOp "
          "[^Adam/update_w/ApplyAdam,^Adam/update_b/ApplyAdam,^Adam/Assign,^Adam/Assign_1] ",
          "Adam/value Const [^Adam/update] loc:@global_step",
          "Adam AssignAdd [global_step,Adam/value] loc:@global_step",
      });
  CHECK(names(tf::global_variables()) ==
        std::vector<std::string>{"w:0", "b:0", "global_step:0", "beta1_power:0", "beta2_power:0",
                                 "w/Adam:0", "w/Adam_1:0", "b/Adam:0", "b/Adam_1:0"});
  CHECK(names(tf::trainable_variables()) == std::vector<std::string>{"w:0", "b:0"});
  CHECK(opt.get_slot_names() == std::vector<std::string>{"m", "v"});
  CHECK(opt.get_slot(m.w, "v")->name() == "w/Adam_1:0");
  CHECK(names(opt.variables()) == std::vector<std::string>{"b/Adam:0", "b/Adam_1:0",
                                                           "beta1_power:0", "beta2_power:0",
                                                           "w/Adam:0", "w/Adam_1:0"});
  CHECK(m.g.get_operation_by_name("Adam/Assign").get_attr<bool>("use_locking") == false);

  auto got = steps(m, train, 2);
  // TensorFlow: step 1 w [0.9000003337860107, 2.0999999046325684], b 0.4000001;
  //             step 2 w [0.8000009059906006, 2.1999993324279785], b 0.3000005
  check_steps(got,
              {{0.9000003337860107, 2.0999999046325684, 0.4000001},
               {0.8000009059906006, 2.1999993324279785, 0.3000005}},
              1e-6);
  check_steps(got,
              by_hand(
                  [](double x, double g, std::vector<double>& s, int t) {
                    double lr = f32(0.1), b1 = f32(0.9), b2 = f32(0.999), eps = f32(1e-8);
                    double alpha = lr * std::sqrt(1 - std::pow(b2, t)) / (1 - std::pow(b1, t));
                    s[0] += (g - s[0]) * (1 - b1);
                    s[1] += (g * g - s[1]) * (1 - b2);
                    return x - s[0] * alpha / (std::sqrt(s[1]) + eps);
                  },
                  {0.0, 0.0}, 2),
              1e-5);
  // The beta powers after two steps: beta^3 (TensorFlow: 0.7289999127388, 0.9970030784606934).
  tf::Session sess(m.g);
  sess.run(tf::global_variables_initializer());
  sess.run(train);
  sess.run(train);
  auto b1p = tf::Variable::from_op(m.g.get_operation_by_name("beta1_power"));
  auto b2p = tf::Variable::from_op(m.g.get_operation_by_name("beta2_power"));
  CHECK(sess.run(b1p).scalar<float>() == doctest::Approx(0.7289999127388).epsilon(1e-7));
  CHECK(sess.run(b2p).scalar<float>() == doctest::Approx(0.9970030784606934).epsilon(1e-7));
  check_close(sess.run(*opt.get_slot(m.w, "m")).to_vector<float>(),
              {0.01900000497698784f, -0.03800000995397568f}, 1e-6);
  check_close(sess.run(*opt.get_slot(m.w, "v")).to_vector<float>(),
              {1.9989744032500312e-05f, 7.995897613000125e-05f}, 1e-5);
}

TEST_CASE("train/optimizer: RMSProp starts its mean square at ones") {
  Model m;
  tf::train::RMSPropOptimizer opt(0.1);
  tf::Operation train = m.apply(opt);
  CHECK(train.name() == "RMSProp");
  auto rows = rows_since(m.g, m.first);
  REQUIRE(rows.size() == 25);
  CHECK(rows[0] == "w/RMSProp/Initializer/ones Const [] loc:@w");
  CHECK(rows[4] == "w/RMSProp_1/Initializer/zeros Const [] loc:@w");
  CHECK(rows[16] == "RMSProp/learning_rate Const [] ");
  CHECK(rows[17] == "RMSProp/decay Const [] ");
  CHECK(rows[18] == "RMSProp/momentum Const [] ");
  CHECK(rows[19] == "RMSProp/epsilon Const [] ");
  CHECK(rows[20] ==
        "RMSProp/update_w/ApplyRMSProp ApplyRMSProp "
        "[w,w/RMSProp,w/RMSProp_1,RMSProp/learning_rate,RMSProp/decay,RMSProp/momentum,"
        "RMSProp/epsilon,gw] loc:@w");
  CHECK(names(tf::global_variables()) == std::vector<std::string>{"w:0", "b:0", "global_step:0",
                                                                  "w/RMSProp:0", "w/RMSProp_1:0",
                                                                  "b/RMSProp:0", "b/RMSProp_1:0"});
  CHECK(opt.get_slot_names() == std::vector<std::string>{"momentum", "rms"});
  auto got = steps(m, train, 2);
  // TensorFlow: w [0.9783668518066406, 2.043154001235962], b 0.4355472 after two steps
  check_steps(got,
              {{0.9894649386405945, 2.0210351943969727, 0.46853417},
               {0.9783668518066406, 2.043154001235962, 0.4355472}},
              1e-6);
  check_steps(got,
              by_hand(
                  [](double x, double g, std::vector<double>& s, int) {
                    double lr = f32(0.1), rho = f32(0.9), eps = f32(1e-10);
                    s[0] += (g * g - s[0]) * (1 - rho);
                    s[1] = s[1] * 0.0 + g * lr / std::sqrt(s[0] + eps);
                    return x - s[1];
                  },
                  {1.0, 0.0}, 2),
              1e-5);
}

TEST_CASE("train/optimizer: centered RMSProp with momentum") {
  Model m;
  tf::train::RMSPropOptimizer opt(0.1, {.momentum = 0.5, .centered = true});
  tf::Operation train = m.apply(opt);
  CHECK(m.g.get_operation_by_name("RMSProp/update_w/ApplyCenteredRMSProp").type() ==
        "ApplyCenteredRMSProp");
  CHECK(tf::test::input_names(m.g.get_operation_by_name("RMSProp/update_w/ApplyCenteredRMSProp"))
            .at(1) == "w/RMSProp_1:0");
  CHECK(names(tf::global_variables()) ==
        std::vector<std::string>{"w:0", "b:0", "global_step:0", "w/RMSProp:0", "w/RMSProp_1:0",
                                 "w/RMSProp_2:0", "b/RMSProp:0", "b/RMSProp_1:0", "b/RMSProp_2:0"});
  CHECK(opt.get_slot_names() == std::vector<std::string>{"mg", "momentum", "rms"});
  CHECK(opt.get_slot(m.w, "mg")->name() == "w/RMSProp_1:0");
  CHECK(opt.get_slot(m.w, "momentum")->name() == "w/RMSProp_2:0");
  auto got = steps(m, train, 2);
  // TensorFlow: w [0.9730959534645081, 2.0536978244781494], b 0.4197259 after two steps
  check_steps(got,
              {{0.9894643425941467, 2.0210397243499756, 0.46851856},
               {0.9730959534645081, 2.0536978244781494, 0.4197259}},
              1e-6);
}

TEST_CASE("train/optimizer: Adagrad's accumulator starts at 0.1") {
  Model m;
  tf::train::AdagradOptimizer opt(0.1);
  tf::Operation train = m.apply(opt);
  check_rows(rows_since(m.g, m.first),
             {
                 "w/Adagrad/Initializer/Const Const [] loc:@w",
                 "w/Adagrad VariableV2 [] loc:@w",
                 "w/Adagrad/Assign Assign [w/Adagrad,w/Adagrad/Initializer/Const] loc:@w",
                 "w/Adagrad/read Identity [w/Adagrad] loc:@w",
                 "b/Adagrad/Initializer/Const Const [] loc:@b",
                 "b/Adagrad VariableV2 [] loc:@b",
                 "b/Adagrad/Assign Assign [b/Adagrad,b/Adagrad/Initializer/Const] loc:@b",
                 "b/Adagrad/read Identity [b/Adagrad] loc:@b",
                 "Adagrad/learning_rate Const [] ",
                 "Adagrad/update_w/ApplyAdagrad ApplyAdagrad "
                 "[w,w/Adagrad,Adagrad/learning_rate,gw] loc:@w",
                 "Adagrad/update_b/ApplyAdagrad ApplyAdagrad "
                 "[b,b/Adagrad,Adagrad/learning_rate,gb] loc:@b",
                 "Adagrad/update NoOp "
                 "[^Adagrad/update_w/ApplyAdagrad,^Adagrad/update_b/ApplyAdagrad] ",
                 "Adagrad/value Const [^Adagrad/update] loc:@global_step",
                 "Adagrad AssignAdd [global_step,Adagrad/value] loc:@global_step",
             });
  CHECK(opt.get_slot_names() == std::vector<std::string>{"accumulator"});
  auto got = steps(m, train, 2);
  // TensorFlow: w [0.9409813284873962, 2.100592613220215], b 0.3744806 after two steps
  check_steps(got,
              {{0.9698488712310791, 2.053452253341675, 0.4311753},
               {0.9409813284873962, 2.100592613220215, 0.3744806}},
              1e-6);
  check_steps(got,
              by_hand(
                  [](double x, double g, std::vector<double>& s, int) {
                    s[0] += g * g;
                    return x - g * f32(0.1) / std::sqrt(s[0]);
                  },
                  {f32(0.1)}, 2),
              1e-5);
  CHECK_THROWS_WITH_AS(tf::train::AdagradOptimizer(0.1, {.initial_accumulator_value = 0.0}),
                       "initial_accumulator_value must be positive: 0.0", tf::ValueError);
}

TEST_CASE("train/optimizer: without a global step the group carries the optimizer's name") {
  tf::Graph g;
  auto guard = g.as_default();
  tf::Variable w(tf::Value{1.0f, 2.0f}, {.name = "w"});
  tf::train::GradientDescentOptimizer opt(0.5);
  tf::Operation train = opt.apply_gradients({{tf::constant(tf::Value{1.0f, 1.0f}), w}});
  CHECK(train.name() == "GradientDescent");
  CHECK(train.type() == "NoOp");
  CHECK(train.node_def().input ==
        std::vector<std::string>{"^GradientDescent/update_w/ApplyGradientDescent"});
  // A second apply gets its own scope; both are in TRAIN_OP.
  tf::Operation again = opt.apply_gradients({{tf::constant(tf::Value{1.0f, 1.0f}), w}}, {}, "step");
  CHECK(again.name() == "step");
  CHECK(g.get_collection(tf::GraphKeys::TRAIN_OP).size() == 2);
  tf::Session sess(g);
  sess.run(w.initializer());
  sess.run(train);
  CHECK(sess.run(w).to_vector<float>() == std::vector<float>{0.5f, 1.5f});
}

TEST_CASE("train/optimizer: a None gradient is skipped; all None is a ValueError") {
  Model m;
  tf::train::MomentumOptimizer opt(0.1, 0.9);
  tf::Operation train = opt.apply_gradients({{tf::Output{}, m.w}, {m.gb, m.b}}, m.gs);
  // No slot and no update for w.
  CHECK(names(tf::global_variables()) ==
        std::vector<std::string>{"w:0", "b:0", "global_step:0", "b/Momentum:0"});
  CHECK(m.g.get_operation_by_name("Momentum/update").node_def().input ==
        std::vector<std::string>{"^Momentum/update_b/ApplyMomentum"});
  auto got = steps(m, train, 1);
  CHECK(got[0][0] == 1.0);
  CHECK(got[0][1] == 2.0);
  CHECK(got[0][2] == doctest::Approx(0.47));

  tf::train::GradientDescentOptimizer gd(0.1);
  // TensorFlow's message.
  CHECK_THROWS_WITH_AS(gd.apply_gradients({{tf::Output{}, m.w}, {tf::Output{}, m.b}}),
                       "No gradients provided for any variable: [\"<tf.Variable 'w:0' shape=(2,) "
                       "dtype=float32_ref>\", \"<tf.Variable 'b:0' shape=() dtype=float32_ref>\"].",
                       tf::ValueError);
  CHECK_THROWS_WITH_AS(gd.apply_gradients({}), "No variables provided.", tf::ValueError);
}

TEST_CASE("train/optimizer: float64 variables get the float32 hyperparameters cast") {
  tf::Graph g;
  auto guard = g.as_default();
  tf::Variable w(tf::Value{1.0, 2.0}, {.name = "w"});
  tf::train::AdamOptimizer opt({.learning_rate = 0.1});
  std::size_t first = g.num_nodes();
  tf::Operation train = opt.apply_gradients({{tf::constant(tf::Value{0.5, 0.5}), w}});
  auto rows = rows_since(g, first);
  // TensorFlow: Adam/update_w/Cast ... Cast_5, then ApplyAdam on the casts.
  CHECK(std::find(rows.begin(), rows.end(), "Adam/update_w/Cast Cast [beta1_power/read] loc:@w") !=
        rows.end());
  CHECK(std::find(rows.begin(), rows.end(), "Adam/update_w/Cast_5 Cast [Adam/epsilon] loc:@w") !=
        rows.end());
  CHECK(tf::test::input_names(g.get_operation_by_name("Adam/update_w/ApplyAdam")) ==
        std::vector<std::string>{"w:0", "w/Adam:0", "w/Adam_1:0", "Adam/update_w/Cast:0",
                                 "Adam/update_w/Cast_1:0", "Adam/update_w/Cast_2:0",
                                 "Adam/update_w/Cast_3:0", "Adam/update_w/Cast_4:0",
                                 "Adam/update_w/Cast_5:0", "Const:0"});
  CHECK(tf::Variable::from_op(g.get_operation_by_name("beta1_power")).dtype() ==
        tf::DType::float32);
  CHECK(opt.get_slot(w, "m")->dtype() == tf::DType::float64);
  tf::Session sess(g);
  sess.run(tf::global_variables_initializer());
  sess.run(train);
  // With g = 0.5 the first Adam step is lr * g / (|g| + eps') = ~0.1 (lr = 0.1f).
  check_close(sess.run(w).to_vector<double>(), {0.9, 1.9}, 1e-6);
}

TEST_CASE("train/optimizer: slot names are uniquified like TensorFlow's") {
  tf::Graph g;
  auto guard = g.as_default();
  tf::Variable w(tf::Value{1.0f, 2.0f}, {.name = "w"});
  auto grad = tf::constant(tf::Value{0.5f, 0.5f});
  tf::train::AdamOptimizer first;
  tf::train::AdamOptimizer second;
  first.apply_gradients({{grad, w}});
  second.apply_gradients({{grad, w}});
  // The same optimizer again reuses its slots and beta powers.
  tf::Operation third = first.apply_gradients({{grad, w}});
  CHECK(third.name() == "Adam_2");
  CHECK(names(tf::global_variables()) ==
        std::vector<std::string>{"w:0", "beta1_power:0", "beta2_power:0", "w/Adam:0", "w/Adam_1:0",
                                 "beta1_power_1:0", "beta2_power_1:0", "w/Adam_2:0", "w/Adam_3:0"});
  CHECK(tf::test::input_names(g.get_operation_by_name("Adam_2/update_w/ApplyAdam")).at(1) ==
        "w/Adam:0");
  {
    // Slots are named in the current variable scope; beta powers in the name scope.
    tf::variable_scope vs("vs");
    tf::train::MomentumOptimizer mom(0.1, 0.9);
    tf::Operation t = mom.apply_gradients({{grad, w}});
    CHECK(t.name() == "vs/Momentum");
    CHECK(mom.get_slot(w, "momentum")->name() == "vs/w/Momentum:0");
  }
  {
    tf::name_scope ns("ns");
    tf::train::AdamOptimizer adam({.learning_rate = 0.1});
    tf::Operation t = adam.apply_gradients({{grad, w}});
    CHECK(t.name() == "ns/Adam");
    CHECK(adam.get_slot(w, "m")->name() == "w/Adam_4:0");
    CHECK(names(adam.variables()) == std::vector<std::string>{"ns/beta1_power:0",
                                                              "ns/beta2_power:0", "w/Adam_4:0",
                                                              "w/Adam_5:0"});
  }
}

TEST_CASE("train/optimizer: a learning rate may be a tensor") {
  tf::Graph g;
  auto guard = g.as_default();
  tf::Variable w(tf::Value{1.0f, 2.0f}, {.name = "w"});
  auto lr = tf::placeholder<float>(tf::Shape{}, "lr");
  tf::train::GradientDescentOptimizer opt(lr);
  tf::Operation train = opt.apply_gradients({{tf::constant(tf::Value{1.0f, 1.0f}), w}});
  CHECK(tf::test::input_names(
            g.get_operation_by_name("GradientDescent/update_w/ApplyGradientDescent")) ==
        std::vector<std::string>{"w:0", "lr:0", "Const:0"});
  CHECK_THROWS_AS(g.get_operation_by_name("GradientDescent/learning_rate"), tf::KeyError);
  tf::Session sess(g);
  sess.run(w.initializer());
  sess.run(std::vector<tf::Fetch>{}, {{lr, 0.25f}}, {train});
  CHECK(sess.run(w).to_vector<float>() == std::vector<float>{0.75f, 1.75f});
  sess.run(std::vector<tf::Fetch>{}, {{lr, 0.5f}}, {train});
  CHECK(sess.run(w).to_vector<float>() == std::vector<float>{0.25f, 1.25f});
}

TEST_CASE("train/optimizer: the name and use_locking options") {
  CHECK_THROWS_WITH_AS(tf::train::GradientDescentOptimizer(0.1, {.name = ""}),
                       "Must specify the optimizer name", tf::ValueError);
  tf::Graph g;
  auto guard = g.as_default();
  tf::Variable w(tf::Value{1.0f, 2.0f}, {.name = "w"});
  auto grad = tf::constant(tf::Value{1.0f, 1.0f});
  tf::train::AdamOptimizer adam({.use_locking = true, .name = "MyAdam"});
  tf::Operation train = adam.apply_gradients({{grad, w}});
  CHECK(train.name() == "MyAdam");
  CHECK(adam.get_slot(w, "m")->name() == "w/MyAdam:0");
  CHECK(g.get_operation_by_name("MyAdam/update_w/ApplyAdam").get_attr<bool>("use_locking"));
  CHECK(g.get_operation_by_name("MyAdam/Assign").get_attr<bool>("use_locking"));
  tf::train::GradientDescentOptimizer gd(0.1);
  gd.apply_gradients({{grad, w}});
  CHECK_FALSE(g.get_operation_by_name("GradientDescent/update_w/ApplyGradientDescent")
                  .get_attr<bool>("use_locking"));
}

TEST_CASE("train/optimizer: Adam takes its learning rate first, as TensorFlow's does") {
  Model positional;
  tf::train::AdamOptimizer by_position(0.1);
  tf::Operation train = positional.apply(by_position);
  CHECK(positional.g.get_operation_by_name("Adam/learning_rate")
            .get_attr<tf::Value>("value")
            .scalar<float>() == 0.1f);
  auto positional_rows = rows_since(positional.g, positional.first);
  auto got = steps(positional, train, 2);
  Model keyword;
  tf::train::AdamOptimizer by_option({.learning_rate = 0.1});
  tf::Operation keyword_train = keyword.apply(by_option);
  // The same graph and the same steps.
  check_rows(positional_rows, rows_since(keyword.g, keyword.first));
  check_steps(got, steps(keyword, keyword_train, 2), 0.0);
  // TensorFlow (AdamOptimizer(0.1)): step 1 w [0.9000003337860107, 2.0999999046325684],
  // b 0.4000001; step 2 w [0.8000009059906006, 2.1999993324279785], b 0.3000005
  check_steps(got,
              {{0.9000003337860107, 2.0999999046325684, 0.4000001},
               {0.8000009059906006, 2.1999993324279785, 0.3000005}},
              1e-6);
  // The options still apply, and the positional rate wins over options.learning_rate.
  tf::Graph g;
  auto guard = g.as_default();
  tf::Variable w(tf::Value{1.0f, 2.0f}, {.name = "w"});
  tf::train::AdamOptimizer named(0.25, {.learning_rate = 0.5, .beta1 = 0.8, .name = "MyAdam"});
  named.apply_gradients({{tf::constant(tf::Value{1.0f, 1.0f}), w}});
  CHECK(g.get_operation_by_name("MyAdam/learning_rate")
            .get_attr<tf::Value>("value")
            .scalar<float>() == 0.25f);
  CHECK(g.get_operation_by_name("MyAdam/beta1").get_attr<tf::Value>("value").scalar<float>() ==
        0.8f);
}

TEST_CASE("train/optimizer: an exponential_decay learning rate follows the global step") {
  // lr = exponential_decay(0.1, global_step, 1, 0.5): 0.05, 0.025, 0.0125 after each step.
  auto train_with = [](auto make) {
    Model m;
    tf::Output lr = tf::train::exponential_decay(0.1, m.gs, 1, 0.5);
    auto opt = make(lr);
    tf::Operation train = m.apply(opt);
    // The schedule is the update's learning rate; no "learning_rate" Const is made.
    bool reads_schedule = false;
    for (const auto& op : m.g.get_operations()) {
      CHECK(op.name().find("/learning_rate") == std::string::npos);
      if (op.type().rfind("Apply", 0) == 0)
        for (const auto& in : tf::test::input_names(op))
          reads_schedule |= in == "ExponentialDecay:0";
    }
    CHECK(reads_schedule);
    return steps(m, train, 3);
  };
  // TensorFlow, after steps 1, 2, 3:
  check_steps(
      train_with([](const tf::Output& lr) { return tf::train::GradientDescentOptimizer(lr); }),
      {{0.9900000095367432, 2.0199999809265137, 0.4699999988079071},
       {0.9850000143051147, 2.0299999713897705, 0.45499998331069946},
       {0.9825000166893005, 2.0350000858306885, 0.44749999046325684}},
      1e-7);
  check_steps(
      train_with([](const tf::Output& lr) { return tf::train::MomentumOptimizer(lr, 0.9); }),
      {{0.9900000095367432, 2.0199999809265137, 0.4699999988079071},
       {0.9804999828338623, 2.0390000343322754, 0.4415000081062317},
       {0.9737249612808228, 2.0525500774383545, 0.4211750030517578}},
      1e-7);
  check_steps(train_with([](const tf::Output& lr) { return tf::train::AdamOptimizer(lr); }),
              {{0.9000003337860107, 2.0999999046325684, 0.40000009536743164},
               {0.8500006198883057, 2.1499996185302734, 0.3500002920627594},
               {0.8250008225440979, 2.174999475479126, 0.32500046491622925}},
              1e-6);
}

}  // namespace symflow_test_train_optimizer_test
