// ParseExample (tf.parse_example, tf.raw_ops.ParseExample): tf.train.Example records
// parsed into dense and sparse tensors, built through tf::parse_example, the raw op and
// an imported GraphDef. The records are encoded here from the Example descriptions of
// io/tf_example_protos.hpp (checked against the bytes TensorFlow's SerializeToString
// writes), or written field by field where a test needs bytes no writer makes. Every
// expected value and message is what TensorFlow 2.21's ParseExample gave for the same
// records (tf.raw_ops.ParseExample in tf.compat.v1 graph mode).
#include <doctest/doctest.h>

#include <charconv>
#include <cmath>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <memory>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include <symflow/io/tf_example_protos.hpp>
#include <symflow/symflow.hpp>

#include "../test_util.hpp"

namespace symflow_test_ops_parse_example_test {

namespace tf = symflow;
namespace proto = tf::io::proto;
namespace wire = tf::io::wire;

using Floats = std::vector<float>;
using Ints = std::vector<std::int64_t>;
using Strings = std::vector<std::string>;
// A Feature: empty (no list set), or one list.
using Values = std::variant<std::monostate, Floats, Ints, Strings>;

proto::Field message_field(std::string name, proto::Message m) {
  proto::Field f;
  f.name = std::move(name);
  f.is_message = true;
  f.message = std::make_shared<proto::Message>(std::move(m));
  return f;
}
proto::Field scalar_field(std::string text, bool is_string) {
  proto::Field f;
  f.name = "value";
  f.is_string = is_string;
  f.scalar = std::move(text);
  return f;
}

proto::Message feature_message(const Values& values) {
  proto::Message list, feature;
  if (const auto* floats = std::get_if<Floats>(&values)) {
    for (float x : *floats) {
      char buf[32];
      auto end = std::to_chars(buf, buf + sizeof buf, x).ptr;  // shortest, read back exactly
      list.fields.push_back(scalar_field(std::string(buf, end), false));
    }
    feature.fields.push_back(message_field("float_list", list));
  } else if (const auto* ints = std::get_if<Ints>(&values)) {
    for (std::int64_t x : *ints) list.fields.push_back(scalar_field(std::to_string(x), false));
    feature.fields.push_back(message_field("int64_list", list));
  } else if (const auto* strings = std::get_if<Strings>(&values)) {
    for (const std::string& s : *strings) list.fields.push_back(scalar_field(s, true));
    feature.fields.push_back(message_field("bytes_list", list));
  }
  return feature;
}

// A serialized tf.train.Example with these features, in this order.
std::string example(const std::vector<std::pair<std::string, Values>>& features) {
  proto::Message map;
  for (const auto& [key, values] : features) {
    proto::Message entry;
    entry.fields.push_back(scalar_field(key, true));
    entry.fields.back().name = "key";
    entry.fields.push_back(message_field("value", feature_message(values)));
    map.fields.push_back(message_field("feature", entry));
  }
  proto::Message ex;
  ex.fields.push_back(message_field("features", map));
  return proto::encode(ex, tf::io::tf_example::example());
}

// A serialized tf.train.Feature.
std::string feature(const Values& values) {
  return proto::encode(feature_message(values), tf::io::tf_example::feature());
}
std::string feature(std::initializer_list<float> values) { return feature(Floats(values)); }

// Wire-level pieces for records no protobuf writer makes.
std::string delimited(std::uint32_t field, std::string_view payload) {
  wire::WireWriter w;
  w.bytes(field, payload);
  return w.take();
}
std::string entry_bytes(std::string_view key, std::string_view feature) {
  return delimited(1, delimited(1, key) + delimited(2, feature));
}
std::string example_bytes(const std::vector<std::string>& entries) {
  std::string all;
  for (const std::string& e : entries) all += e;
  return delimited(1, all);
}

tf::Value records(const std::vector<std::string>& serialized) {
  return tf::Value::from_vector<std::string>(serialized,
                                             {static_cast<std::int64_t>(serialized.size())});
}

// The message of the InvalidArgumentError `fn` throws, checked to name `node`.
std::string error_of(const std::function<void()>& fn, const std::string& node) {
  try {
    fn();
  } catch (const tf::InvalidArgumentError& e) {
    CHECK(e.node_name() == node);
    return e.message();
  }
  FAIL("no InvalidArgumentError");
  return {};
}

// One ParseExample of raw features, fed through a placeholder, for the cases below.
struct Parser {
  tf::Graph g;
  tf::Output input;
  tf::raw_ops::ParseExampleOutputs out;
  std::unique_ptr<tf::Session> sess;

  Parser(const std::vector<std::string>& sparse_keys, const std::vector<tf::DType>& sparse_types,
         const std::vector<std::string>& dense_keys, const std::vector<tf::Value>& defaults,
         const std::vector<tf::Shape>& dense_shapes, const std::vector<std::string>& names = {}) {
    auto guard = g.as_default();
    input = tf::placeholder(tf::string, tf::Shape{-1}, "serialized");
    std::vector<tf::Output> default_tensors;
    for (const tf::Value& d : defaults) default_tensors.push_back(tf::constant(d));
    const tf::Value name_values =
        tf::Value::from_vector<std::string>(names, {static_cast<std::int64_t>(names.size())});
    out = tf::raw_ops::parse_example(input, tf::constant(name_values), sparse_keys, sparse_types,
                                     dense_keys, default_tensors, dense_shapes);
    sess = std::make_unique<tf::Session>(g);
  }
  std::vector<tf::Value> run(const std::vector<std::string>& serialized) {
    std::vector<tf::Fetch> fetches;
    for (const auto* group :
         {&out.sparse_indices, &out.sparse_values, &out.sparse_shapes, &out.dense_values})
      for (const tf::Output& o : *group) fetches.emplace_back(o);
    return sess->run(fetches, {{input, records(serialized)}});
  }
  std::string error(const std::vector<std::string>& serialized) {
    return error_of([&] { run(serialized); }, "ParseExample");
  }
};

const Floats kFloatDefault{0.0f, -1.0f};

TEST_CASE("ops/parse_example: the Example descriptions write the bytes TensorFlow writes") {
  // tf.train.Example(...).SerializeToString() of one feature each.
  CHECK(example({{"a", Floats{1.5f, 2.0f}}}) ==
        std::string("\n\x13\n\x11\n\x01"
                    "a\x12\x0c\x12\n\n\x08\x00\x00\xc0?\x00\x00\x00@",
                    21));
  CHECK(example({{"b", Ints{7, -1}}}) == std::string("\n\x16\n\x14\n\x01"
                                                     "b\x12\x0f\x1a\r\n\x0b\x07"
                                                     "\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01",
                                                     24));
  CHECK(example({{"c", Strings{"x", ""}}}) == std::string("\n\x0e\n\x0c\n\x01"
                                                          "c\x12\x07\n\x05\n\x01x\n\x00",
                                                          16));
  // And they read them back, as the other TensorFlow messages.
  const proto::Message m =
      proto::decode(example({{"a", Floats{1.5f, 2.0f}}}), tf::io::tf_example::example(), "example");
  const proto::Message& entry = *m.fields.at(0).message->fields.at(0).message;
  CHECK(entry.fields.at(0).scalar == "a");
  const proto::Message& list = *entry.fields.at(1).message->fields.at(0).message;
  CHECK(list.fields.size() == 2);
  CHECK(list.fields.at(1).scalar == "2");
}

TEST_CASE("ops/parse_example: dense features take their values or their defaults") {
  tf::Graph g;
  auto guard = g.as_default();
  auto serialized = tf::placeholder(tf::string, tf::Shape{-1}, "tf_example");
  const tf::ParsedFeatures parsed = tf::parse_example(
      serialized,
      {{"a", tf::FixedLenFeature{{2}, tf::float32, tf::Value::from_vector(kFloatDefault, {2})}},
       {"b", tf::FixedLenFeature{{}, tf::int64, tf::Value(std::int64_t{5})}},
       {"c",
        tf::FixedLenFeature{{2}, tf::string, tf::Value::from_vector<std::string>({"p", "q"}, {2})}},
       {"s", tf::VarLenFeature{tf::int64}},
       {"t", tf::VarLenFeature{tf::string}}});
  // TensorFlow 1.x's graph (tf.parse_example, as the half_plus_two SavedModel holds it).
  const auto& op = parsed.dense.at("a").op();
  CHECK(op.name() == "ParseExample/ParseExample");
  CHECK(op.type() == "ParseExample");
  std::vector<std::string> inputs;
  for (const tf::Output& in : op.inputs()) inputs.push_back(in.name());
  CHECK(inputs ==
        std::vector<std::string>{
            "tf_example:0", "ParseExample/ParseExample/names:0",
            "ParseExample/ParseExample/sparse_keys_0:0",
            "ParseExample/ParseExample/sparse_keys_1:0", "ParseExample/ParseExample/dense_keys_0:0",
            "ParseExample/ParseExample/dense_keys_1:0", "ParseExample/ParseExample/dense_keys_2:0",
            "ParseExample/key_a:0", "ParseExample/key_b:0", "ParseExample/key_c:0"});
  CHECK(op.get_attr<std::int64_t>("Nsparse") == 2);
  CHECK(op.get_attr<tf::TypeList>("Tdense").items ==
        std::vector<tf::DType>{tf::float32, tf::int64, tf::string});
  CHECK(parsed.dense.at("a").shape() == tf::Shape{-1, 2});
  CHECK(parsed.dense.at("b").shape() == tf::Shape{-1});
  CHECK(parsed.sparse.at("s").indices.shape() == tf::Shape{-1, 2});
  CHECK(parsed.sparse.at("t").values.dtype() == tf::string);
  CHECK(parsed.sparse.at("t").dense_shape.shape() == tf::Shape{2});

  const std::vector<std::string> batch = {example({{"a", Floats{1.5f, 2.0f}},
                                                   {"b", Ints{7}},
                                                   {"c", Strings{"x", "y"}},
                                                   {"s", Ints{3, 4, 5}},
                                                   {"t", Strings{"u", "v"}}}),
                                          "",  // no features at all: every default
                                          example({{"a", Floats{-0.25f, 3e38f}},
                                                   {"s", Ints{-7}},
                                                   {"c", Strings{"", std::string("z\0w", 3)}}})};
  tf::Session sess(g);
  const auto v = sess.run({parsed.dense.at("a"), parsed.dense.at("b"), parsed.dense.at("c"),
                           parsed.sparse.at("s").indices, parsed.sparse.at("s").values,
                           parsed.sparse.at("s").dense_shape, parsed.sparse.at("t").indices,
                           parsed.sparse.at("t").values, parsed.sparse.at("t").dense_shape},
                          {{serialized, records(batch)}});
  CHECK(v[0].dims() == tf::Dims{3, 2});
  CHECK(v[0].to_vector<float>() == Floats{1.5f, 2.0f, 0.0f, -1.0f, -0.25f, 3e38f});
  CHECK(v[1].to_vector<std::int64_t>() == Ints{7, 5, 5});
  CHECK(v[2].dims() == tf::Dims{3, 2});
  CHECK(v[2].to_vector<std::string>() == Strings{"x", "y", "p", "q", "", std::string("z\0w", 3)});
  CHECK(v[3].dims() == tf::Dims{4, 2});
  CHECK(v[3].to_vector<std::int64_t>() == Ints{0, 0, 0, 1, 0, 2, 2, 0});
  CHECK(v[4].to_vector<std::int64_t>() == Ints{3, 4, 5, -7});
  CHECK(v[5].to_vector<std::int64_t>() == Ints{3, 3});
  CHECK(v[6].to_vector<std::int64_t>() == Ints{0, 0, 0, 1});
  CHECK(v[7].to_vector<std::string>() == Strings{"u", "v"});
  CHECK(v[8].to_vector<std::int64_t>() == Ints{3, 2});

  // A batch of none: every output is empty, the sparse shapes [0, 0].
  const auto none = sess.run({parsed.dense.at("a"), parsed.dense.at("b"), parsed.dense.at("c"),
                              parsed.sparse.at("s").indices, parsed.sparse.at("s").values,
                              parsed.sparse.at("s").dense_shape},
                             {{serialized, records({})}});
  CHECK(none[0].dims() == tf::Dims{0, 2});
  CHECK(none[1].dims() == tf::Dims{0});
  CHECK(none[2].dims() == tf::Dims{0, 2});
  CHECK(none[3].dims() == tf::Dims{0, 2});
  CHECK(none[4].dims() == tf::Dims{0});
  CHECK(none[5].to_vector<std::int64_t>() == Ints{0, 0});
}

TEST_CASE("ops/parse_example: a required feature that is absent is an error naming it") {
  tf::Graph g;
  auto guard = g.as_default();
  auto serialized = tf::placeholder(tf::string, tf::Shape{-1}, "tf_example");
  const auto parsed = tf::parse_example(serialized, {{"x", tf::FixedLenFeature{{1}, tf::float32}}});
  // The required feature's default is an empty Const, as half_plus_two's "ParseExample/Const".
  CHECK(parsed.dense.at("x").op().inputs().at(3).name() == "ParseExample/Const:0");
  tf::Session sess(g);
  CHECK(sess.run(parsed.dense.at("x"), {{serialized, records({example({{"x", Floats{2}}})})}})
            .to_vector<float>() == Floats{2});
  CHECK(error_of(
            [&] {
              sess.run(parsed.dense.at("x"),
                       {{serialized, records({example({{"x", Floats{2}}}), example({})})}});
            },
            "ParseExample/ParseExample") ==
        "Name: <unknown>, Feature: x (data type: float) is required but could not be found.");
  // With names, the example's name.
  Parser named({}, {}, {"a"}, {tf::Value(tf::float32, {0})}, {tf::Shape{2}}, {"x", "y"});
  CHECK(named.error({example({{"a", Floats{1.5f, 2}}}), example({})}) ==
        "Name: y, Feature: a (data type: float) is required but could not be found.");
}

TEST_CASE("ops/parse_example: a dense feature of another count or kind names the key") {
  Parser floats({}, {}, {"a"}, {tf::Value::from_vector(kFloatDefault, {2})}, {tf::Shape{2}});
  CHECK(floats.error({example({{"a", Floats{1.5f, 2, 3}}})}) ==
        "Name: <unknown>, Key: a, Index: 0.  Number of float values != expected.  Values size: "
        "3 but output shape: [2]");
  CHECK(floats.error({example({{"a", Floats{}}})}) ==
        "Name: <unknown>, Key: a, Index: 0.  Number of float values != expected.  Values size: "
        "0 but output shape: [2]");
  CHECK(floats.error({example({{"a", Ints{1, 2}}})}) ==
        "Name: <unknown>, Key: a, Index: 0.  Data types don't match. Data type: int64 but "
        "expected type: float");
  Parser ints({}, {}, {"a"}, {tf::Value::from_vector(Ints{0, -1}, {2})}, {tf::Shape{2}});
  CHECK(ints.error({example({{"a", Ints{1, 2, 3}}})}) ==
        "Name: <unknown>, Key: a, Index: 0.  Number of int64 values != expected.  Values size: "
        "3 but output shape: [2]");
  Parser strings({}, {}, {"a"}, {tf::Value::from_vector<std::string>({"p", "q"}, {2})},
                 {tf::Shape{2}});
  CHECK(strings.error({example({{"a", Strings{"x"}}})}) ==
        "Name: <unknown>, Key: a, Index: 0.  Number of bytes values != expected.  Values size: "
        "1 but output shape: [2]");
  // Strings past the count stop the parse, as TensorFlow's reader does.
  CHECK(strings.error({example({{"a", Strings{"x", "y", "z"}}})}) ==
        "Name: <unknown>, Key: a, Index: 0.  Can't parse serialized Example.");
  // The example's index and name.
  Parser named({}, {}, {"a"}, {tf::Value::from_vector(kFloatDefault, {2})}, {tf::Shape{2}},
               {"e0", "e1"});
  CHECK(named.error({example({{"a", Floats{1, 2}}}), example({{"a", Floats{1}}})}) ==
        "Name: e1, Key: a, Index: 1.  Number of float values != expected.  Values size: 1 but "
        "output shape: [2]");
  CHECK(named.error({example({})}) ==
        "Expected names have the same shape as serialized: name.shape=[2], serialized.shape=[1]");
  // A scalar feature, and a matrix one filled row by row.
  Parser scalar(
      {}, {}, {"a", "m"},
      {tf::Value(std::string("dflt")), tf::Value::from_vector(Ints{0, 1, 2, 3, 4, 5}, {2, 3})},
      {tf::Shape{}, tf::Shape{2, 3}});
  const auto v =
      scalar.run({example({{"a", Strings{"hi"}}, {"m", Ints{1, 2, 3, 4, 5, 6}}}), example({})});
  CHECK(v[0].to_vector<std::string>() == Strings{"hi", "dflt"});
  CHECK(v[1].dims() == tf::Dims{2, 2, 3});
  CHECK(v[1].to_vector<std::int64_t>() == Ints{1, 2, 3, 4, 5, 6, 0, 1, 2, 3, 4, 5});
}

TEST_CASE("ops/parse_example: sparse features give indices, values and shape as TensorFlow") {
  Parser p({"s", "t"}, {tf::int64, tf::string}, {}, {}, {});
  const auto v = p.run({example({{"s", Ints{3, 4, 5}}, {"t", Strings{"u", "v"}}}), example({}),
                        example({{"s", Ints{7}}, {"t", Strings{}}})});
  CHECK(v[0].to_vector<std::int64_t>() == Ints{0, 0, 0, 1, 0, 2, 2, 0});
  CHECK(v[1].to_vector<std::int64_t>() == Ints{0, 0, 0, 1});
  CHECK(v[2].to_vector<std::int64_t>() == Ints{3, 4, 5, 7});
  CHECK(v[3].to_vector<std::string>() == Strings{"u", "v"});
  CHECK(v[4].to_vector<std::int64_t>() == Ints{3, 3});
  CHECK(v[5].to_vector<std::int64_t>() == Ints{3, 2});
  // No values anywhere: [0, 2] indices and a shape of [batch, 0]; an empty Feature is
  // an example without values.
  const auto empty = p.run({example({{"s", std::monostate{}}}), example({})});
  CHECK(empty[0].dims() == tf::Dims{0, 2});
  CHECK(empty[4].to_vector<std::int64_t>() == Ints{2, 0});
  // Another kind is an error; int64s come back as written, negatives and 2^62 too.
  CHECK(p.error({example({{"s", Floats{1, 2}}})}) ==
        "Name: <unknown>, Key: s, Index: 0.  Data types don't match. Expected type: int64, "
        "Actual type: float");
  const auto big = p.run({example({{"s", Ints{-1, std::int64_t{1} << 62}}})});
  CHECK(big[2].to_vector<std::int64_t>() == Ints{-1, std::int64_t{1} << 62});
  Parser floats({"f"}, {tf::float32}, {}, {}, {});
  const auto f = floats.run({example({{"f", Floats{-0.0f, 1e-30f, 3.5f}}})});
  CHECK(f[1].to_vector<float>() == Floats{-0.0f, 1e-30f, 3.5f});
  CHECK(std::signbit(f[1].to_vector<float>()[0]));
}

TEST_CASE("ops/parse_example: variable-length dense features are padded with the default") {
  Parser p({}, {}, {"a"}, {tf::Value(-9.0f)}, {tf::Shape{-1, 2}});
  CHECK(p.out.dense_values[0].shape() == tf::Shape{-1, -1, 2});
  const auto v =
      p.run({example({{"a", Floats{1, 2, 3, 4}}}), example({}), example({{"a", Floats{5, 6}}})});
  CHECK(v[0].dims() == tf::Dims{3, 2, 2});
  CHECK(v[0].to_vector<float>() == Floats{1, 2, 3, 4, -9, -9, -9, -9, 5, 6, -9, -9});
  CHECK(p.error({example({{"a", Floats{1, 2, 3}}})}) ==
        "Name: <unknown>, Key: a, Index: 0.  Number of float values is not a multiple of stride "
        "length. Saw 3 values but output shape is: [?,2]");
  CHECK(p.error({example({{"a", Ints{1, 2}}})}) ==
        "Name: <unknown>, Key: a, Index: 0.  Data types don't match. Data type: int64 but "
        "expected type: float");
  CHECK(p.run({})[0].dims() == tf::Dims{0, 0, 2});
  Parser strings({}, {}, {"a"}, {tf::Value(std::string("pad"))}, {tf::Shape{-1}});
  CHECK(strings.run({example({{"a", Strings{"x", "y"}}})})[0].to_vector<std::string>() ==
        Strings{"x", "y"});
  CHECK(strings.run({example({}), example({})})[0].dims() == tf::Dims{2, 0});
  // The default is the padding: one value.
  Parser two({}, {}, {"a"}, {tf::Value::from_vector(Floats{1, 2}, {2})}, {tf::Shape{-1, 2}});
  CHECK(two.error({example({})}) ==
        "dense_shape[0] is a variable length shape: [?,2], therefore def_value[0] must contain "
        "a single element (the padding element).  But its shape is: [2]");
}

TEST_CASE("ops/parse_example: damaged records are InvalidArgumentErrors, never a crash") {
  Parser p({"s"}, {tf::float32}, {"a"}, {tf::Value::from_vector(Floats{0}, {1})}, {tf::Shape{1}});
  CHECK(p.error({"hello world"}) == "Could not parse example input, value: 'hello world'");
  // Lengths past the end, and a group.
  CHECK(p.error({std::string("\x0a\x05\x0a\x03\x0a\x01", 6)}) ==
        std::string("Could not parse example input, value: '\x0a\x05\x0a\x03\x0a\x01'"));
  CHECK(p.error({"\x0b\x0c"}) == "Could not parse example input, value: '\x0b\x0c'");
  // A map entry with a key and no value, and a field that Features does not have.
  CHECK(p.error({delimited(1, delimited(1, delimited(1, "a")))})
            .starts_with("Could not parse example input, value: '"));
  CHECK(p.error({delimited(1, "\x10\x01")}).starts_with("Could not parse example input"));
  // A float list whose packed run claims 32 bytes: an error under a key asked for, never
  // read under another.
  const std::string damaged("\x12\x08\x0a\x20\x00\x00\x80?\x00\x00", 10);
  CHECK(p.error({example_bytes({entry_bytes("s", damaged)})}) ==
        "Name: <unknown>, Key: s, Index: 0.  Can't parse serialized Example.");
  CHECK(p.error({example({{"a", Floats{1}}}), example_bytes({entry_bytes("a", damaged)})}) ==
        "Name: <unknown>, Key: a, Index: 1.  Can't parse serialized Example.");
  CHECK(p.run({example_bytes({entry_bytes("z", damaged), entry_bytes("a", feature({1.0f}))})})
            .at(3)
            .to_vector<float>() == Floats{1});
  // A Feature whose first field is no list (TensorFlow's message, with the key added).
  CHECK(p.error({example_bytes({entry_bytes("a", "\x08\x01")})}) ==
        "Name: <unknown>, Key: a, Index: 0.  Unsupported datatype.");
  // Every prefix of a good record parses or is an InvalidArgumentError. As in TensorFlow,
  // a length that claims more than there is ends at the record's end, so the prefixes that
  // stop between entries parse (with the entries they hold).
  const std::string good = example({{"a", Floats{1}}, {"s", Floats{2, 3}}});
  std::vector<std::size_t> parsed;
  for (std::size_t n = 0; n <= good.size(); ++n) {
    try {
      p.run({good.substr(0, n)});
      parsed.push_back(n);
    } catch (const tf::InvalidArgumentError&) {
    }
  }
  CHECK(parsed == std::vector<std::size_t>{0, 2, 17, 36});
  CHECK(p.run({good.substr(0, 17)}).at(3).to_vector<float>() == Floats{1});
}

TEST_CASE("ops/parse_example: records read as TensorFlow's fast parser reads them") {
  Parser dense({}, {}, {"a"}, {tf::Value::from_vector(Floats{0}, {1})}, {tf::Shape{1}});
  Parser floats({"a"}, {tf::float32}, {}, {}, {});
  Parser ints({"a"}, {tf::int64}, {}, {}, {});
  const auto dense_value = [&](const std::string& record) {
    return dense.run({record}).at(0).to_vector<float>();
  };
  const auto float_values = [&](const std::string& record) {
    return floats.run({record}).at(1).to_vector<float>();
  };
  const auto int_values = [&](const std::string& record) {
    return ints.run({record}).at(1).to_vector<std::int64_t>();
  };
  const std::string one = example({{"a", Floats{1}}});
  // Fields an Example does not have are skipped, even a length past the end.
  CHECK(dense_value(one + "\x10\x05") == Floats{1});
  CHECK(dense_value("\x1a\x03"
                    "abc" +
                    one) == Floats{1});
  CHECK(dense_value("\x12\x10"
                    "ab") == Floats{0});
  CHECK(dense_value(std::string("\x0a\x00", 2)) == Floats{0});
  // Concatenated Examples are one, and a key's last entry counts...
  CHECK(dense_value(one + example({{"a", Floats{2}}})) == Floats{2});
  CHECK(float_values(one + example({{"a", Floats{2, 3}}})) == Floats{2, 3});
  CHECK(dense_value(example({{"a", Ints{1}}, {"a", Floats{2}}})) == Floats{2});
  // ...but an empty last Feature leaves a dense key's earlier entry, and empties a sparse one.
  CHECK(dense_value(example({{"a", Floats{1}}, {"a", std::monostate{}}})) == Floats{1});
  CHECK(float_values(example({{"a", Floats{1}}, {"a", std::monostate{}}})).empty());
  // A map entry's value may come before its key.
  CHECK(dense_value(delimited(
            1, delimited(1, delimited(2, feature({4.0f})) + delimited(1, "a")))) == Floats{4});
  // Lists written one field per value.
  wire::WireWriter unpacked_floats, unpacked_ints;
  for (float x : {1.0f, 2.0f, 3.0f}) unpacked_floats.float32(1, x);
  for (std::uint64_t x : {1u, 2u, 255u}) unpacked_ints.varint(1, x);
  CHECK(float_values(example_bytes({entry_bytes("a", delimited(2, unpacked_floats.data()))})) ==
        Floats{1, 2, 3});
  CHECK(int_values(example_bytes({entry_bytes("a", delimited(3, unpacked_ints.data()))})) ==
        Ints{1, 2, 255});
  // Only a list's first packed run is read, only a Feature's first list, and a packed
  // run's trailing partial float is dropped.
  const std::string two_runs =
      delimited(1, std::string("\x00\x00\x80?", 4)) + delimited(1, std::string("\x00\x00\x00@", 4));
  CHECK(float_values(example_bytes({entry_bytes("a", delimited(2, two_runs))})) == Floats{1});
  CHECK(int_values(example_bytes({entry_bytes(
            "a", delimited(3, delimited(1, "\x01") + delimited(1, "\x02")))})) == Ints{1});
  const std::string both = feature({1.0f}) + feature(Ints{5});
  CHECK(float_values(example_bytes({entry_bytes("a", both)})) == Floats{1});
  CHECK(ints.error({example_bytes({entry_bytes("a", both)})}) ==
        "Name: <unknown>, Key: a, Index: 0.  Data types don't match. Expected type: int64, "
        "Actual type: float");
  CHECK(float_values(example_bytes({entry_bytes(
            "a", delimited(2, delimited(1, std::string("\x00\x00\x80?\x01", 5))))})) == Floats{1});
  // A list whose length claims more than there is, read up to a packed run that ends.
  CHECK(int_values(example_bytes({entry_bytes("a", "\x1a\x10" + delimited(1, "\x07"))})) ==
        Ints{7});
  CHECK(ints.error({example_bytes({entry_bytes("a", delimited(3, delimited(1, "\x80")))})}) ==
        "Name: <unknown>, Key: a, Index: 0.  Can't parse serialized Example.");
  // Strings keep their zero bytes.
  Parser strings({"a"}, {tf::string}, {}, {}, {});
  CHECK(strings.run({example({{"a", Strings{std::string("x\0y", 3), ""}}})})
            .at(1)
            .to_vector<std::string>() == Strings{std::string("x\0y", 3), ""});
}

TEST_CASE("ops/parse_example: defaults and attrs are checked as TensorFlow checks them") {
  // At run time, a default that does not fit its shape.
  Parser wide({}, {}, {"a"}, {tf::Value::from_vector(Floats{0, 0}, {1, 2})}, {tf::Shape{2}});
  CHECK(wide.error({example({})}) ==
        "def_value[0].shape() == [1,2] is not compatible with dense_shapes_[0] == [2]");
  // When the graph is built.
  tf::Graph g;
  auto guard = g.as_default();
  auto vec = tf::placeholder(tf::string, tf::Shape{-1});
  auto names = tf::constant(tf::Value(tf::string, {0}));
  auto f2 = tf::constant(tf::Value::from_vector(kFloatDefault, {2}));
  using tf::raw_ops::parse_example;
  CHECK_THROWS_WITH_AS(parse_example(tf::placeholder(tf::string, tf::Shape{3, 1}), names, {}, {},
                                     {"a"}, {f2}, {tf::Shape{2}}),
                       doctest::Contains("Shape must be rank 1 but is rank 2"), tf::ValueError);
  CHECK_THROWS_WITH_AS(parse_example(vec, names, {"a"}, {}, {}, {}, {}),
                       doctest::Contains("len(sparse_keys) != len(sparse_types)"), tf::ValueError);
  CHECK_THROWS_WITH_AS(parse_example(vec, names, {}, {}, {"a"}, {f2}, {}),
                       doctest::Contains("len(dense_keys) != len(dense_shapes)"), tf::ValueError);
  CHECK_THROWS_WITH_AS(
      parse_example(vec, names, {}, {}, {"a"}, {f2}, {tf::Shape{2, -1}}),
      doctest::Contains("dense_shapes[0] has unknown rank or unknown inner dimensions: [2,?]"),
      tf::ValueError);
  CHECK_THROWS_WITH_AS(
      parse_example(vec, names, {}, {}, {"a"}, {f2}, {tf::Shape::unknown()}),
      doctest::Contains("dense_shapes[0] has unknown rank or unknown inner dimensions: <unknown>"),
      tf::ValueError);
  CHECK_THROWS_WITH_AS(parse_example(vec, names, {"a"}, {tf::int32}, {}, {}, {}),
                       doctest::Contains("Value passed to parameter 'sparse_types' has DataType "
                                         "int32 not in list of allowed values: float32, int64, "
                                         "string"),
                       tf::TypeError);
  CHECK_THROWS_WITH_AS(
      parse_example(vec, names, {}, {}, {"a"}, {tf::constant(tf::Value(std::int32_t{0}))},
                    {tf::Shape{}}),
      doctest::Contains("Value passed to parameter 'dense_defaults' has DataType int32 not in "
                        "list of allowed values: float32, int64, string"),
      tf::TypeError);
  CHECK_THROWS_AS(parse_example(tf::constant(1.0f), names, {}, {}, {"a"}, {f2}, {tf::Shape{2}}),
                  tf::TypeError);
  // A batch of unknown size, and of unknown rank (which the kernel checks).
  auto any = tf::placeholder(tf::string);
  const auto unranked = parse_example(any, names, {}, {}, {"a"}, {f2}, {tf::Shape{2}});
  CHECK(unranked.dense_values.at(0).shape() == tf::Shape{-1, 2});
  tf::Session sess(g);
  CHECK(error_of(
            [&] {
              sess.run(unranked.dense_values.at(0),
                       {{any, tf::Value::from_vector<std::string>({""}, {1, 1})}});
            },
            unranked.dense_values.at(0).op().name()) ==
        "Expected serialized to be a vector, got shape: [1,1]");
  CHECK(parse_example(tf::placeholder(tf::string, tf::Shape{4}), names, {}, {}, {"a"}, {f2},
                      {tf::Shape{2}})
            .dense_values.at(0)
            .shape() == tf::Shape{4, 2});
  // tf.parse_example's own checks.
  CHECK_THROWS_WITH_AS(tf::parse_example(vec, {}), "Missing: features was {}.", tf::ValueError);
  CHECK_THROWS_WITH_AS(
      tf::parse_example(vec, {{"a", tf::FixedLenFeature{{2}, tf::float32, tf::Value(1.0f)}}}),
      doctest::Contains("Cannot reshape a tensor with 1 elements to shape [2] (2 elements)"),
      tf::ValueError);
}

// tf.raw_ops.ParseExample nodes as TensorFlow 2.21 writes them (Graph.as_graph_def()):
// one as tf.parse_example makes it in the half_plus_two SavedModel (a required dense
// feature, no sparse one: `sparse_types: list {}`), one with a sparse feature only.
constexpr const char* kGraphDef = R"pb(
  node {
    name: "tf_example"
    op: "Placeholder"
    attr {
      key: "shape"
      value { shape { dim { size: -1 } } }
    }
    attr {
      key: "dtype"
      value { type: DT_STRING }
    }
  }
  node {
    name: "ParseExample/Const"
    op: "Const"
    attr {
      key: "value"
      value {
        tensor {
          dtype: DT_FLOAT
          tensor_shape { dim {} }
        }
      }
    }
    attr {
      key: "dtype"
      value { type: DT_FLOAT }
    }
  }
  node {
    name: "ParseExample/ParseExample/names"
    op: "Const"
    attr {
      key: "value"
      value {
        tensor {
          dtype: DT_STRING
          tensor_shape { dim {} }
        }
      }
    }
    attr {
      key: "dtype"
      value { type: DT_STRING }
    }
  }
  node {
    name: "ParseExample/ParseExample/dense_keys_0"
    op: "Const"
    attr {
      key: "value"
      value {
        tensor {
          dtype: DT_STRING
          tensor_shape {}
          string_val: "x"
        }
      }
    }
    attr {
      key: "dtype"
      value { type: DT_STRING }
    }
  }
  node {
    name: "ParseExample/ParseExample"
    op: "ParseExample"
    input: "tf_example"
    input: "ParseExample/ParseExample/names"
    input: "ParseExample/ParseExample/dense_keys_0"
    input: "ParseExample/Const"
    attr {
      key: "sparse_types"
      value { list {} }
    }
    attr {
      key: "dense_shapes"
      value { list { shape { dim { size: 1 } } } }
    }
    attr {
      key: "Tdense"
      value { list { type: DT_FLOAT } }
    }
    attr {
      key: "Nsparse"
      value { i: 0 }
    }
    attr {
      key: "Ndense"
      value { i: 1 }
    }
  }
  node {
    name: "x"
    op: "Identity"
    input: "ParseExample/ParseExample"
    attr {
      key: "T"
      value { type: DT_FLOAT }
    }
  }
  node {
    name: "tags/names"
    op: "Const"
    attr {
      key: "value"
      value {
        tensor {
          dtype: DT_STRING
          tensor_shape { dim {} }
        }
      }
    }
    attr {
      key: "dtype"
      value { type: DT_STRING }
    }
  }
  node {
    name: "tags/sparse_keys_0"
    op: "Const"
    attr {
      key: "value"
      value {
        tensor {
          dtype: DT_STRING
          tensor_shape {}
          string_val: "k"
        }
      }
    }
    attr {
      key: "dtype"
      value { type: DT_STRING }
    }
  }
  node {
    name: "tags"
    op: "ParseExample"
    input: "tf_example"
    input: "tags/names"
    input: "tags/sparse_keys_0"
    attr {
      key: "sparse_types"
      value { list { type: DT_STRING } }
    }
    attr {
      key: "dense_shapes"
      value { list {} }
    }
    attr {
      key: "Tdense"
      value { list {} }
    }
    attr {
      key: "Nsparse"
      value { i: 1 }
    }
    attr {
      key: "Ndense"
      value { i: 0 }
    }
  }
  versions { producer: 2474 }
)pb";

TEST_CASE("ops/parse_example: an imported GraphDef's ParseExample nodes run") {
  const tf::GraphDef def = tf::io::parse_graph_def_text(kGraphDef, "parse_example.pbtxt");
  tf::Graph g;
  auto guard = g.as_default();
  tf::import_graph_def(def, {.name = ""});
  const tf::Output input = g.get_operation_by_name("tf_example").output(0);
  CHECK(g.get_operation_by_name("x").output(0).shape() == tf::Shape{-1, 1});
  CHECK(g.get_operation_by_name("tags").num_outputs() == 3);
  tf::Session sess(g);
  const std::vector<std::string> batch = {
      example({{"x", Floats{1}}, {"k", Strings{"red", "blue"}}}), example({{"x", Floats{5}}})};
  const auto v = sess.run({"x:0", "tags:0", "tags:1", "tags:2"}, {{input, records(batch)}});
  CHECK(v[0].dims() == tf::Dims{2, 1});
  CHECK(v[0].to_vector<float>() == Floats{1, 5});
  CHECK(v[1].to_vector<std::int64_t>() == Ints{0, 0, 0, 1});
  CHECK(v[2].to_vector<std::string>() == Strings{"red", "blue"});
  CHECK(v[3].to_vector<std::int64_t>() == Ints{2, 2});
  CHECK(error_of(
            [&] {
              sess.run("x:0", {{input, records({""})}});
            },
            "ParseExample/ParseExample") ==
        "Name: <unknown>, Feature: x (data type: float) is required but could not be found.");
}

}  // namespace symflow_test_ops_parse_example_test
