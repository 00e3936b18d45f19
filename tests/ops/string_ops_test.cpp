// Strings (tf.string): string values, constants, feeds and fetches, printing as Python
// prints the bytes TensorFlow returns, the string ops (StringJoin, StringLength, AsString,
// RegexFullMatch, StaticRegexFullMatch), and the ops that refuse strings. Expected values
// and messages are TensorFlow 2.21's, in tf.compat.v1 graph mode.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include <symflow/symflow.hpp>

#include "../test_util.hpp"

namespace symflow_test_ops_string_ops_test {

namespace tf = symflow;

std::vector<std::string> strings_of(const tf::Value& v) { return v.to_vector<std::string>(); }

TEST_CASE("ops/strings: a string value holds bytes, copies share them, clone copies") {
  tf::Value s("hello");
  CHECK(s.dtype() == tf::string);
  CHECK(s.rank() == 0);
  CHECK(s.scalar<std::string>() == "hello");
  tf::Value v = tf::Value::from_vector<std::string>({"a", std::string("b\0c", 3)}, {2});
  tf::Value shared = v;
  tf::Value deep = v.clone();
  v.data<std::string>()[0] = "changed";
  CHECK(shared.data<std::string>()[0] == "changed");
  CHECK(deep.data<std::string>()[0] == "a");
  CHECK(deep.data<std::string>()[1].size() == 3);
  CHECK(deep == tf::Value::from_vector<std::string>({"a", std::string("b\0c", 3)}, {2}));
  CHECK_FALSE(deep == shared);
  CHECK(tf::Value(tf::string, {2, 0}).size() == 0);
  CHECK(tf::Value(tf::string, {3}).data<std::string>()[2].empty());
  CHECK_THROWS_AS(s.data<float>(), tf::TypeError);
  // TensorFlow's Cast has no string kernel.
  CHECK_THROWS_WITH_AS(s.astype(tf::float32), "Cast string to float is not supported",
                       tf::UnimplementedError);
  CHECK_THROWS_AS(tf::Value(1.5f).astype(tf::string), tf::UnimplementedError);
}

TEST_CASE("ops/strings: values print as Python prints the bytes TensorFlow returns") {
  CHECK(tf::to_string(tf::Value("hello")) == "b'hello'");
  CHECK(tf::to_string(tf::Value("it's")) == "b\"it's\"");
  CHECK(tf::to_string(tf::Value(std::string("x\n\t\\\xff'\"", 7))) == "b'x\\n\\t\\\\\\xff\\'\"'");
  tf::Value v = tf::Value::from_vector<std::string>({"a", "bcd", "it's"}, {3});
  CHECK(tf::to_string(v) == "[b'a' b'bcd' b\"it's\"]");
  CHECK(tf::repr(v) == "array([b'a', b'bcd', b\"it's\"], dtype=object)");
  tf::Value m = tf::Value::from_vector<std::string>({"a", "bcd", "x\n", "\xff"}, {2, 2});
  CHECK(tf::to_string(m) == "[[b'a' b'bcd']\n [b'x\\n' b'\\xff']]");
  CHECK(tf::repr(m) == "array([[b'a', b'bcd'],\n       [b'x\\n', b'\\xff']], dtype=object)");
  CHECK(tf::repr(tf::Value(tf::string, {0, 2})) == "array([], shape=(0, 2), dtype=object)");
}

TEST_CASE("ops/strings: constants, placeholders, feeds and fetches") {
  tf::Graph g;
  auto guard = g.as_default();
  auto s = tf::constant("hello");
  auto l = tf::constant({"a", "bcd"});
  auto p = tf::placeholder<std::string>(tf::Shape{-1}, "p");
  auto id = tf::identity(p);
  CHECK(s.dtype() == tf::string);
  CHECK(s.shape() == tf::Shape{});
  CHECK(l.shape() == tf::Shape{2});
  CHECK(s.op().name() == "Const");
  auto filled = tf::fill({2, 2}, tf::Value("z"));
  auto reshaped = tf::reshape(l, {2, 1});
  auto shape = tf::shape(l);
  tf::Session sess(g);
  CHECK(sess.run(s).scalar<std::string>() == "hello");
  CHECK(tf::to_string(sess.run(s)) == "b'hello'");
  CHECK(strings_of(sess.run(l)) == std::vector<std::string>{"a", "bcd"});
  tf::Value fed = tf::Value::from_vector<std::string>({"p", "q"}, {2});
  CHECK(tf::to_string(sess.run(id, {{p, fed}})) == "[b'p' b'q']");
  CHECK(tf::repr(sess.run(filled)) == "array([[b'z', b'z'],\n       [b'z', b'z']], dtype=object)");
  CHECK(sess.run(reshaped).dims() == tf::Dims{2, 1});
  CHECK(sess.run(shape).to_vector<std::int32_t>() == std::vector<std::int32_t>{2});
  CHECK_THROWS_WITH(sess.run(id, {{p, tf::Value(1.0f)}}),
                    "Cannot feed value of dtype float32 for Tensor 'p:0', which has dtype string");
}

TEST_CASE("ops/strings: StringJoin joins element by element, scalars repeat") {
  tf::Graph g;
  auto guard = g.as_default();
  auto l = tf::constant({"a", "bcd"});
  auto j = tf::strings::join({l, "x", l}, "-");
  CHECK(j.op().type() == "StringJoin");
  CHECK(j.op().get_attr<std::int64_t>("N") == 3);
  CHECK(j.op().get_attr<std::string>("separator") == "-");
  CHECK(j.shape() == tf::Shape{2});
  CHECK(g.get_operation_by_name("StringJoin/inputs_1").type() == "Const");
  auto scalars = tf::strings::join({tf::constant("a"), tf::constant("b")});
  auto column = tf::strings::join(
      {tf::constant(tf::Value::from_vector<std::string>({"a", "b"}, {2, 1})), "c"}, ", ");
  auto p = tf::placeholder<std::string>(tf::Shape{-1}, "p");
  auto q = tf::placeholder<std::string>(tf::Shape{-1}, "q");
  auto pq = tf::strings::join({p, q}, "", "J");
  tf::Session sess(g);
  CHECK(tf::repr(sess.run(j)) == "array([b'a-x-a', b'bcd-x-bcd'], dtype=object)");
  CHECK(tf::to_string(sess.run(scalars)) == "b'ab'");
  CHECK(tf::repr(sess.run(column)) == "array([[b'a, c'],\n       [b'b, c']], dtype=object)");
  CHECK_THROWS_WITH_AS(sess.run(pq, {{p, tf::Value::from_vector<std::string>({"a", "b"}, {2})},
                                     {q, tf::Value::from_vector<std::string>({"a"}, {1})}}),
                       doctest::Contains("Input shapes do not match: [2] vs. [1]"),
                       tf::InvalidArgumentError);
  // Shapes that cannot match fail when the graph is built, with TensorFlow's words.
  CHECK_THROWS_WITH_AS(
      tf::strings::join({l, tf::constant({"a", "b", "c"})}),
      doctest::Contains("Dimension 0 in both shapes must be equal, but are 2 and 3. Shapes are "
                        "[2] and [3]."),
      tf::ValueError);
  CHECK_THROWS_WITH_AS(tf::strings::join({l, tf::constant(1.0f)}),
                       doctest::Contains("Value passed to parameter 'inputs' has DataType float32 "
                                         "not in list of allowed values: string"),
                       tf::TypeError);
}

TEST_CASE("ops/strings: StringLength counts bytes or UTF-8 characters") {
  tf::Graph g;
  auto guard = g.as_default();
  auto l = tf::constant({"a", "bcd"});
  auto n = tf::strings::length(l);
  auto utf8 = tf::strings::length(tf::constant("h\xc3\xa9llo"), "UTF8_CHAR");
  // Bytes that are not continuation bytes count as characters, even in broken UTF-8.
  auto broken = tf::strings::length(tf::constant({"\xff\xfe", "ab\xc3"}), "UTF8_CHAR");
  CHECK(n.dtype() == tf::int32);
  tf::Session sess(g);
  CHECK(tf::repr(sess.run(n)) == "array([1, 3], dtype=int32)");
  CHECK(sess.run(utf8).scalar<std::int32_t>() == 5);
  CHECK(sess.run(broken).to_vector<std::int32_t>() == std::vector<std::int32_t>{2, 3});
  CHECK_THROWS_WITH_AS(
      tf::strings::length(l, "X"),
      doctest::Contains("Attr 'unit' of 'StringLength' Op passed string 'X' not in: \"BYTE\", "
                        "\"UTF8_CHAR\"."),
      tf::ValueError);
}

TEST_CASE("ops/strings: AsString formats as TensorFlow's printf formats do") {
  tf::Graph g;
  auto guard = g.as_default();
  auto fixed = tf::as_string(tf::constant({3.5f, 1.0f, 0.1f, 1.0f / 3, -2.0f, 1e10f}));
  auto shortest = tf::as_string(tf::constant({3.5f, 1e-7f, 12345678.0f}), {.shortest = true});
  auto scientific = tf::as_string(tf::constant({3.5f, 1e-7f}), {.scientific = true});
  auto padded = tf::as_string(tf::constant({3, -42, 7}), {.width = 5, .fill = "0"});
  auto bools = tf::as_string(tf::constant({true, false}));
  auto precise = tf::as_string(tf::constant({3.14159f}), {.precision = 2, .width = 8});
  auto plus = tf::as_string(tf::constant({1.5f}), {.width = 7, .fill = "+"});
  auto wide = tf::as_string(tf::constant(std::int64_t{1} << 40));
  auto bytes = tf::as_string(tf::constant({std::uint8_t{255}}), {.width = 5});
  auto special = tf::as_string(tf::constant({NAN, INFINITY, -INFINITY}));
  CHECK(fixed.op().type() == "AsString");
  CHECK(fixed.op().get_attr<tf::DType>("T") == tf::float32);
  tf::Session sess(g);
  CHECK(strings_of(sess.run(fixed)) == std::vector<std::string>{"3.500000", "1.000000", "0.100000",
                                                                "0.333333", "-2.000000",
                                                                "10000000000.000000"});
  CHECK(strings_of(sess.run(shortest)) == std::vector<std::string>{"3.5", "1e-07", "1.23457e+07"});
  CHECK(strings_of(sess.run(scientific)) ==
        std::vector<std::string>{"3.500000e+00", "1.000000e-07"});
  CHECK(strings_of(sess.run(padded)) == std::vector<std::string>{"00003", "-0042", "00007"});
  CHECK(strings_of(sess.run(bools)) == std::vector<std::string>{"true", "false"});
  CHECK(strings_of(sess.run(precise)) == std::vector<std::string>{"    3.14"});
  CHECK(strings_of(sess.run(plus)) == std::vector<std::string>{"+1.500000"});
  CHECK(sess.run(wide).scalar<std::string>() == "1099511627776");
  CHECK(strings_of(sess.run(bytes)) == std::vector<std::string>{"  255"});
  CHECK(strings_of(sess.run(special)) == std::vector<std::string>{"nan", "inf", "-inf"});

  auto both = tf::as_string(tf::constant({1.0f}), {.scientific = true, .shortest = true});
  auto int_precision = tf::as_string(tf::constant({1}), {.precision = 2});
  auto int_scientific = tf::as_string(tf::constant({1}), {.scientific = true});
  auto bad_fill = tf::as_string(tf::constant({1}), {.width = 3, .fill = "x"});
  auto long_fill = tf::as_string(tf::constant({1}), {.width = 3, .fill = "00"});
  CHECK_THROWS_WITH_AS(sess.run(both),
                       doctest::Contains("Cannot select both scientific and shortest notation"),
                       tf::InvalidArgumentError);
  CHECK_THROWS_WITH_AS(sess.run(int_precision),
                       doctest::Contains("precision not supported for datatype int32"),
                       tf::InvalidArgumentError);
  CHECK_THROWS_WITH_AS(
      sess.run(int_scientific),
      doctest::Contains("scientific and shortest format not supported for datatype int32"),
      tf::InvalidArgumentError);
  CHECK_THROWS_WITH_AS(sess.run(bad_fill), doctest::Contains("Fill argument not supported: \"x\""),
                       tf::InvalidArgumentError);
  CHECK_THROWS_WITH_AS(sess.run(long_fill),
                       doctest::Contains("Fill string must be one or fewer characters"),
                       tf::InvalidArgumentError);
  CHECK_THROWS_AS(tf::as_string(tf::constant("s")), tf::TypeError);
}

#if defined(SYMFLOW_HAVE_RE2) && SYMFLOW_HAVE_RE2
TEST_CASE("ops/strings: regex_full_match matches whole strings with RE2") {
  tf::Graph g;
  auto guard = g.as_default();
  auto l = tf::constant({"abc", "abd", "xabc"});
  auto fixed = tf::strings::regex_full_match(l, "ab.");
  auto pattern = tf::placeholder<std::string>(tf::Shape{}, "pattern");
  auto fed = tf::strings::regex_full_match(l, pattern);
  auto words = tf::strings::regex_full_match(
      tf::constant(tf::Value::from_vector<std::string>({"a1", "b", "", ""}, {2, 2})), "\\w\\d");
  auto utf8 = tf::strings::regex_full_match(tf::constant("\xc3\xa9"), ".");
  CHECK(fixed.op().type() == "StaticRegexFullMatch");
  CHECK(fixed.op().get_attr<std::string>("pattern") == "ab.");
  CHECK(fed.op().type() == "RegexFullMatch");
  tf::Session sess(g);
  CHECK(tf::repr(sess.run(fixed)) == "array([ True,  True, False])");
  CHECK(sess.run(fed, {{pattern, tf::Value("a.*")}}).to_vector<bool>() ==
        std::vector<bool>{true, true, false});
  CHECK(tf::to_string(sess.run(words)) == "[[ True False]\n [False False]]");
  CHECK(sess.run(utf8).scalar<bool>());
  CHECK_THROWS_WITH_AS(sess.run(fed, {{pattern, tf::Value("(")}}),
                       doctest::Contains("Invalid pattern: (, error: missing ): ("),
                       tf::InvalidArgumentError);
  auto broken = tf::strings::regex_full_match(l, "(");
  CHECK_THROWS_WITH_AS(sess.run(broken),
                       doctest::Contains("Invalid pattern: (, error: missing ): ("),
                       tf::InvalidArgumentError);
}
#endif

TEST_CASE("ops/strings: string constants survive GraphDef text, binary and JSON") {
  tf::Graph g;
  {
    auto guard = g.as_default();
    const std::string odd("b\x00\xff\"'\n", 6);  // a NUL, a non-UTF-8 byte, quotes
    auto l = tf::constant(tf::Value::from_vector<std::string>({"a", odd}, {2}), "l");
    auto empty = tf::constant(tf::Value(tf::string, {0}), "empty");
    tf::strings::join({l, tf::constant("!")}, "-", "joined");
    tf::identity(empty, "empty_id");
  }
  // TensorFlow's text format: every element in string_val, C-escaped.
  const std::string text = tf::to_text(g.as_graph_def());
  CHECK(text.find("string_val: \"a\"\n") != std::string::npos);
  CHECK(text.find("string_val: \"b\\000\\377\\\"\\'\\n\"") != std::string::npos);
  const symflow::test::TempDir dir("strings_graph_def");
  for (auto format : {tf::GraphFormat::text, tf::GraphFormat::binary, tf::GraphFormat::json}) {
    CAPTURE(static_cast<int>(format));
    const std::string path = tf::write_graph(g.as_graph_def(), dir.path().string(), "g", format);
    tf::Graph back;
    tf::import_graph_def(tf::read_graph(path), {.name = ""}, back);
    tf::Session sess(back);
    CHECK(strings_of(sess.run(back.get_tensor_by_name("joined:0"))) ==
          std::vector<std::string>{"a-!", std::string("b\x00\xff\"'\n-!", 8)});
    CHECK(sess.run(back.get_tensor_by_name("empty_id:0")).dims() == tf::Dims{0});
  }
}

TEST_CASE("ops/strings: ConcatV2, Pack and GatherV2 move strings, boolean_mask selects them") {
  tf::Graph g;
  auto guard = g.as_default();
  auto l = tf::constant({"a", "bcd"});
  auto joined = tf::concat({l, tf::constant({"x"})}, 0);
  auto stacked = tf::stack({l, l}, 1);
  auto picked = tf::gather(stacked, tf::Value({std::int32_t{1}, std::int32_t{0}}));
  auto masked = tf::boolean_mask(joined, tf::constant({true, false, true}));
  tf::Session sess(g);
  CHECK(strings_of(sess.run(joined)) == std::vector<std::string>{"a", "bcd", "x"});
  CHECK(tf::repr(sess.run(stacked)) ==
        "array([[b'a', b'a'],\n       [b'bcd', b'bcd']], dtype=object)");
  CHECK(strings_of(sess.run(picked)) == std::vector<std::string>{"bcd", "bcd", "a", "a"});
  CHECK(strings_of(sess.run(masked)) == std::vector<std::string>{"a", "x"});
}

TEST_CASE("ops/strings: a string variable holds and assigns strings") {
  tf::Graph g;
  auto guard = g.as_default();
  tf::Variable note(tf::Value("draft"), {.name = "note"});
  auto set = tf::assign(note, tf::constant("final"));
  CHECK(note.dtype() == tf::string);
  tf::Session sess(g);
  sess.run(note.initializer());
  CHECK(sess.run(note).scalar<std::string>() == "draft");
  sess.run(set);
  CHECK(tf::to_string(sess.run(note)) == "b'final'");
  // symflow's own checkpoint format has no strings, and says where they can go.
  tf::train::Saver saver({note});
  const symflow::test::TempDir dir("strings_saver");
  CHECK_THROWS_WITH_AS(saver.save(sess, dir / "model"), doctest::Contains("write_tf_bundle"),
                       tf::UnimplementedError);
}

TEST_CASE("ops/strings: report_uninitialized_variables is TensorFlow's string tensor") {
  tf::Graph g;
  auto guard = g.as_default();
  tf::Variable v(tf::Value(1.0f), {.name = "v"});
  tf::Variable w(tf::Value{1, 2}, {.name = "w"});
  auto report = tf::report_uninitialized_variables();
  CHECK(report.dtype() == tf::string);
  CHECK(report.op().name() == "report_uninitialized_variables/boolean_mask/GatherV2");
  // TF 2.21: the nodes tf.report_uninitialized_variables() adds, with their inputs.
  const std::vector<std::string> expected = {
      "report_uninitialized_variables/IsVariableInitialized IsVariableInitialized v",
      "report_uninitialized_variables/IsVariableInitialized_1 IsVariableInitialized w",
      "report_uninitialized_variables/stack Pack report_uninitialized_variables/"
      "IsVariableInitialized, report_uninitialized_variables/IsVariableInitialized_1",
      "report_uninitialized_variables/LogicalNot LogicalNot report_uninitialized_variables/stack",
      "report_uninitialized_variables/Const Const",
      "report_uninitialized_variables/boolean_mask/Shape Const",
      "report_uninitialized_variables/boolean_mask/strided_slice/stack Const",
      "report_uninitialized_variables/boolean_mask/strided_slice/stack_1 Const",
      "report_uninitialized_variables/boolean_mask/strided_slice/stack_2 Const",
      "report_uninitialized_variables/boolean_mask/strided_slice StridedSlice "
      "report_uninitialized_variables/boolean_mask/Shape, "
      "report_uninitialized_variables/boolean_mask/strided_slice/stack, "
      "report_uninitialized_variables/boolean_mask/strided_slice/stack_1, "
      "report_uninitialized_variables/boolean_mask/strided_slice/stack_2",
      "report_uninitialized_variables/boolean_mask/Prod/reduction_indices Const",
      "report_uninitialized_variables/boolean_mask/Prod Prod "
      "report_uninitialized_variables/boolean_mask/strided_slice, "
      "report_uninitialized_variables/boolean_mask/Prod/reduction_indices",
      "report_uninitialized_variables/boolean_mask/Shape_1 Const",
      "report_uninitialized_variables/boolean_mask/strided_slice_1/stack Const",
      "report_uninitialized_variables/boolean_mask/strided_slice_1/stack_1 Const",
      "report_uninitialized_variables/boolean_mask/strided_slice_1/stack_2 Const",
      "report_uninitialized_variables/boolean_mask/strided_slice_1 StridedSlice "
      "report_uninitialized_variables/boolean_mask/Shape_1, "
      "report_uninitialized_variables/boolean_mask/strided_slice_1/stack, "
      "report_uninitialized_variables/boolean_mask/strided_slice_1/stack_1, "
      "report_uninitialized_variables/boolean_mask/strided_slice_1/stack_2",
      "report_uninitialized_variables/boolean_mask/Shape_2 Const",
      "report_uninitialized_variables/boolean_mask/strided_slice_2/stack Const",
      "report_uninitialized_variables/boolean_mask/strided_slice_2/stack_1 Const",
      "report_uninitialized_variables/boolean_mask/strided_slice_2/stack_2 Const",
      "report_uninitialized_variables/boolean_mask/strided_slice_2 StridedSlice "
      "report_uninitialized_variables/boolean_mask/Shape_2, "
      "report_uninitialized_variables/boolean_mask/strided_slice_2/stack, "
      "report_uninitialized_variables/boolean_mask/strided_slice_2/stack_1, "
      "report_uninitialized_variables/boolean_mask/strided_slice_2/stack_2",
      "report_uninitialized_variables/boolean_mask/concat/values_1 Pack "
      "report_uninitialized_variables/boolean_mask/Prod",
      "report_uninitialized_variables/boolean_mask/concat/axis Const",
      "report_uninitialized_variables/boolean_mask/concat ConcatV2 "
      "report_uninitialized_variables/boolean_mask/strided_slice_1, "
      "report_uninitialized_variables/boolean_mask/concat/values_1, "
      "report_uninitialized_variables/boolean_mask/strided_slice_2, "
      "report_uninitialized_variables/boolean_mask/concat/axis",
      "report_uninitialized_variables/boolean_mask/Reshape Reshape "
      "report_uninitialized_variables/Const, report_uninitialized_variables/boolean_mask/concat",
      "report_uninitialized_variables/boolean_mask/Reshape_1/shape Const",
      "report_uninitialized_variables/boolean_mask/Reshape_1 Reshape "
      "report_uninitialized_variables/LogicalNot, "
      "report_uninitialized_variables/boolean_mask/Reshape_1/shape",
      "report_uninitialized_variables/boolean_mask/Where Where "
      "report_uninitialized_variables/boolean_mask/Reshape_1",
      "report_uninitialized_variables/boolean_mask/Squeeze Squeeze "
      "report_uninitialized_variables/boolean_mask/Where",
      "report_uninitialized_variables/boolean_mask/GatherV2/axis Const",
      "report_uninitialized_variables/boolean_mask/GatherV2 GatherV2 "
      "report_uninitialized_variables/boolean_mask/Reshape, "
      "report_uninitialized_variables/boolean_mask/Squeeze, "
      "report_uninitialized_variables/boolean_mask/GatherV2/axis"};
  std::vector<std::string> nodes;
  for (const tf::NodeDef& n : g.as_graph_def().node) {
    if (n.name.rfind("report_uninitialized_variables/", 0) != 0) continue;
    std::string line = n.name + " " + n.op;
    for (std::size_t i = 0; i < n.input.size(); ++i) line += (i ? ", " : " ") + n.input[i];
    nodes.push_back(line);
    // Everything after the IsVariableInitialized ops is pinned to the CPU.
    CHECK(n.device == (n.op == "IsVariableInitialized" ? "" : "/device:CPU:0"));
  }
  CHECK(nodes == expected);
  tf::Session sess(g);
  // TF: [b'v', b'w'], then [b'w'], then [] (an empty object array).
  CHECK(tf::repr(sess.run(report)) == "array([b'v', b'w'], dtype=object)");
  sess.run(v.initializer());
  CHECK(tf::repr(sess.run(report)) == "array([b'w'], dtype=object)");
  sess.run(w.initializer());
  CHECK(tf::repr(sess.run(report)) == "array([], dtype=object)");

  tf::Graph empty;
  auto guard2 = empty.as_default();
  auto none = tf::report_uninitialized_variables();
  CHECK(none.op().name() == "report_uninitialized_variables/Const");
  CHECK(empty.as_graph_def().node.size() == 1);
  tf::Session empty_sess(empty);
  CHECK(tf::repr(empty_sess.run(none)) == "array([], dtype=object)");
}

TEST_CASE("ops/strings: ops without a string kernel refuse strings when the graph is built") {
  tf::Graph g;
  auto guard = g.as_default();
  auto l = tf::constant({"a", "bcd"});
  // TensorFlow's MatMul says which types it takes.
  CHECK_THROWS_WITH_AS(tf::matmul(l, l),
                       doctest::Contains("Value passed to parameter 'a' has DataType string"),
                       tf::TypeError);
  // Ops that TensorFlow runs on strings and symflow does not yet say so.
  CHECK_THROWS_WITH_AS(
      tf::transpose(l),
      doctest::Contains("is a string tensor, and symflow's Transpose takes no strings"),
      tf::TypeError);
  CHECK_THROWS_AS(tf::zeros_like(l), tf::TypeError);
  // No op was left half-built in the graph.
  CHECK_THROWS(g.get_operation_by_name("transpose"));
}

}  // namespace symflow_test_ops_string_ops_test
