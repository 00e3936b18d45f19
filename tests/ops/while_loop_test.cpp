// tf.while_loop, checked against TensorFlow 2.21's tf.compat.v1 graph mode with control
// flow v1 (tf.disable_control_flow_v2()): the values, the nodes while_loop builds (names,
// ops, inputs), loops nested and mixed with cond, a body that assigns a variable,
// maximum_iterations, shape invariants, and TensorFlow's errors.
#include <doctest/doctest.h>

#include <initializer_list>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include <symflow/symflow.hpp>

namespace symflow_test_ops_while_loop_test {

namespace tf = symflow;

// "name op input, input, ..." for every node of the graph.
std::set<std::string> nodes_of(const tf::Graph& g) {
  std::set<std::string> out;
  for (const tf::NodeDef& n : g.as_graph_def().node) {
    std::string line = n.name + " " + n.op;
    for (std::size_t i = 0; i < n.input.size(); ++i) line += (i ? ", " : " ") + n.input[i];
    out.insert(line);
  }
  return out;
}

// Each of `lines` is a node of `nodes` (nodes_of's form).
void check_has(const std::set<std::string>& nodes, std::initializer_list<const char*> lines) {
  for (const char* line : lines) {
    CAPTURE(line);
    CHECK(nodes.count(line) == 1);
  }
}

TEST_CASE(
    "ops/while_loop: two loop variables and a tensor from outside, as TensorFlow builds them") {
  tf::Graph g;
  auto guard = g.as_default();
  auto x = tf::placeholder<float>(tf::Shape{}, "x");
  auto [i, a] = tf::while_loop([](const tf::Output& i, const tf::Output&) { return i < 5; },
                               [&](const tf::Output& i, const tf::Output& a) {
                                 return std::tuple{i + 1, a * x + 1.0f};
                               },
                               std::tuple{tf::constant(0), tf::constant(1.0f)});
  CHECK(i.name() == "while/Exit:0");
  CHECK(a.name() == "while/Exit_1:0");
  CHECK(a.get_shape() == tf::Shape{});
  // TF 2.21's GraphDef for the same program (the order of its list aside), but that `+`
  // builds Add, as TensorFlow 1.x did, where TF 2.x builds Add (docs/decisions.md).
  const std::set<std::string> expected = {
      "x Placeholder",
      "Const Const",
      "Const_1 Const",
      "while/Enter Enter Const",
      "while/Enter_1 Enter Const_1",
      "while/Merge Merge while/Enter, while/NextIteration",
      "while/Merge_1 Merge while/Enter_1, while/NextIteration_1",
      "while/Less/y Const ^while/Merge",
      "while/Less Less while/Merge, while/Less/y",
      "while/LoopCond LoopCond while/Less",
      "while/Switch Switch while/Merge, while/LoopCond",
      "while/Switch_1 Switch while/Merge_1, while/LoopCond",
      "while/Identity Identity while/Switch:1",
      "while/Identity_1 Identity while/Switch_1:1",
      "while/add/y Const ^while/Identity",
      "while/add Add while/Identity, while/add/y",
      "while/mul Mul while/Identity_1, while/mul/Enter",
      "while/mul/Enter Enter x",
      "while/add_1/y Const ^while/Identity",
      "while/add_1 Add while/mul, while/add_1/y",
      "while/NextIteration NextIteration while/add",
      "while/NextIteration_1 NextIteration while/add_1",
      "while/Exit Exit while/Switch",
      "while/Exit_1 Exit while/Switch_1",
  };
  CHECK(nodes_of(g) == expected);
  const tf::NodeDef enter = g.get_operation_by_name("while/mul/Enter").node_def();
  CHECK(std::get<std::string>(enter.attr.at("frame_name")) == "while/while_context");
  CHECK(std::get<bool>(enter.attr.at("is_constant")) == true);
  CHECK(std::get<std::int64_t>(enter.attr.at("parallel_iterations")) == 10);
  CHECK(std::get<bool>(g.get_operation_by_name("while/Enter").node_def().attr.at("is_constant")) ==
        false);

  // TF: (5, 63.0) for x = 2.
  tf::Session s(g);
  auto r = s.run({i, a}, {{x, tf::Value(2.0f)}});
  CHECK(r[0].scalar<std::int32_t>() == 5);
  CHECK(r[1].scalar<float>() == 63.0f);
  // Again, from the cached plan, with another feed.
  r = s.run({i, a}, {{x, tf::Value(0.5f)}});
  CHECK(r[1].scalar<float>() == doctest::Approx(1.96875f));
}

TEST_CASE("ops/while_loop: an op built outside every context in the middle of a body") {
  // control_dependencies(nullptr) leaves the loop's context: the constant is built outside
  // the loop, between its nodes, and the body reads it through a constant Enter.
  tf::Graph g;
  auto guard = g.as_default();
  tf::Output r = tf::while_loop([](const tf::Output& i) { return i < 10; },
                                [](const tf::Output& i) {
                                  tf::Output step;
                                  {
                                    tf::control_dependencies outside(nullptr);
                                    step = tf::constant(5, "step");
                                  }
                                  return i + step;
                                },
                                tf::constant(0));
  CHECK(nodes_of(g).count("while/add/Enter Enter while/step") == 1);
  tf::Session s(g);
  CHECK(s.run(r).scalar<std::int32_t>() == 10);
}

TEST_CASE("ops/while_loop: a loop whose condition is false at once runs no iteration") {
  tf::Graph g;
  auto guard = g.as_default();
  auto n = tf::placeholder<std::int32_t>(tf::Shape{}, "n");
  tf::Output count = tf::while_loop([&](const tf::Output& i) { return i < n; },
                                    [](const tf::Output& i) { return i + 1; }, tf::constant(0));
  tf::Session s(g);
  CHECK(s.run(count, {{n, tf::Value(0)}}).scalar<std::int32_t>() == 0);
  CHECK(s.run(count, {{n, tf::Value(-3)}}).scalar<std::int32_t>() == 0);
  CHECK(s.run(count, {{n, tf::Value(2000)}}).scalar<std::int32_t>() == 2000);
}

TEST_CASE("ops/while_loop: maximum_iterations adds TensorFlow's counter") {
  tf::Graph g;
  auto guard = g.as_default();
  tf::Output r = tf::while_loop([](const tf::Output& i) { return i < 5; },
                                [](const tf::Output& i) { return i + 1; }, tf::constant(0),
                                {.maximum_iterations = 3});
  CHECK(r.name() == "while/Exit_1:0");
  const std::set<std::string> expected = {
      "Const Const",
      "while/maximum_iterations Const",
      "while/iteration_counter Const",
      "while/Enter Enter while/iteration_counter",
      "while/Enter_1 Enter Const",
      "while/Merge Merge while/Enter, while/NextIteration",
      "while/Merge_1 Merge while/Enter_1, while/NextIteration_1",
      "while/Less Less while/Merge, while/Less/Enter",
      "while/Less/Enter Enter while/maximum_iterations",
      "while/Less_1/y Const ^while/Merge",
      "while/Less_1 Less while/Merge_1, while/Less_1/y",
      "while/LogicalAnd LogicalAnd while/Less, while/Less_1",
      "while/LoopCond LoopCond while/LogicalAnd",
      "while/Switch Switch while/Merge, while/LoopCond",
      "while/Switch_1 Switch while/Merge_1, while/LoopCond",
      "while/Identity Identity while/Switch:1",
      "while/Identity_1 Identity while/Switch_1:1",
      "while/add/y Const ^while/Identity",
      "while/add Add while/Identity, while/add/y",
      "while/add_1/y Const ^while/Identity",
      "while/add_1 Add while/Identity_1, while/add_1/y",
      "while/NextIteration NextIteration while/add",
      "while/NextIteration_1 NextIteration while/add_1",
      "while/Exit Exit while/Switch",
      "while/Exit_1 Exit while/Switch_1",
  };
  CHECK(nodes_of(g) == expected);
  tf::Session s(g);
  CHECK(s.run(r).scalar<std::int32_t>() == 3);  // TF: 3

  // A loop that would never end stops at the limit, given as a tensor.
  auto limit = tf::placeholder<std::int64_t>(tf::Shape{}, "limit");
  tf::Output forever = tf::while_loop([](const tf::Output&) { return tf::constant(true); },
                                      [](const tf::Output& k) { return k * 2.0f; },
                                      tf::constant(1.0f), {.maximum_iterations = limit});
  CHECK(s.run(forever, {{limit, tf::Value(std::int64_t{10})}}).scalar<float>() == 1024.0f);
  CHECK_THROWS_AS(tf::while_loop([](const tf::Output& i) { return i < 5; },
                                 [](const tf::Output& i) { return i + 1; }, tf::constant(0),
                                 {.maximum_iterations = tf::constant({1, 2})}),
                  tf::ValueError);
}

TEST_CASE("ops/while_loop: a loop inside a loop") {
  // TF: inner loop counts j < i from t; (3, 3).
  tf::Graph g;
  auto guard = g.as_default();
  auto [i, t] = tf::while_loop([](const tf::Output& i, const tf::Output&) { return i < 3; },
                               [](const tf::Output& i, const tf::Output& t) {
                                 auto [j, c] = tf::while_loop(
                                     [&](const tf::Output& j, const tf::Output&) { return j < i; },
                                     [](const tf::Output& j, const tf::Output& c) {
                                       return std::tuple{j + 1, c + 1};
                                     },
                                     std::tuple{tf::constant(0), t});
                                 (void)j;
                                 return std::tuple{i + 1, c};
                               },
                               std::tuple{tf::constant(0), tf::constant(0)});
  const std::set<std::string> nodes = nodes_of(g);
  check_has(nodes, {
                       "while/Const Const ^while/Identity",
                       "while/while/Enter Enter while/Const",
                       "while/while/Enter_1 Enter while/Identity_1",
                       "while/while/Less Less while/while/Merge, while/while/Less/Enter",
                       "while/while/Less/Enter Enter while/Identity",
                       "while/while/Merge Merge while/while/Enter, while/while/NextIteration",
                       "while/NextIteration_1 NextIteration while/while/Exit_1",
                   });
  CHECK(nodes.size() == 39);  // TF's count
  CHECK(std::get<std::string>(
            g.get_operation_by_name("while/while/Enter").node_def().attr.at("frame_name")) ==
        "while/while/while_context");
  tf::Session s(g);
  auto r = s.run({i, t});
  CHECK(r[0].scalar<std::int32_t>() == 3);
  CHECK(r[1].scalar<std::int32_t>() == 3);
}

TEST_CASE("ops/while_loop: a cond inside a loop, and a loop inside a cond") {
  tf::Graph g;
  auto guard = g.as_default();
  // TF: (4, 12): s doubles when i > 1, else adds 1.
  auto [i, total] = tf::while_loop(
      [](const tf::Output& i, const tf::Output&) { return i < 4; },
      [](const tf::Output& i, const tf::Output& s) {
        const tf::Output next = i + 1;
        return std::tuple{next, tf::cond(
                                    i > 1, [&] { return s * 2; }, [&] { return s + 1; })};
      },
      std::tuple{tf::constant(0), tf::constant(1)});
  const std::set<std::string> nodes = nodes_of(g);
  check_has(nodes, {
                       "while/cond/Switch Switch while/Greater, while/Greater",
                       "while/cond/mul Mul while/cond/mul/Switch:1, while/cond/mul/y",
                       "while/cond/mul/Switch Switch while/Identity_1, while/cond/pred_id",
                       "while/cond/Merge Merge while/cond/add, while/cond/mul",
                       "while/NextIteration_1 NextIteration while/cond/Merge",
                   });
  CHECK(nodes.size() == 32);  // TF's count

  auto p = tf::placeholder<bool>(tf::Shape{}, "p");
  auto x = tf::placeholder<float>(tf::Shape{2}, "x");
  tf::Output chosen = tf::cond(
      p,
      [&] {
        return tf::while_loop([](const tf::Output& v) { return tf::reduce_sum(v) < 100.0f; },
                              [](const tf::Output& v) { return v * 2.0f; }, x + 1.0f);
      },
      [&] { return x - 1.0f; });
  tf::Session s(g);
  auto r = s.run({i, total});
  CHECK(r[0].scalar<std::int32_t>() == 4);
  CHECK(r[1].scalar<std::int32_t>() == 12);
  const tf::Value xv = tf::Value::from_vector(std::vector<float>{2.0f, 0.5f}, {2});
  // TF: [96, 48] when p, [1, -0.5] otherwise.
  tf::Value c = s.run(chosen, {{p, tf::Value(true)}, {x, xv}});
  CHECK(c.data<float>()[0] == 96.0f);
  CHECK(c.data<float>()[1] == 48.0f);
  c = s.run(chosen, {{p, tf::Value(false)}, {x, xv}});
  CHECK(c.data<float>()[0] == 1.0f);
  CHECK(c.data<float>()[1] == -0.5f);
}

TEST_CASE("ops/while_loop: a body that assigns a variable does it once per iteration") {
  tf::Graph g;
  auto guard = g.as_default();
  tf::Variable v(tf::constant(0.0f), {.name = "v"});
  tf::Output r =
      tf::while_loop([](const tf::Output& i) { return i < 3; },
                     [&](const tf::Output& i) {
                       const std::vector<tf::Operation> update{tf::assign_add(v, 2.0f).op()};
                       tf::control_dependencies deps(update);
                       return i + 1;
                     },
                     tf::constant(0));
  const std::set<std::string> nodes = nodes_of(g);
  // TF 2.21 with a reference variable (use_resource=False).
  check_has(nodes, {
                       "while/AssignAdd/value Const ^while/Identity",
                       "while/AssignAdd AssignAdd while/AssignAdd/RefEnter, while/AssignAdd/value",
                       "while/AssignAdd/RefEnter RefEnter v",
                       "while/add/y Const ^while/AssignAdd",
                       "while/add Add while/Identity, while/add/y",
                   });
  tf::Session s(g);
  s.run(v.initializer());
  CHECK(s.run(r).scalar<std::int32_t>() == 3);
  CHECK(s.run(v.value()).scalar<float>() == 6.0f);  // TF: 6.0
  s.run(r);
  CHECK(s.run(v.value()).scalar<float>() == 12.0f);
}

TEST_CASE("ops/while_loop: shape invariants let a loop variable change its shape") {
  tf::Graph g;
  auto guard = g.as_default();
  // The vector doubles its length each iteration: [1] -> [1, 1, 1, 1].
  auto [i, v] = tf::while_loop([](const tf::Output& i, const tf::Output&) { return i < 2; },
                               [](const tf::Output& i, const tf::Output& v) {
                                 return std::tuple{i + 1, tf::concat({v, v}, 0)};
                               },
                               std::tuple{tf::constant(0), tf::constant({1.0f})},
                               {.shape_invariants = {tf::Shape{}, tf::Shape{-1}}});
  CHECK(v.get_shape() == tf::Shape{-1});
  tf::Session s(g);
  CHECK(s.run(v).dims() == tf::Dims{4});
  (void)i;

  // Without the invariant, TensorFlow's error.
  try {
    tf::while_loop([](const tf::Output& i, const tf::Output&) { return i < 2; },
                   [](const tf::Output& i, const tf::Output& v) {
                     return std::tuple{i + 1, tf::concat({v, v}, 0)};
                   },
                   std::tuple{tf::constant(0), tf::constant({1.0f}, "start")});
    FAIL("a loop variable changed its shape");
  } catch (const tf::ValueError& e) {
    CHECK(std::string(e.what()).find("Input tensor 'start:0' enters the loop with shape (1,), but "
                                     "has shape (2,) after one iteration.") != std::string::npos);
  }
  // An invariant the entering tensor does not meet.
  try {
    tf::while_loop([](const tf::Output& v) { return tf::reduce_sum(v) < 2.0f; },
                   [](const tf::Output& v) { return v; }, tf::constant({1.0f, 2.0f}, "pair"),
                   {.shape_invariants = {tf::Shape{3}}});
    FAIL("an incompatible shape invariant was accepted");
  } catch (const tf::ValueError& e) {
    CHECK(std::string(e.what()) ==
          "The shape invariant specified for pair:0 is not compatible with the initial shape of "
          "the loop variable. It enters the loop with shape (2,), but the specified shape "
          "invariant is (3,).");
  }
}

TEST_CASE("ops/while_loop: TensorFlow's errors for a bad loop") {
  tf::Graph g;
  auto guard = g.as_default();
  auto i0 = tf::constant(0);
  // cond must give a bool scalar.
  CHECK_THROWS_AS(tf::while_loop([](const tf::Output& i) { return i + 5; },
                                 [](const tf::Output& i) { return i + 1; }, i0),
                  tf::TypeError);
  CHECK_THROWS_AS(tf::while_loop(
                      [](const tf::Output&) {
                        return tf::constant({true, false});
                      },
                      [](const tf::Output& i) { return i + 1; }, i0),
                  tf::ValueError);
  // body must give as many values as there are loop variables, of their dtypes.
  CHECK_THROWS_AS(tf::while_loop([](const std::vector<tf::Output>& v) { return v[0] < 5; },
                                 [](const std::vector<tf::Output>& v) {
                                   return std::vector<tf::Output>{v[0] + 1, v[0]};
                                 },
                                 std::vector<tf::Output>{i0}),
                  tf::ValueError);
  try {
    tf::while_loop([](const tf::Output& i) { return i < 5; },
                   [](const tf::Output& i) { return tf::cast(i, tf::DType::float32) + 1.0f; }, i0);
    FAIL("a loop variable changed its dtype");
  } catch (const tf::TypeError& e) {
    CHECK(std::string(e.what()).find("incompatible with expected int32") != std::string::npos);
  }
  CHECK_THROWS_AS(
      tf::while_loop([](const std::vector<tf::Output>& v) { return v[0] < 5; },
                     [](const std::vector<tf::Output>& v) { return v; }, std::vector<tf::Output>{}),
      tf::ValueError);

  // A tensor inside a loop is not used outside it, nor fetched.
  tf::Graph h;
  auto in_h = h.as_default();
  tf::Output r = tf::while_loop([](const tf::Output& i) { return i < 5; },
                                [](const tf::Output& i) { return i + 1; }, tf::constant(0));
  try {
    (void)(h.get_tensor_by_name("while/add:0") * 2);
    FAIL("a tensor inside a loop was read outside it");
  } catch (const tf::ValueError& e) {
    CHECK(std::string(e.what()).find("Cannot use 'while/add' as input to 'mul' because "
                                     "'while/add' is in a while loop.") != std::string::npos);
  }
  tf::Session s(h);
  try {
    s.run(h.get_tensor_by_name("while/add:0"));
    FAIL("a tensor inside a loop was fetched");
  } catch (const tf::ValueError& e) {
    CHECK(std::string(e.what()).find("Operation while/add has been marked as not fetchable.") !=
          std::string::npos);
  }
  CHECK(s.run(r).scalar<std::int32_t>() == 5);
  // A loop that doubles w until it reaches 10: from 3, twice, so d/dw is 4.
  auto w = tf::placeholder<float>(tf::Shape{}, "w");
  tf::Output grown = tf::while_loop([](const tf::Output& v) { return v < 10.0f; },
                                    [](const tf::Output& v) { return v * 2.0f; }, w);
  auto dw = tf::gradients(grown, {w});
  CHECK(s.run(dw[0], {{w, tf::Value(3.0f)}}).scalar<float>() == 4.0f);
}

TEST_CASE("ops/while_loop: typed loop variables keep their types") {
  tf::Graph g;
  auto guard = g.as_default();
  tf::Tensor<float> start = tf::constant(1.0f);
  std::vector<tf::Output> vars{tf::constant(0), start};
  std::vector<tf::Output> out =
      tf::while_loop([](const std::vector<tf::Output>& v) { return v[0] < 4; },
                     [](const std::vector<tf::Output>& v) {
                       return std::vector<tf::Output>{v[0] + 1, v[1] * 3.0f};
                     },
                     vars);
  REQUIRE(out.size() == 2);
  tf::Tensor<float> one = tf::while_loop([](const tf::Tensor<float>& v) { return v < 10.0f; },
                                         [](const tf::Tensor<float>& v) { return v + v; }, start);
  tf::Session s(g);
  CHECK(s.run(out[1]).scalar<float>() == 81.0f);
  CHECK(s.run(one).scalar<float>() == 16.0f);
}

}  // namespace symflow_test_ops_while_loop_test
