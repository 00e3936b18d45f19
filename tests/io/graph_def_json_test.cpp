// GraphDef as JSON (io/graph_def_json.hpp) and the graph files of io/graph_io.hpp.
#include <doctest/doctest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <string>

#include <symflow/io/graph_def_json.hpp>
#include <symflow/io/graph_io.hpp>
#include <symflow/symflow.hpp>

namespace symflow_test_io_graph_def_json_test {

namespace tf = symflow;
namespace fs = std::filesystem;

namespace {

tf::AttrValue round_trip(const tf::AttrValue& v) {
  // Through text, so that number printing and parsing are part of the trip.
  auto text = tf::io::attr_value_to_json(v).dump();
  return tf::io::attr_value_from_json(nlohmann::json::parse(text), "test");
}

std::uint64_t bits(double x) { return std::bit_cast<std::uint64_t>(x); }

// A fresh directory for one test case.
fs::path test_dir(const std::string& name) {
  fs::path dir = fs::temp_directory_path() / ("symflow_graph_io_" + name);
  fs::remove_all(dir);
  return dir;
}

tf::GraphDef sample_graph_def() {
  tf::Graph g;
  auto guard = g.as_default();
  auto x = tf::placeholder<float>(tf::Shape{-1, 2}, "x");
  tf::Variable w(tf::Value{{1.0f, 2.0f}, {3.0f, 4.0f}}, {.name = "w"});
  auto y = tf::matmul(x, w, false, false, "y");
  tf::nn::relu(y, "r");
  tf::constant(std::int64_t{1} << 60, "big");
  return g.as_graph_def();
}

}  // namespace

TEST_CASE("io/json: base64 matches RFC 4648 and rejects malformed text") {
  namespace gj = tf::detail::graph_json;
  CHECK(gj::base64_encode("", 0).empty());
  CHECK(gj::base64_encode("f", 1) == "Zg==");
  CHECK(gj::base64_encode("fo", 2) == "Zm8=");
  CHECK(gj::base64_encode("foo", 3) == "Zm9v");
  CHECK(gj::base64_encode("foobar", 6) == "Zm9vYmFy");
  bool ok = false;
  CHECK(gj::base64_decode("Zm9vYg==", ok) == "foob");
  CHECK(ok);
  CHECK(gj::base64_decode("Zm9vYmE=", ok) == "fooba");
  CHECK(ok);
  for (const char* bad : {"Zm9", "Zm9v!A==", "Z===", "Zg==Zg==", "=Zg="}) {
    gj::base64_decode(bad, ok);
    CHECK_MESSAGE(!ok, bad);
  }
  std::string all;
  for (int i = 0; i < 256; ++i) all += static_cast<char>(i);
  std::string encoded = gj::base64_encode(all.data(), all.size());
  CHECK(gj::base64_decode(encoded, ok) == all);
  CHECK(ok);
}

TEST_CASE("io/json: every attr kind round-trips with its explicit kind tag") {
  CHECK(tf::io::attr_value_to_json(tf::AttrValue(tf::float32)) ==
        nlohmann::json{{"type", "DT_FLOAT"}});
  CHECK(tf::io::attr_value_to_json(tf::Shape{2, -1}).dump() == R"({"shape":{"dim":[2,-1]}})");
  CHECK(tf::io::attr_value_to_json(tf::Shape::unknown()).dump() ==
        R"({"shape":{"unknown_rank":true}})");
  CHECK(tf::io::attr_value_to_json(std::int64_t{3}).dump() == R"({"i":3})");
  CHECK(tf::io::attr_value_to_json(0.5).dump() == R"({"f":0.5})");
  CHECK(tf::io::attr_value_to_json(true).dump() == R"({"b":true})");
  CHECK(tf::io::attr_value_to_json(std::string("SAME")).dump() == R"({"s":"SAME"})");
  CHECK(tf::io::attr_value_to_json(tf::IntList{{1, 2}}).dump() == R"({"list":{"i":[1,2]}})");
  CHECK(tf::io::attr_value_to_json(tf::StringList{{"loc:@w"}}).dump() ==
        R"({"list":{"s":["loc:@w"]}})");
  CHECK(tf::io::attr_value_to_json(tf::IntList{}).dump() == R"({"list":{"i":[]}})");
  CHECK(tf::io::attr_value_to_json(tf::StringList{}).dump() == R"({"list":{"s":[]}})");

  for (tf::DType d : {tf::float32, tf::float64, tf::int32, tf::int64, tf::uint8, tf::bool_})
    CHECK(round_trip(d) == tf::AttrValue(d));
  for (const tf::Shape& s : {tf::Shape{}, tf::Shape{0}, tf::Shape{2, -1, 3}, tf::Shape::unknown()})
    CHECK(round_trip(s) == tf::AttrValue(s));
  for (std::int64_t i :
       {std::int64_t{0}, std::int64_t{-7}, (std::int64_t{1} << 53) + 1,
        std::numeric_limits<std::int64_t>::max(), std::numeric_limits<std::int64_t>::min()})
    CHECK(std::get<std::int64_t>(round_trip(i)) == i);
  for (bool b : {true, false}) CHECK(std::get<bool>(round_trip(b)) == b);
  CHECK(round_trip(std::string()) == tf::AttrValue(std::string()));
  CHECK(round_trip(std::string("un\"i\\c\xc3\xa9\n")) ==
        tf::AttrValue(std::string("un\"i\\c\xc3\xa9\n")));
  CHECK(round_trip(tf::IntList{{-1, 0, std::numeric_limits<std::int64_t>::max()}}) ==
        tf::AttrValue(tf::IntList{{-1, 0, std::numeric_limits<std::int64_t>::max()}}));
  CHECK(round_trip(tf::IntList{}) == tf::AttrValue(tf::IntList{}));
  CHECK(round_trip(tf::StringList{}) == tf::AttrValue(tf::StringList{}));
  CHECK(round_trip(tf::StringList{{"a", "", "b c"}}) ==
        tf::AttrValue(tf::StringList{{"a", "", "b c"}}));
}

TEST_CASE("io/json: bytes that are not UTF-8 travel as base64") {
  std::string bytes("\xff\x00\x80z", 4);
  auto j = tf::io::attr_value_to_json(bytes);
  CHECK(j.contains("s_base64"));
  CHECK(round_trip(bytes) == tf::AttrValue(bytes));
  tf::StringList list{{"ok", bytes}};
  CHECK(tf::io::attr_value_to_json(list)["list"].contains("s_base64"));
  CHECK(round_trip(list) == tf::AttrValue(list));
  CHECK_FALSE(tf::detail::graph_json::is_valid_utf8("\xc0\x80"));      // overlong
  CHECK_FALSE(tf::detail::graph_json::is_valid_utf8("\xed\xa0\x80"));  // surrogate
  CHECK(tf::detail::graph_json::is_valid_utf8("\xf0\x9f\x98\x80"));
}

TEST_CASE("io/json: doubles round-trip bit for bit, NaN and infinities as strings") {
  const double values[] = {0.0,
                           -0.0,
                           0.1,
                           1.0 / 3.0,
                           1e300,
                           -2.5e-308,
                           std::numeric_limits<double>::denorm_min(),
                           std::numeric_limits<double>::max(),
                           std::numeric_limits<double>::lowest(),
                           static_cast<double>(0.1f)};
  for (double x : values) CHECK(bits(std::get<double>(round_trip(x))) == bits(x));
  CHECK(tf::io::attr_value_to_json(std::numeric_limits<double>::quiet_NaN()).dump() ==
        R"({"f":"NaN"})");
  CHECK(tf::io::attr_value_to_json(std::numeric_limits<double>::infinity()).dump() ==
        R"({"f":"Infinity"})");
  CHECK(tf::io::attr_value_to_json(-std::numeric_limits<double>::infinity()).dump() ==
        R"({"f":"-Infinity"})");
  CHECK(std::isnan(std::get<double>(round_trip(std::numeric_limits<double>::quiet_NaN()))));
  CHECK(std::get<double>(round_trip(std::numeric_limits<double>::infinity())) ==
        std::numeric_limits<double>::infinity());
  CHECK(std::get<double>(round_trip(-std::numeric_limits<double>::infinity())) ==
        -std::numeric_limits<double>::infinity());
  // An integer written for a float attr is read as that number.
  CHECK(std::get<double>(tf::io::attr_value_from_json({{"f", 2}}, "t")) == 2.0);
}

TEST_CASE("io/json: tensors of every dtype, scalar, empty and with special floats") {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  const tf::Value values[] = {
      tf::Value{{1.5f, -0.0f, nan}, {inf, -inf, 1e-45f}},
      tf::Value{0.1, -0.0, std::numeric_limits<double>::quiet_NaN()},
      tf::Value{std::int32_t{-1}, std::numeric_limits<std::int32_t>::max()},
      tf::Value{std::numeric_limits<std::int64_t>::min(), (std::int64_t{1} << 53) + 1},
      tf::Value{std::uint8_t{0}, std::uint8_t{255}},
      tf::Value{true, false, true},
      tf::Value(3.25f),
      tf::Value(std::int64_t{-9}),
      tf::Value(tf::float32, {0}),
      tf::Value(tf::int32, {2, 0, 3}),
      tf::Value(),
  };
  for (const tf::Value& v : values) {
    tf::Value back = std::get<tf::Value>(round_trip(v));
    CHECK(back == v);  // dtype, dims and bytes (NaN bits, -0.0)
  }
  auto j = tf::io::value_to_json(tf::Value{1.0f, 2.0f});
  CHECK(j.dump() == R"({"content":"AACAPwAAAEA=","dtype":"DT_FLOAT","shape":[2]})");
  auto scalar = tf::io::value_to_json(tf::Value(true));
  CHECK(scalar["shape"] == nlohmann::json::array());
  CHECK(scalar["content"] == "AQ==");
  // A copy, not a view of the JSON's bytes.
  CHECK(tf::io::value_from_json(j, "t").buffer_owners() == 1);
}

TEST_CASE("io/json: a GraphDef round-trips exactly, in both layouts") {
  tf::GraphDef def = sample_graph_def();
  def.node[0].device = "/device:CPU:0";
  for (bool pretty : {true, false}) {
    std::string text = tf::io::serialize_graph_def(def, pretty);
    CHECK((text.find('\n') != std::string::npos) == pretty);
    tf::GraphDef back = tf::io::parse_graph_def(text, "mem");
    CHECK(tf::to_text(back) == tf::to_text(def));
    CHECK(tf::io::serialize_graph_def(back, pretty) == text);
    REQUIRE(back.node.size() == def.node.size());
    for (std::size_t i = 0; i < def.node.size(); ++i) {
      CHECK(back.node[i].name == def.node[i].name);
      CHECK(back.node[i].op == def.node[i].op);
      CHECK(back.node[i].input == def.node[i].input);
      CHECK(back.node[i].device == def.node[i].device);
      CHECK(back.node[i].attr == def.node[i].attr);
    }
    CHECK(back.producer == def.producer);
  }
  auto j = tf::io::graph_def_to_json(def);
  CHECK(j["format"] == "symflow.graph_def");
  CHECK(j["versions"]["producer"] == tf::kGraphDefVersion);
  // Empty input and device are left out, as protobuf's JSON does.
  CHECK_FALSE(j["node"][0].contains("input"));
  CHECK(j["node"][0]["device"] == "/device:CPU:0");
  CHECK_FALSE(j["node"][1].contains("device"));
  // Absent fields read as empty; an absent "versions" as producer 0.
  tf::GraphDef minimal = tf::io::parse_graph_def(R"({"node":[{"name":"a","op":"NoOp"}]})", "m");
  CHECK(minimal.node.at(0).input.empty());
  CHECK(minimal.node.at(0).attr.empty());
  CHECK(minimal.producer == 0);
  CHECK(tf::io::graph_def_from_json(nlohmann::json::object()).node.empty());
}

TEST_CASE(
    "io/json: malformed input is a DataLossError naming source, node, attr and what was "
    "expected") {
  auto fails = [](const std::string& text, const std::string& needle) {
    CHECK_THROWS_WITH_AS(tf::io::parse_graph_def(text, "model.json"),
                         doctest::Contains(needle.c_str()), tf::DataLossError);
  };
  auto node_with = [](const std::string& attr) {
    return R"({"node":[{"name":"n","op":"Const","attr":{"value":)" + attr + "}}]}";
  };
  fails("{\"node\": [", "model.json: invalid JSON");
  fails("[]", "model.json: expected a GraphDef to be a JSON object, got array");
  fails(R"({"format":"tf.graph"})", "expected 'format' to be \"symflow.graph_def\"");
  fails(R"({"node":{}})", "expected 'node' to be an array");
  fails(R"({"node":[{"op":"NoOp"}]})", "node #0: a node needs a 'name'");
  fails(R"({"node":[{"name":"a"}]})", "node 'a': a node needs a non-empty 'op'");
  fails(R"({"node":[{"name":"a","op":"NoOp","inputs":[]}]})", "node 'a': unknown field 'inputs'");
  fails(R"({"node":[{"name":"a","op":"NoOp","input":"b"}]})",
        "node 'a': expected 'input' to be an array of strings, got string");
  fails(R"({"node":[{"name":"a","op":"NoOp","input":[1]}]})", "expected an input to be a string");
  fails(R"({"versions":{"producer":"26"}})", "expected 'versions.producer' to be an integer");
  fails(node_with(R"({"type":"DT_COMPLEX128"})"),
        "model.json: node 'n' attr 'value': unknown dtype 'DT_COMPLEX128'");
  fails(node_with(R"({"type":1})"), "node 'n' attr 'value': expected 'type' to be a string");
  fails(node_with(R"({"x":1})"), "node 'n' attr 'value': unknown attr kind 'x'");
  fails(node_with(R"({"i":1,"f":2})"), "exactly one field");
  fails(node_with("3"), "attr 'value': expected an attr value");
  fails(node_with(R"({"i":1.5})"), "expected 'i' to be an integer, got a fractional number 1.5");
  fails(node_with(R"({"i":18446744073709551615})"), "expected 'i' to fit in an int64");
  fails(node_with(R"({"i":"12x"})"), "expected 'i' to be an integer");
  fails(node_with(R"({"f":"nan"})"), "expected a number or one of \"NaN\"");
  fails(node_with(R"({"b":1})"), "expected 'b' to be a boolean, got number");
  fails(node_with(R"({"s":["a"]})"), "expected 's' to be a string, got array");
  fails(node_with(R"({"s_base64":"@@"})"), "expected 's_base64' to be base64");
  fails(node_with(R"({"list":{}})"), "expected 'list' to be an object with exactly one field");
  fails(node_with(R"({"list":{"func":[]}})"), "unknown list kind 'func'");
  fails(node_with(R"({"list":{"i":["1"]}})"), "expected 'list.i' items to be an integer");
  fails(node_with(R"({"shape":{"dim":[2],"unknown_rank":true}})"), "cannot have dims");
  fails(node_with(R"({"shape":{"dim":[-2]}})"), "expected shape dims >= -1");
  fails(node_with(R"({"shape":{"dims":[]}})"), "unknown field 'dims' in 'shape'");
  fails(node_with(R"({"tensor":{"dtype":"DT_FLOAT","shape":[2],"content":"AACAPw=="}})"),
        "node 'n' attr 'value': the tensor's 'content' has 4 bytes, expected 8 for shape [2] of "
        "DT_FLOAT");
  fails(node_with(R"({"tensor":{"dtype":"DT_FLOAT","shape":[2],"content":"AACAP!AAAEA="}})"),
        "expected the tensor's 'content' to be base64");
  fails(node_with(R"({"tensor":{"dtype":"DT_QINT8","shape":[]}})"), "unknown dtype 'DT_QINT8'");
  fails(node_with(R"({"tensor":{"shape":[]}})"), "a tensor needs a 'dtype'");
  fails(node_with(R"({"tensor":{"dtype":"DT_FLOAT","shape":[-1]}})"),
        "expected the tensor's sizes to be >= 0");
  fails(node_with(R"({"tensor":{"dtype":"DT_FLOAT","shape":2}})"),
        "expected the tensor's 'shape' to be an array");
  fails(node_with(
            R"({"tensor":{"dtype":"DT_FLOAT","shape":[4611686018427387904,4611686018427387904]}})"),
        "expected a representable size");
  fails(node_with(R"({"tensor":{"dtype":"DT_BOOL","shape":[],"content":"Ag=="}})"),
        "DT_BOOL tensor to be 0 or 1, got 2");
  fails(node_with(R"({"tensor":{"dtype":"DT_FLOAT","data":""}})"), "unknown field 'data'");
  // Direct calls name the `where` they are given.
  CHECK_THROWS_WITH_AS(tf::io::value_from_json(nlohmann::json::array(), "somewhere"),
                       doctest::Contains("somewhere: expected a tensor to be a JSON object"),
                       tf::DataLossError);
}

TEST_CASE("io/graph_io: write_graph writes text, binary or JSON, read_graph reads all three") {
  fs::path dir = test_dir("write_read") / "nested";
  tf::GraphDef def = sample_graph_def();
  std::string text_path = tf::write_graph(def, dir.string(), "graph.pbtxt");
  CHECK(text_path == (dir / "graph.pbtxt").string());
  CHECK(tf::io::read_file(text_path) == tf::to_text(def));
  std::string json_path = tf::write_graph(def, dir.string(), "graph.json", tf::GraphFormat::json);
  CHECK(json_path == (dir / "graph.json").string());
  CHECK(tf::io::read_file(json_path) == tf::io::serialize_graph_def(def, true, true));
  // as_text = false is protobuf's binary encoding, as in TensorFlow.
  std::string binary_path = tf::write_graph(def, dir.string(), "graph.pb", false);
  CHECK(tf::io::read_file(binary_path) == tf::io::serialize_graph_def_binary(def));
  // Only the files themselves: no temporary files are left behind.
  CHECK(std::distance(fs::directory_iterator(dir), fs::directory_iterator{}) == 3);

  tf::GraphDef from_binary = tf::read_graph(binary_path);
  CHECK(tf::to_text(from_binary) == tf::to_text(def));

  tf::GraphDef from_json = tf::read_graph(json_path);
  CHECK(tf::to_text(from_json) == tf::to_text(def));
  tf::GraphDef from_text = tf::read_graph(text_path);
  CHECK(tf::to_text(from_text) == tf::to_text(def));
  REQUIRE(from_text.node.size() == def.node.size());
  for (std::size_t i = 0; i < def.node.size(); ++i)
    CHECK_MESSAGE(from_text.node[i].attr == def.node[i].attr, def.node[i].name);

  CHECK_THROWS_AS(tf::read_graph((dir / "missing.json").string()), tf::NotFoundError);
  fs::remove_all(dir.parent_path());
}

TEST_CASE("io/graph_io: the text reader handles scalars, escapes, lists and reports errors") {
  tf::Graph g;
  auto guard = g.as_default();
  tf::constant(std::int64_t{5}, "i64");
  tf::constant(2.5, "f64");
  tf::constant(true, "flag");
  tf::constant(0.1f, "f32");
  tf::constant(std::uint8_t{7}, "u8");
  tf::constant(tf::Value{{std::int32_t{1}, 2}, {3, 4}}, "mat");
  tf::constant(tf::Value(tf::float32, {0, 3}), "empty");
  tf::constant(
      tf::Value{std::uint8_t{'"'}, std::uint8_t{'\\'}, std::uint8_t{'\n'}, std::uint8_t{200}},
      "bytes");
  auto x = tf::placeholder<float>(tf::Shape{-1, 3}, "x");
  auto unknown = tf::placeholder<float>(tf::Shape::unknown(), "u");
  auto s = tf::reduce_sum(x, 1, true, "s");
  tf::group({s.op(), unknown.op()}, "g");
  tf::GraphDef def = g.as_graph_def();
  def.node[0].attr["strides"] = tf::IntList{{1, 2}};
  def.node[0].attr["names"] = tf::StringList{{"a\tb", "\xff"}};
  def.node[0].attr["pad"] = std::string("SAME");
  def.node[0].attr["alpha"] = 0.25;
  def.node[0].attr["flag"] = false;
  def.node[0].attr["n"] = std::int64_t{-3};
  def.node[1].device = "/cpu:0";
  tf::GraphDef back = tf::io::parse_graph_def_text(tf::to_text(def), "mem.pbtxt");
  CHECK(tf::to_text(back) == tf::to_text(def));
  REQUIRE(back.node.size() == def.node.size());
  for (std::size_t i = 0; i < def.node.size(); ++i) {
    CHECK_MESSAGE(back.node[i].attr == def.node[i].attr, def.node[i].name);
    CHECK(back.node[i].input == def.node[i].input);
    CHECK(back.node[i].device == def.node[i].device);
  }
  // A repeated *_val fills the tensor, as protobuf's TensorProto does.
  tf::GraphDef filled = tf::io::parse_graph_def_text(
      "node { name: 'c' op: 'Const' attr { key: 'value' value { tensor { dtype: DT_FLOAT "
      "tensor_shape { dim { size: 3 } } float_val: 1.5 } } } }",
      "short");
  CHECK(std::get<tf::Value>(filled.node.at(0).attr.at("value")) == tf::Value{1.5f, 1.5f, 1.5f});

  auto fails = [](const std::string& text, const std::string& needle) {
    CHECK_THROWS_WITH_AS(tf::io::parse_graph_def_text(text, "g.pbtxt"),
                         doctest::Contains(needle.c_str()), tf::DataLossError);
  };
  fails("node {\n  name: \"a\"\n", "g.pbtxt:3: expected '}'");
  fails("node {\n  name: \"a\n}", "g.pbtxt:2: unterminated string");
  fails("node { name: \"a\" op: \"NoOp\" colour: 1 }", "unknown field 'colour' in a node");
  fails("node { op: \"NoOp\" }", "a node needs a 'name' and an 'op'");
  fails("node { name: 1 op: \"NoOp\" }", "expected field 'name' to be a quoted string");
  fails("node { name: 'a' op: 'C' attr { key: 'v' value { type: DT_COMPLEX128 } } }",
        "unknown dtype 'DT_COMPLEX128'");
  fails("node { name: 'a' op: 'C' attr { key: 'v' value { i: 1x } } }",
        "expected field 'i' to be an integer");
  fails(
      "node { name: 'a' op: 'C' attr { key: 'v' value { tensor { dtype: DT_FLOAT tensor_shape { "
      "dim { size: 2 } } tensor_content: \"\\000\" } } } }",
      "'tensor_content' has 1 bytes, expected 8");
  fails("garbage here", "expected ':' or '{' after field 'garbage'");
}

TEST_CASE("io/json: the example of docs/formats.md is what symflow writes") {
  tf::Graph g;
  auto guard = g.as_default();
  tf::placeholder<float>(tf::Shape{-1, 2}, "x");
  tf::constant(tf::Value{1.0f, 2.0f}, "c");
  const char* documented = R"({
    "format": "symflow.graph_def",
    "node": [
      {
        "attr": {
          "dtype": {"type": "DT_FLOAT"},
          "shape": {"shape": {"dim": [-1, 2]}}
        },
        "name": "x",
        "op": "Placeholder"
      },
      {
        "attr": {
          "dtype": {"type": "DT_FLOAT"},
          "value": {"tensor": {"content": "AACAPwAAAEA=", "dtype": "DT_FLOAT", "shape": [2]}}
        },
        "name": "c",
        "op": "Const"
      }
    ],
    "versions": {"producer": 26}
  })";
  CHECK(tf::io::serialize_graph_def(g.as_graph_def(), false) ==
        nlohmann::json::parse(documented).dump());
  CHECK(tf::to_text(tf::io::parse_graph_def(documented, "doc")) == tf::to_text(g.as_graph_def()));
  CHECK(tf::io::attr_value_to_json(std::string("\xff\x00\x80z", 4)).dump() ==
        R"({"s_base64":"/wCAeg=="})");
}

}  // namespace symflow_test_io_graph_def_json_test
