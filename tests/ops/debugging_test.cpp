// TensorFlow 1.x's debugging API: is_nan / is_inf / is_finite, check_numerics and
// add_check_numerics_ops, Print, Assert, and the check_ops assertions
// (debugging::assert_equal, assert_positive, assert_rank, ...). Node names, attrs, values,
// Print's standard error and every error text come from TensorFlow 2.21 running the same
// graphs (tensorflow.compat.v1, eager execution disabled).

#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <iostream>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include <symflow/ops/check_ops.hpp>
#include <symflow/ops/logging_ops.hpp>
#include <symflow/symflow.hpp>

#include "../test_util.hpp"

namespace symflow_test_ops_debugging_test {

namespace ops_debugging_test {

using namespace symflow;
using namespace symflow::test;

constexpr float kNan = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

// Every node as "name:type[inputs]", its inputs written as a NodeDef lists them ("x",
// "x:1", "^control"): the form the TensorFlow runs printed.
inline std::vector<std::string> node_list(const Graph& g) {
  std::vector<std::string> out;
  for (const Operation& op : g.get_operations()) {
    std::string s = op.name() + ":" + op.type() + "[";
    bool first = true;
    auto add = [&](const std::string& in) {
      s += (first ? "'" : ", '") + in + "'";
      first = false;
    };
    for (const Output& in : op.inputs()) add(in.index() == 0 ? in.op().name() : in.name());
    for (const Operation& c : op.control_inputs()) add("^" + c.name());
    out.push_back(s + "]");
  }
  return out;
}

// What std::cerr receives while it lives (Print writes there, as TensorFlow's kernel does).
class CerrCapture {
 public:
  CerrCapture() : old_(std::cerr.rdbuf(out_.rdbuf())) {}
  ~CerrCapture() { std::cerr.rdbuf(old_); }
  CerrCapture(const CerrCapture&) = delete;
  CerrCapture& operator=(const CerrCapture&) = delete;
  std::string text() const { return out_.str(); }

 private:
  std::ostringstream out_;
  std::streambuf* old_;
};

// Build-time errors carry symflow's note of the node after TensorFlow's text.
inline bool starts_with(const std::string& text, const std::string& prefix) {
  return text.rfind(prefix, 0) == 0;
}

// The InvalidArgumentError a run of `fetch` raises (REQUIREd).
inline InvalidArgumentError run_error(Session& sess, const Operation& fetch,
                                      const FeedDict& feeds = {}) {
  auto e = thrown<InvalidArgumentError>([&] { sess.run(fetch, feeds); });
  REQUIRE(e);
  return *e;
}
inline InvalidArgumentError run_error(Session& sess, const Output& fetch,
                                      const FeedDict& feeds = {}) {
  auto e = thrown<InvalidArgumentError>([&] { sess.run(fetch, feeds); });
  REQUIRE(e);
  return *e;
}

}  // namespace ops_debugging_test

using namespace ops_debugging_test;

// ---- is_nan, is_inf, is_finite ---------------------------------------------------------

TEST_CASE("ops/debugging: is_nan, is_inf and is_finite of log([1, -1, 0])") {
  Graph g;
  auto guard = g.as_default();
  auto x = constant<float>({1, -1, 0}, Shape{3}, "x");
  auto l = log(x);
  auto a = is_nan(l);
  auto b = is_inf(l);
  auto f = is_finite(l);
  CHECK(a.name() == "IsNan:0");
  CHECK(b.name() == "IsInf:0");
  CHECK(f.name() == "IsFinite:0");
  CHECK(a.dtype() == DType::bool_);
  CHECK(a.get_shape() == Shape{3});
  CHECK(a.op().get_attr<DType>("T") == DType::float32);
  Session sess(g);
  // TF: [False, True, False], [False, False, True], [True, False, False]
  CHECK(sess.run(a).to_vector<bool>() == std::vector<bool>{false, true, false});
  CHECK(sess.run(b).to_vector<bool>() == std::vector<bool>{false, false, true});
  CHECK(sess.run(f).to_vector<bool>() == std::vector<bool>{true, false, false});
}

TEST_CASE("ops/debugging: is_nan, is_inf and is_finite in float64, and their dtype check") {
  Graph g;
  auto guard = g.as_default();
  const double inf = std::numeric_limits<double>::infinity();
  auto x = constant<double>({-inf, std::nan(""), 2.5, inf, -0.0});
  CHECK(run_vector<bool>(is_nan(x)) == std::vector<bool>{false, true, false, false, false});
  CHECK(run_vector<bool>(is_inf(x)) == std::vector<bool>{true, false, false, true, false});
  CHECK(run_vector<bool>(is_finite(x)) == std::vector<bool>{false, false, true, false, true});
  // TF: TypeError "Value passed to parameter 'x' has DataType int32 not in list of allowed
  // values: bfloat16, float16, float32, float64" (symflow has float32 and float64).
  auto e = thrown<TypeError>([&] { is_nan(constant<std::int32_t>({1, 2})); });
  REQUIRE(e);
  CHECK(
      starts_with(e->message(),
                  "Value passed to parameter 'x' has DataType int32 not in list of allowed values: "
                  "float32, float64"));
}

// ---- check_numerics --------------------------------------------------------------------

TEST_CASE("ops/debugging: check_numerics passes its input on, with TensorFlow's attrs") {
  Graph g;
  auto guard = g.as_default();
  auto x = constant<double>({1.5}, Shape{1}, "x");
  auto c = check_numerics(x, "fine");
  CHECK(c.name() == "CheckNumerics:0");
  CHECK(c.op().type() == "CheckNumerics");
  CHECK(c.op().get_attr<std::string>("message") == "fine");
  CHECK(c.op().get_attr<DType>("T") == DType::float64);
  CHECK(input_names(c) == std::vector<std::string>{"x:0"});
  CHECK(check_numerics(x, "").name() == "CheckNumerics_1:0");
  CHECK(run_vector<double>(c) == std::vector<double>{1.5});
}

TEST_CASE("ops/debugging: check_numerics of log(-1) fails with TensorFlow's text") {
  Graph g;
  auto guard = g.as_default();
  Session sess(g);
  // NaN only: TF "log of negative : Tensor had NaN values", node CheckNumerics.
  auto nan_only = check_numerics(log(constant<float>({-1.0f, 4.0f})), "log of negative");
  auto e = run_error(sess, nan_only);
  CHECK(e.message() == "log of negative : Tensor had NaN values");
  CHECK(e.node_name() == "CheckNumerics");
  CHECK(std::string(e.what()) ==
        "log of negative : Tensor had NaN values\n\t [[{{node CheckNumerics}}]]");
  // log([1, -1, 0]): NaN and -inf, "bad log : Tensor had Inf and NaN values".
  auto both = check_numerics(log(constant<float>({1, -1, 0})), "bad log");
  CHECK(run_error(sess, both).message() == "bad log : Tensor had Inf and NaN values");
  // 1 / [0, 1]: "inf here : Tensor had Inf values" from node CheckNumerics_2.
  auto inf_only = check_numerics(constant<float>({1, 1}) / constant<float>({0, 1}), "inf here");
  auto e2 = run_error(sess, inf_only);
  CHECK(e2.message() == "inf here : Tensor had Inf values");
  CHECK(e2.node_name() == "CheckNumerics_2");
  // TF: "Value passed to parameter 'tensor' has DataType int32 not in list of allowed
  // values: bfloat16, float16, float32, float64".
  auto t = thrown<TypeError>([&] { check_numerics(constant<std::int32_t>({1, 2}), "int"); });
  REQUIRE(t);
  CHECK(starts_with(
      t->message(),
      "Value passed to parameter 'tensor' has DataType int32 not in list of allowed values: "
      "float32, float64"));
}

// ---- add_check_numerics_ops -------------------------------------------------------------

TEST_CASE("ops/debugging: add_check_numerics_ops chains a CheckNumerics per float output") {
  Graph g;
  auto guard = g.as_default();
  auto x = constant<float>({1, -2}, Shape{2}, "x");
  auto y = log(x);
  auto z = y * 2.0f;
  constant<std::int32_t>({1, 2}, Shape{2}, "ints");  // not a float: not checked
  Operation chk = add_check_numerics_ops();
  CHECK(chk.name() == "group_deps");
  CHECK(chk.type() == "NoOp");
  // TF (the same graph but the int32 Const):
  // x:Const, Log:Log['x'], mul/y:Const, mul:Mul['Log', 'mul/y'],
  // CheckNumerics:CheckNumerics['x'], CheckNumerics_1['Log', '^CheckNumerics'],
  // CheckNumerics_2['mul/y', '^CheckNumerics_1'], CheckNumerics_3['mul', '^CheckNumerics_2'],
  // group_deps:NoOp['^CheckNumerics_3']
  CHECK(node_list(g) == std::vector<std::string>{
                            "x:Const[]", "Log:Log['x']", "mul/y:Const[]", "mul:Mul['Log', 'mul/y']",
                            "ints:Const[]", "CheckNumerics:CheckNumerics['x']",
                            "CheckNumerics_1:CheckNumerics['Log', '^CheckNumerics']",
                            "CheckNumerics_2:CheckNumerics['mul/y', '^CheckNumerics_1']",
                            "CheckNumerics_3:CheckNumerics['mul', '^CheckNumerics_2']",
                            "group_deps:NoOp['^CheckNumerics_3']"});
  CHECK(g.get_operation_by_name("CheckNumerics_3").get_attr<std::string>("message") == "mul:0");
  Session sess(g);
  // TF: "Log:0 : Tensor had NaN values" from CheckNumerics_1; z alone runs no check.
  auto e = run_error(sess, chk);
  CHECK(e.message() == "Log:0 : Tensor had NaN values");
  CHECK(e.node_name() == "CheckNumerics_1");
  CHECK(sess.run(z).to_vector<float>()[0] == 0.0f);
}

TEST_CASE("ops/debugging: add_check_numerics_ops refuses a graph with a cond, as TF1") {
  Graph g;
  auto guard = g.as_default();
  // An empty graph: just the NoOp "group_deps" (TF).
  CHECK(add_check_numerics_ops().name() == "group_deps");
  auto pred = placeholder<bool>(Shape{});
  cond(
      pred, [] { return Output(constant(1.0f)); }, [] { return Output(constant(2.0f)); });
  // TF 1.x control flow (tf.disable_control_flow_v2()) raises this ValueError.
  auto e = thrown<ValueError>([&] { add_check_numerics_ops(); });
  REQUIRE(e);
  CHECK(e->message() ==
        "`tf.add_check_numerics_ops() is not compatible with TensorFlow control flow "
        "operations such as `tf.cond()` or `tf.while_loop()`.");
}

// ---- Print -----------------------------------------------------------------------------

TEST_CASE("ops/debugging: Print's node, attrs and line for floats, ints, bools, strings") {
  Graph g;
  auto guard = g.as_default();
  auto x = constant<float>({1, 2.5f, 3, 4}, Shape{4}, "x");
  auto i = constant<std::int32_t>({{1, 2}, {3, 4}}, "i");
  auto b = constant<bool>({true, false}, Shape{2}, "b");
  auto s = constant(Value::from_vector<std::string>({"ab", "c d"}, {2}), "s");
  auto sc = constant(7.0f, "sc");
  auto p = Print(x, {x, i, b, s, sc}, "msg: ");
  CHECK(p.name() == "Print:0");
  CHECK(p.op().type() == "Print");
  CHECK(input_names(p) == std::vector<std::string>{"x:0", "x:0", "i:0", "b:0", "s:0", "sc:0"});
  CHECK(p.op().get_attr<DType>("T") == DType::float32);
  CHECK(p.op().get_attr<TypeList>("U").items == std::vector<DType>{DType::float32, DType::int32,
                                                                   DType::bool_, DType::string,
                                                                   DType::float32});
  CHECK(p.op().get_attr<std::string>("message") == "msg: ");
  CHECK(p.op().get_attr<std::int64_t>("first_n") == -1);
  CHECK(p.op().get_attr<std::int64_t>("summarize") == 3);
  CHECK(p.get_shape() == Shape{4});
  Session sess(g);
  CerrCapture capture;
  CHECK(sess.run(p).to_vector<float>() == std::vector<float>{1, 2.5f, 3, 4});
  // TF: msg: [1 2.5 3...][[1 2][3...]...][1 0][ab c d][7]
  CHECK(capture.text() == "msg: [1 2.5 3...][[1 2][3...]...][1 0][ab c d][7]\n");
}

TEST_CASE("ops/debugging: Print's first_n, summarize and number formats") {
  Graph g;
  auto guard = g.as_default();
  auto x = constant<float>({1, 2.5f, 3, 4}, Shape{4}, "x");
  auto i = constant<std::int32_t>({{1, 2}, {3, 4}}, "i");
  auto p2 = Print(x, {x}, "", 2, 2);
  auto p3 = Print(i, {x, i}, "all", -1, -1);
  CHECK(p2.name() == "Print:0");
  CHECK(p3.name() == "Print_1:0");
  auto cube =
      constant(Value::from_vector<double>({0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}, {2, 2, 3}));
  auto p4 = Print(x, {cube, constant<std::int64_t>({0, 1, 2, 3, 4}), constant(0.1), constant(1e-7f),
                      constant(123456789.0f), constant(Value::from_vector<float>({}, {0})),
                      constant(Value::from_vector<double>({}, {0, 3}))});
  auto p5 = Print(x, {cube}, "", -1, 20);
  auto p6 = Print(x, {constant<std::int64_t>({{0, 1}, {2, 3}})}, "", -1, 0);
  auto p7 = Print(x,
                  {constant<float>({1.0f / 3, -2, 1e10f, kNan, kInf, -kInf}),
                   log(constant<float>({-1.0f, 0.0f})), constant(-0.0f)},
                  "", -1, 6);
  auto p8 = Print(x,
                  {constant<double>({1.0 / 3, 1e-5, 1e20}),
                   constant(Value::from_vector<std::uint8_t>({255, 3}, {2}))},
                  "", -1, 6);
  Session sess(g);
  CerrCapture capture;
  for (int run = 0; run < 4; ++run) sess.run(p2);
  CHECK(capture.text() == "[1 2.5...]\n[1 2.5...]\n");  // TF: the first two runs only
  CHECK(sess.run(p3).to_vector<std::int32_t>() == std::vector<std::int32_t>{1, 2, 3, 4});
  for (const Output& p : {p4, p5, p6, p7, p8}) sess.run(p);
  // TF's lines, in order.
  CHECK(capture.text() ==
        "[1 2.5...]\n"
        "[1 2.5...]\n"
        "all[1 2.5 3 4][[1 2][3 4]]\n"
        "[[[0 1 2]]...][0 1 2...][0.1][1e-07][123456792][][]\n"
        "[[[0 1 2][3 4 5]][[6 7 8][9 10 11]]]\n"
        "[...]\n"
        "[0.333333343 -2 1e+10 nan inf -inf][-nan -inf][-0]\n"
        "[0.33333333333333331 1e-05 1e+20][255 3]\n");
  // A second session counts first_n afresh (TensorFlow's kernel is per session).
  Session other(g);
  CerrCapture capture2;
  other.run(p2);
  CHECK(capture2.text() == "[1 2.5...]\n");
}

TEST_CASE("ops/debugging: Print turns values into Consts, escapes strings, passes gradients") {
  Graph g;
  auto guard = g.as_default();
  auto x = placeholder<std::int32_t>(Shape{-1}, "x");
  auto p = Print(x, {x, "hi", 3, 2.5f}, "m");
  // TF: Print/data_1, Print/data_2, Print/data_3 and Print['x', 'x', 'Print/data_1', ...]
  CHECK(node_list(g) ==
        std::vector<std::string>{"x:Placeholder[]", "Print/data_1:Const[]", "Print/data_2:Const[]",
                                 "Print/data_3:Const[]",
                                 "Print:Print['x', 'x', 'Print/data_1', 'Print/data_2', "
                                 "'Print/data_3']"});
  auto quoted = Print(x, {std::string("x\ny\"'\\z\t\x01")});
  Session sess(g);
  CerrCapture capture;
  sess.run(p, {{x, Value{5, 6}}});
  sess.run(quoted, {{x, Value{1}}});
  CHECK(capture.text() == "m[5 6][hi][3][2.5]\n[x\\ny\\\"\\'\\\\z\\t\\001]\n");
}

// ---- Assert ----------------------------------------------------------------------------

TEST_CASE("ops/debugging: Assert's nodes and its failure text") {
  Graph g;
  auto guard = g.as_default();
  auto x = placeholder<std::int32_t>(Shape{-1}, "x");
  Operation a = Assert(reduce_all(greater(x, 0)), {x, "hello"});
  CHECK(a.name() == "Assert/Assert");
  CHECK(a.type() == "Assert");
  CHECK(a.num_outputs() == 0);
  CHECK(a.get_attr<TypeList>("T").items == std::vector<DType>{DType::int32, DType::string});
  CHECK(a.get_attr<std::int64_t>("summarize") == 3);
  // TF: x, Greater/y, Greater, Const, All, Assert/Const (the string converted once more,
  // unused), Assert/Assert/data_1, Assert/Assert['All', 'x', 'Assert/Assert/data_1'].
  CHECK(node_list(g) ==
        std::vector<std::string>{"x:Placeholder[]", "Greater/y:Const[]",
                                 "Greater:Greater['x', 'Greater/y']", "Const:Const[]",
                                 "All:All['Greater', 'Const']", "Assert/Const:Const[]",
                                 "Assert/Assert/data_1:Const[]",
                                 "Assert/Assert:Assert['All', 'x', 'Assert/Assert/data_1']"});
  Session sess(g);
  sess.run(a, {{x, Value{1, 2}}});
  auto e = run_error(sess, a, {{x, Value{1, -2}}});
  CHECK(e.message() == "assertion failed: [1 -2] [hello]");
  CHECK(e.node_name() == "Assert/Assert");
}

TEST_CASE("ops/debugging: Assert as a control dependency, summarize and bad conditions") {
  Graph g;
  auto guard = g.as_default();
  auto x = placeholder<float>(Shape{-1}, "x");
  Operation mine = Assert(greater(x, 0.0f), {x}, 1, "mine");
  CHECK(mine.name() == "mine/Assert");
  Operation a =
      Assert(reduce_all(greater(x, 0.0f)), {x, "hello", constant<std::int32_t>({1, 2, 3, 4})});
  Output y;
  {
    control_dependencies after({a});
    y = identity(x);
  }
  Session sess(g);
  CHECK(sess.run(y, {{x, Value{3.0f}}}).to_vector<float>() == std::vector<float>{3});
  // TF: "assertion failed: [-3] [hello] [1 2 3...]"
  CHECK(run_error(sess, y, {{x, Value{-3.0f}}}).message() ==
        "assertion failed: [-3] [hello] [1 2 3...]");
  // TF's kernel needs a scalar: "In[0] should be a scalar: [2]".
  CHECK(run_error(sess, mine, {{x, Value{-1.0f, -2.0f}}}).message() ==
        "In[0] should be a scalar: [2]");
  CHECK(run_error(sess, Assert(false, {1}, -1)).message() == "assertion failed: [1]");
  auto t = thrown<TypeError>([&] { Assert(constant<std::int32_t>(1), {x}); });
  REQUIRE(t);
  CHECK(starts_with(
      t->message(),
      "Input 'condition' of 'Assert' Op has type int32 that does not match expected type of "
      "bool."));
  auto v = thrown<ValueError>([&] { Assert(true, {}); });
  REQUIRE(v);
  CHECK(v->message() == "Attr 'T' of 'Assert' Op passed list of length 0 less than minimum 1.");
  // A bool value becomes the Const "<scope>/Assert/condition" (TF: Assert_4/Assert/condition,
  // after Assert_4/Const for the data value 1; the failed calls above took their scopes).
  Operation c = Assert(true, {1});
  CHECK(input_names(c) ==
        std::vector<std::string>{"Assert_4/Assert/condition:0", "Assert_4/Assert/data_0:0"});
  CHECK(g.get_operation_by_name("Assert_4/Const").type() == "Const");
}

// ---- assert_equal, assert_less -----------------------------------------------------------

TEST_CASE("ops/debugging: assert_equal's nodes and failure, as TensorFlow builds them") {
  Graph g;
  auto guard = g.as_default();
  auto x = placeholder<std::int32_t>(Shape{-1}, "x");
  auto y = placeholder<std::int32_t>(Shape{-1}, "y");
  Operation e = debugging::assert_equal(x, y);
  CHECK(e.name() == "assert_equal_1/Assert/Assert");
  CHECK(node_list(g) ==
        std::vector<std::string>{
            "x:Placeholder[]", "y:Placeholder[]", "assert_equal_1/Equal:Equal['x', 'y']",
            "assert_equal_1/Const:Const[]",
            "assert_equal_1/All:All['assert_equal_1/Equal', 'assert_equal_1/Const']",
            "assert_equal_1/Assert/Const:Const[]", "assert_equal_1/Assert/Const_1:Const[]",
            "assert_equal_1/Assert/Const_2:Const[]", "assert_equal_1/Assert/Assert/data_0:Const[]",
            "assert_equal_1/Assert/Assert/data_1:Const[]",
            "assert_equal_1/Assert/Assert/data_3:Const[]",
            "assert_equal_1/Assert/Assert:Assert['assert_equal_1/All', "
            "'assert_equal_1/Assert/Assert/data_0', 'assert_equal_1/Assert/Assert/data_1', 'x', "
            "'assert_equal_1/Assert/Assert/data_3', 'y']"});
  Session sess(g);
  sess.run(e, {{x, Value{1, 2}}, {y, Value{1, 2}}});
  auto err = run_error(sess, e, {{x, Value{1, 2}}, {y, Value{1, 3}}});
  CHECK(err.message() ==
        "assertion failed: [Condition x == y did not hold element-wise:] [x (x:0) = ] [1 2] "
        "[y (y:0) = ] [1 3]");
  CHECK(err.node_name() == "assert_equal_1/Assert/Assert");
  // message and summarize (TF, on float placeholders, with the node named "eq_1/..."):
  auto fx = placeholder<float>(Shape{-1}, "fx");
  auto fy = placeholder<float>(Shape{-1}, "fy");
  Operation eq =
      debugging::assert_equal(fx, fy, {.summarize = 1, .message = "custom", .name = "eq"});
  CHECK(eq.name() == "eq_1/Assert/Assert");
  CHECK(run_error(sess, eq, {{fx, Value{1.0f, 2.0f}}, {fy, Value{1.0f, 3.0f}}}).message() ==
        "assertion failed: [custom] [Condition x == y did not hold element-wise:] [x (fx:0) = ] "
        "[1...] [y (fy:0) = ] [1...]");
  // data replaces the default data.
  Operation with_data = debugging::assert_equal(fx, fy, {.data = std::vector<DataArg>{fx, "d"}});
  CHECK(run_error(sess, with_data, {{fx, Value{1.0f, 2.0f}}, {fy, Value{1.0f, 3.0f}}}).message() ==
        "assertion failed: [1 2] [d]");
  // The same tensor twice: TF's NoOp in the first scope.
  CHECK(debugging::assert_equal(x, x).name() == "assert_equal_4/NoOp");
  // TF: TypeError "Input 'y' of 'Equal' Op has type int32 that does not match type float32
  // of argument 'x'."
  auto t = thrown<TypeError>([&] { debugging::assert_equal(fx, x); });
  REQUIRE(t);
  CHECK(starts_with(
      t->message(),
      "Input 'y' of 'Equal' Op has type int32 that does not match type float32 of argument "
      "'x'."));
}

TEST_CASE("ops/debugging: assert_equal of constants fails at once, as TensorFlow's static check") {
  Graph g;
  auto guard = g.as_default();
  auto a = constant<std::int32_t>({1, 2}, Shape{2}, "a");
  auto b = constant<std::int32_t>({1, 3}, Shape{2}, "b");
  auto e = thrown<InvalidArgumentError>([&] { debugging::assert_equal(a, b); });
  REQUIRE(e);
  CHECK(e->message() ==
        "Condition x == y did not hold element-wise:\nx (a:0) = \n[1 2]\ny (b:0) = \n[1 3]");
  auto m = thrown<InvalidArgumentError>(
      [&] { debugging::assert_equal(a, b, {.message = "values differ"}); });
  REQUIRE(m);
  CHECK(m->message() ==
        "values differ\nCondition x == y did not hold element-wise:\nx (a:0) = \n[1 2]\ny (b:0) "
        "= \n[1 3]");
  // Equal constants pass: the Assert is built (TF: assert_equal_5/Assert/Assert).
  CHECK(debugging::assert_equal(a, constant<std::int32_t>({1, 2}, Shape{2}, "c")).name() ==
        "assert_equal_5/Assert/Assert");
}

TEST_CASE("ops/debugging: assert_less at run time, with y converted or given") {
  Graph g;
  auto guard = g.as_default();
  auto p = placeholder<float>(Shape{-1}, "p");
  Operation l = debugging::assert_less(p, constant(2.0f, "two"));
  CHECK(l.name() == "assert_less/Assert/Assert");
  Session sess(g);
  sess.run(l, {{p, Value{1.0f, 1.5f}}});
  CHECK(run_error(sess, l, {{p, Value{1.0f, 2.5f, 3.0f, 4.0f}}}).message() ==
        "assertion failed: [Condition x < y did not hold element-wise:] [x (p:0) = ] [1 2.5 3...] "
        "[y (two:0) = ] [2]");
  // A value for y is the Const "assert_less_1/y" (TF, with x int32 and y = 5).
  auto x = placeholder<std::int32_t>(Shape{-1, 2}, "x");
  Operation l5 = debugging::assert_less(x, 5);
  CHECK(l5.name() == "assert_less_1/Assert/Assert");
  CHECK(run_error(sess, l5, {{x, Value{{1, 7}, {0, 3}}}}).message() ==
        "assertion failed: [Condition x < y did not hold element-wise:] [x (x:0) = ] "
        "[[1 7][0...]...] [y (assert_less_1/y:0) = ] [5]");
}

// ---- assert_positive, assert_negative, assert_non_negative ---------------------------------

TEST_CASE("ops/debugging: assert_positive's nodes and messages") {
  Graph g;
  auto guard = g.as_default();
  auto x = placeholder<std::int32_t>(Shape{-1, 2}, "x");
  Operation a = debugging::assert_positive(x);
  CHECK(a.name() == "assert_positive/assert_less/Assert/Assert");
  CHECK(node_list(g) ==
        std::vector<std::string>{
            "x:Placeholder[]", "assert_positive/Const:Const[]",
            "assert_positive/assert_less/Less:Less['assert_positive/Const', 'x']",
            "assert_positive/assert_less/Const:Const[]",
            "assert_positive/assert_less/All:All['assert_positive/assert_less/Less', "
            "'assert_positive/assert_less/Const']",
            "assert_positive/assert_less/Assert/Const:Const[]",
            "assert_positive/assert_less/Assert/Const_1:Const[]",
            "assert_positive/assert_less/Assert/Const_2:Const[]",
            "assert_positive/assert_less/Assert/Assert/data_0:Const[]",
            "assert_positive/assert_less/Assert/Assert/data_1:Const[]",
            "assert_positive/assert_less/Assert/Assert/data_2:Const[]",
            "assert_positive/assert_less/Assert/Assert:Assert['assert_positive/assert_less/All', "
            "'assert_positive/assert_less/Assert/Assert/data_0', "
            "'assert_positive/assert_less/Assert/Assert/data_1', "
            "'assert_positive/assert_less/Assert/Assert/data_2', 'x']"});
  Operation a2 = debugging::assert_positive(x, {.summarize = 2, .message = "need pos"});
  Operation a3 = debugging::assert_negative(x);
  Operation a4 = debugging::assert_non_negative(x, {.name = "nn"});
  CHECK(a4.name() == "nn/assert_less_equal/Assert/Assert");
  Session sess(g);
  const Value bad{{1, 2}, {0, 3}};
  sess.run(a, {{x, Value{{1, 2}, {5, 3}}}});
  CHECK(run_error(sess, a, {{x, bad}}).message() ==
        "assertion failed: [] [Condition x > 0 did not hold element-wise:] [x (x:0) = ] "
        "[[1 2][0...]...]");
  auto e2 = run_error(sess, a2, {{x, bad}});
  CHECK(e2.message() ==
        "assertion failed: [need pos.  ] [Condition x > 0 did not hold element-wise:] "
        "[x (x:0) = ] [[1 2]...]");
  CHECK(e2.node_name() == "assert_positive_1/assert_less/Assert/Assert");
  auto e3 = run_error(sess, a3, {{x, bad}});
  CHECK(e3.message() ==
        "assertion failed: [] [Condition x < 0 did not hold element-wise:] [x (x:0) = ] "
        "[[1 2][0...]...]");
  CHECK(e3.node_name() == "assert_negative/assert_less/Assert/Assert");
  CHECK(run_error(sess, a4, {{x, Value{{1, -2}, {0, 3}}}}).message() ==
        "assertion failed: [] [Condition x >= 0 did not hold element-wise:] [x (x:0) = ] "
        "[[1 -2][0...]...]");
}

TEST_CASE("ops/debugging: assert_positive of constants fails at once with NumPy's printing") {
  Graph g;
  auto guard = g.as_default();
  auto e = thrown<InvalidArgumentError>([&] {
    debugging::assert_positive(constant<std::int32_t>({{1, 2}, {3, -40}}, "p"));
  });
  REQUIRE(e);
  CHECK(e->message() ==
        "\nCondition x > 0 did not hold element-wise:\nx (p:0) = \n[[  1   2]\n [  3 -40]]");
  auto f = thrown<InvalidArgumentError>([&] {
    debugging::assert_positive(constant<float>({1.5f, -2.0f}, Shape{2}, "q"));
  });
  REQUIRE(f);
  CHECK(f->message() == "\nCondition x > 0 did not hold element-wise:\nx (q:0) = \n[ 1.5 -2. ]");
  auto n = thrown<InvalidArgumentError>([&] {
    debugging::assert_non_negative(constant<float>({{1.5f, 2.0f}, {3.0f, -4.0f}}, "r"),
                                   {.message = "neg"});
  });
  REQUIRE(n);
  CHECK(n->message() ==
        "neg.  \nCondition x >= 0 did not hold element-wise:\nx (r:0) = \n[[ 1.5  2. ]\n [ 3.  "
        "-4. ]]");
}

TEST_CASE("ops/debugging: assert_non_negative guards a sqrt through a control dependency") {
  Graph g;
  auto guard = g.as_default();
  auto p = placeholder<float>(Shape{-1}, "p");
  auto q = sqrt(p);
  Operation ok = debugging::assert_non_negative(p);
  Output out;
  {
    control_dependencies after({ok});
    out = identity(q);
  }
  Session sess(g);
  CHECK(sess.run(out, {{p, Value{4.0f}}}).to_vector<float>() == std::vector<float>{2});
  CHECK(run_error(sess, out, {{p, Value{-4.0f}}}).message() ==
        "assertion failed: [] [Condition x >= 0 did not hold element-wise:] [x (p:0) = ] [-4]");
}

// ---- assert_rank ------------------------------------------------------------------------

TEST_CASE("ops/debugging: assert_rank checks a known rank when it builds") {
  Graph g;
  auto guard = g.as_default();
  auto x = placeholder<float>(Shape{-1, 2}, "x");
  Operation r = debugging::assert_rank(x, 2);
  CHECK(r.name() == "assert_rank/static_checks_determined_all_ok");
  CHECK(r.type() == "NoOp");
  CHECK(node_list(g) == std::vector<std::string>{
                            "x:Placeholder[]", "assert_rank/rank:Const[]",
                            "assert_rank/Shape:Shape['x']",
                            "assert_rank/assert_type/statically_determined_correct_type:NoOp[]",
                            "assert_rank/static_checks_determined_all_ok:NoOp[]"});
  auto e = thrown<ValueError>([&] { debugging::assert_rank(x, 3); });
  REQUIRE(e);
  CHECK(e->message() == "Tensor x:0 must have rank 3.  Received rank 2, shape (None, 2)");
  auto m = thrown<ValueError>([&] { debugging::assert_rank(x, 3, {.message = "m"}); });
  REQUIRE(m);
  CHECK(m->message() == "m.  Tensor x:0 must have rank 3.  Received rank 2, shape (None, 2)");
  auto s = thrown<ValueError>([&] { debugging::assert_rank(constant(1.0f, "one"), 1); });
  REQUIRE(s);
  CHECK(s->message() == "Tensor one:0 must have rank 1.  Received rank 0, shape ()");
  auto v = thrown<ValueError>(
      [&] { debugging::assert_rank(constant<float>({1.0f}, Shape{1}, "v"), 2); });
  REQUIRE(v);
  CHECK(v->message() == "Tensor v:0 must have rank 2.  Received rank 1, shape (1,)");
  // A fully defined shape is folded into the Const "Shape" (TF: assert_rank_5/Shape:Const).
  debugging::assert_rank(constant<float>({{1, 2}, {3, 4}}, "y"), 2);
  CHECK(g.get_operation_by_name("assert_rank_5/Shape").type() == "Const");
}

TEST_CASE("ops/debugging: assert_rank of an unknown rank is an Assert") {
  Graph g;
  auto guard = g.as_default();
  auto u = placeholder<float>(Shape::unknown(), "u");
  Operation r = debugging::assert_rank(u, 2);
  CHECK(r.name() == "assert_rank/Assert/Assert");
  CHECK(node_list(g) ==
        std::vector<std::string>{
            "u:Placeholder[]", "assert_rank/rank:Const[]", "assert_rank/Shape:Shape['u']",
            "assert_rank/assert_type/statically_determined_correct_type:NoOp[]",
            "assert_rank/Rank_1:Rank['u']",
            "assert_rank/Equal:Equal['assert_rank/Rank_1', 'assert_rank/rank']",
            "assert_rank/Assert/Const:Const[]", "assert_rank/Assert/Const_1:Const[]",
            "assert_rank/Assert/Const_2:Const[]", "assert_rank/Assert/Assert/data_0:Const[]",
            "assert_rank/Assert/Assert/data_1:Const[]", "assert_rank/Assert/Assert/data_3:Const[]",
            "assert_rank/Assert/Assert:Assert['assert_rank/Equal', "
            "'assert_rank/Assert/Assert/data_0', 'assert_rank/Assert/Assert/data_1', "
            "'assert_rank/rank', 'assert_rank/Assert/Assert/data_3', 'assert_rank/Shape']"});
  Session sess(g);
  sess.run(r, {{u, Value{{1.0f, 2.0f}}}});
  CHECK(run_error(sess, r, {{u, Value{1.0f, 2.0f}}}).message() ==
        "assertion failed: [] [Tensor u:0 must have rank] [2] [Received shape: ] [2]");
}

}  // namespace symflow_test_ops_debugging_test
