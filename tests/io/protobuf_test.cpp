// Protobuf's wire format (io/protobuf_wire.hpp) and the schema-driven binary codec
// (io/protobuf_binary.hpp): encodings checked byte by byte, and damaged input refused.
#include <doctest/doctest.h>

#include <cstdint>
#include <limits>
#include <string>

#include <symflow/io/protobuf_binary.hpp>
#include <symflow/io/protobuf_wire.hpp>
#include <symflow/io/tf_protos.hpp>
#include <symflow/symflow.hpp>

namespace symflow_test_io_protobuf_test {

namespace tf = symflow;
namespace wire = symflow::io::wire;
namespace proto = symflow::io::proto;

std::string bytes(std::initializer_list<int> values) {
  std::string out;
  for (int v : values) out += static_cast<char>(v);
  return out;
}

TEST_CASE("io/protobuf: varints, zigzag and fixed numbers as protobuf encodes them") {
  std::string out;
  wire::append_varint(out, 300);
  CHECK(out == bytes({0xAC, 0x02}));
  out.clear();
  wire::append_varint(out, static_cast<std::uint64_t>(std::int64_t{-1}));
  CHECK(out.size() == 10);
  std::size_t pos = 0;
  CHECK(wire::read_varint(out, pos) == std::numeric_limits<std::uint64_t>::max());
  CHECK(pos == 10);
  CHECK(wire::varint_size(300) == 2);
  CHECK(wire::zigzag_encode(-1) == 1);
  CHECK(wire::zigzag_encode(1) == 2);
  CHECK(wire::zigzag_decode(3) == -2);

  // Cut off, and longer than ten bytes.
  pos = 0;
  CHECK_FALSE(wire::read_varint(bytes({0x80, 0x80}), pos));
  pos = 0;
  CHECK_FALSE(wire::read_varint(std::string(11, '\x80'), pos));
  pos = 0;
  CHECK_FALSE(
      wire::read_varint(bytes({0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x02}), pos));

  wire::WireWriter w;
  w.varint(1, 150);
  w.bytes(2, "testing");
  w.fixed32(3, 0x01020304u);
  w.float64(4, 1.5);
  CHECK(w.data() ==
        bytes({0x08, 0x96, 0x01, 0x12, 0x07, 't', 'e', 's', 't', 'i', 'n', 'g',  0x1D,
               0x04, 0x03, 0x02, 0x01, 0x21, 0,   0,   0,   0,   0,   0,   0xF8, 0x3F}));
  wire::WireReader r(w.data(), "sample");
  REQUIRE(r.next());
  CHECK(r.field() == 1);
  CHECK(r.varint() == 150);
  REQUIRE(r.next());
  CHECK(r.bytes() == "testing");
  REQUIRE(r.next());
  CHECK(r.fixed32() == 0x01020304u);
  REQUIRE(r.next());
  CHECK(r.float64() == 1.5);
  CHECK_FALSE(r.next());
}

TEST_CASE("io/protobuf: the reader skips unknown fields and groups, and packed or not") {
  wire::WireWriter w;
  w.tag(7, wire::WireType::start_group);
  w.varint(1, 5);
  w.tag(7, wire::WireType::end_group);
  w.fixed64(9, 42);
  std::string packed;
  for (int v : {1, 300, 2}) wire::append_varint(packed, static_cast<std::uint64_t>(v));
  w.bytes(3, packed);
  w.varint(3, 4);  // the same field, unpacked
  wire::WireReader r(w.data(), "sample");
  std::vector<std::uint64_t> items;
  while (r.next()) {
    if (r.field() == 3)
      r.repeated(wire::WireType::varint, [&](std::uint64_t v) { items.push_back(v); });
    else
      r.skip();
  }
  CHECK(items == std::vector<std::uint64_t>{1, 300, 2, 4});
}

TEST_CASE("io/protobuf: damaged messages are DataLossErrors that say where") {
  auto read_all = [](const std::string& data) {
    wire::WireReader r(data, "damaged.pb");
    while (r.next()) r.skip();
  };
  // A length past the end.
  CHECK_THROWS_WITH_AS(read_all(bytes({0x0A, 0x05, 'a'})),
                       doctest::Contains("damaged.pb: field 1 claims 5 bytes, but only 1 are left"),
                       tf::DataLossError);
  // Field number 0, wire types 6 and 7, a fixed32 cut short.
  CHECK_THROWS_AS(read_all(bytes({0x00, 0x01})), tf::DataLossError);
  CHECK_THROWS_WITH_AS(read_all(bytes({0x0E})), doctest::Contains("wire type 6"),
                       tf::DataLossError);
  CHECK_THROWS_AS(read_all(bytes({0x0D, 0x01, 0x02})), tf::DataLossError);
  // An end-group without its start, and a group never closed.
  CHECK_THROWS_AS(read_all(bytes({0x0C})), tf::DataLossError);
  CHECK_THROWS_AS(read_all(bytes({0x0B, 0x08, 0x01})), tf::DataLossError);
  // Reading a field as the wrong wire type.
  const std::string varint_field = bytes({0x08, 0x01});  // the reader keeps a view of it
  wire::WireReader r(varint_field, "typed.pb");
  REQUIRE(r.next());
  CHECK_THROWS_WITH_AS(r.bytes(), doctest::Contains("expected length-delimited bytes"),
                       tf::DataLossError);
}

TEST_CASE("io/protobuf: decode and encode a TensorShapeProto through its description") {
  // dim { size: -1 } dim { size: 3 name: "c" }, with an unknown field 9 in between.
  std::string data = bytes({0x12, 0x0B, 0x08, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
                            0xFF, 0x01, 0x48, 0x07, 0x12, 0x05, 0x08, 0x03, 0x12, 0x01, 'c'});
  proto::Message m = proto::decode(data, tf::io::tf_proto::tensor_shape(), "shape.pb");
  REQUIRE(m.fields.size() == 2);
  CHECK(m.fields[0].name == "dim");
  REQUIRE(m.fields[0].message);
  CHECK(m.fields[0].message->fields.at(0).scalar == "-1");
  CHECK(m.fields[1].message->fields.at(1).scalar == "c");
  CHECK(m.fields[1].position == 15);
  // The unknown field is gone; everything else comes back byte for byte.
  std::string again = proto::encode(m, tf::io::tf_proto::tensor_shape());
  CHECK(again == bytes({0x12, 0x0B, 0x08, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
                        0xFF, 0xFF, 0x01, 0x12, 0x05, 0x08, 0x03, 0x12, 0x01, 'c'}));

  // A packed float list, an enum and a field of the wrong wire type.
  tf::Graph g;
  auto guard = g.as_default();
  CHECK_THROWS_WITH_AS(proto::decode(bytes({0x0D, 0, 0, 0, 0}), tf::io::tf_proto::tensor(), "t.pb"),
                       doctest::Contains("tensorflow.TensorProto.dtype has wire type 5"),
                       tf::DataLossError);
  proto::Message tensor =
      proto::decode(bytes({0x08, 0x07, 0x2A, 0x08, 0, 0, 0x80, 0x3F, 0, 0, 0x20, 0xC0}),
                    tf::io::tf_proto::tensor(), "t.pb");
  REQUIRE(tensor.fields.size() == 3);
  CHECK(tensor.fields[0].scalar == "DT_STRING");
  CHECK(tensor.fields[1].scalar == "1");
  CHECK(tensor.fields[2].scalar == "-2.5");
}

TEST_CASE("io/protobuf: a GraphDef in binary holds what its text holds") {
  tf::Graph g;
  auto guard = g.as_default();
  auto x = tf::placeholder<float>(tf::Shape{-1, 3}, "x");
  auto w = tf::constant(tf::Value{{1.0f, 2.0f, 3.0f}, {4.0f, 5.0f, 6.0f}, {7.0f, 8.0f, 9.0f}}, "w");
  auto y = tf::nn::relu(tf::matmul(x, w) + 0.5f, "y");
  tf::reduce_sum(y, {0, 1}, false, "total");
  tf::constant(std::int64_t{-7}, "i64");
  tf::constant(true, "flag");
  tf::constant(2.25, "f64");
  tf::GraphDef def = g.as_graph_def();
  def.node.back().attr["_list_f"] = tf::FloatList{{0.5, -1.0}};
  def.node.back().attr["_list_b"] = tf::BoolList{{true, false}};
  def.node.back().attr["_list_type"] = tf::TypeList{{tf::float32, tf::int64}};
  def.node.back().attr["_list_shape"] = tf::ShapeList{{tf::Shape{2, -1}, tf::Shape::unknown()}};

  std::string binary = tf::io::serialize_graph_def_binary(def);
  CHECK(tf::io::looks_like_binary_protobuf(binary));
  CHECK_FALSE(tf::io::looks_like_binary_protobuf(tf::to_text(def)));
  tf::GraphDef back = tf::io::parse_graph_def_binary(binary, "g.pb");
  CHECK(tf::to_text(back) == tf::to_text(def));
  REQUIRE(back.node.size() == def.node.size());
  for (std::size_t i = 0; i < def.node.size(); ++i)
    CHECK_MESSAGE(back.node[i].attr == def.node[i].attr, def.node[i].name);
  CHECK(back.producer == def.producer);
  // Encoding is deterministic.
  CHECK(tf::io::serialize_graph_def_binary(back) == binary);
}

TEST_CASE(
    "io/protobuf: every cut and every flipped byte of a binary GraphDef is refused or "
    "read as a GraphDef, never a crash or another error") {
  tf::Graph g;
  auto guard = g.as_default();
  auto x = tf::placeholder<float>(tf::Shape{2}, "x");
  tf::add(x, tf::constant(tf::Value{1.0f, 2.0f}), "sum");
  std::string binary = tf::io::serialize_graph_def_binary(g.as_graph_def());
  int refused = 0;
  auto attempt = [&](const std::string& data) {
    try {
      (void)tf::io::parse_graph_def_binary(data, "damaged.pb");
    } catch (const tf::DataLossError&) {
      ++refused;
    }
  };
  for (std::size_t n = 1; n < binary.size(); ++n) attempt(binary.substr(0, n));
  for (std::size_t i = 0; i < binary.size(); ++i) {
    std::string flipped = binary;
    flipped[i] = static_cast<char>(flipped[i] ^ 0xFF);
    attempt(flipped);
  }
  CHECK(refused > static_cast<int>(binary.size()));
}

}  // namespace symflow_test_io_protobuf_test
