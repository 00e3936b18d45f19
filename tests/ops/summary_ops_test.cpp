// TensorFlow 1.x's tf.summary ops: scalar, histogram, merge and merge_all. Node names,
// tags, collections, the serialized Summary bytes and every error text come from
// TensorFlow 2.21 running the same graphs (tensorflow.compat.v1, eager execution
// disabled; the bytes are sess.run's result, written as hex).

#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include <symflow/io/summary_protos.hpp>
#include <symflow/ops/summary_ops.hpp>
#include <symflow/symflow.hpp>

#include "../test_util.hpp"

namespace symflow_test_ops_summary_ops_test {

using namespace symflow;
using namespace symflow::test;

// Bytes from the hex the oracle printed (bytes.hex()).
inline std::string from_hex(std::string_view hex) {
  std::string out;
  for (std::size_t i = 0; i + 1 < hex.size(); i += 2)
    out += static_cast<char>(std::stoi(std::string(hex.substr(i, 2)), nullptr, 16));
  return out;
}

inline std::string run_bytes(Session& sess, const Output& t, const FeedDict& feeds = {}) {
  return sess.run(t, feeds).scalar<std::string>();
}

inline std::vector<std::string> node_names_and_types(const Graph& g) {
  std::vector<std::string> out;
  for (const Operation& op : g.get_operations()) out.push_back(op.name() + ":" + op.type());
  return out;
}

// Build-time errors carry symflow's note of the node after TensorFlow's text.
inline bool starts_with(const std::string& text, const std::string& prefix) {
  return text.rfind(prefix, 0) == 0;
}

inline InvalidArgumentError run_error(Session& sess, const Output& fetch,
                                      const FeedDict& feeds = {}) {
  auto e = thrown<InvalidArgumentError>([&] { sess.run(fetch, feeds); });
  REQUIRE(e);
  return *e;
}

// TF: "train/weights" over [1, -2, 0, 3.5, 3.5].
constexpr std::string_view kWeightsHistogram =
    "0ad3010a0d747261696e2f776569676874732ac1010900000000000000c0110000000000000c4019"
    "0000000000001440210000000000001840290000000000803d403248e011f10c744d01c0dc94cd2e"
    "8d75ffbf000000000000000011ea2d819997713d08996919155aed3f2b14facdbe24f03f75f872ca"
    "addd0b4081444bf80ba70e40ffffffffffffef7f3a480000000000000000000000000000f03f0000"
    "000000000000000000000000f03f0000000000000000000000000000f03f00000000000000000000"
    "0000000000400000000000000000";

TEST_CASE("ops/summary: scalar and histogram in a name scope, TensorFlow's nodes and bytes") {
  Graph g;
  auto guard = g.as_default();
  auto x = placeholder<float>(Shape::unknown(), "x");
  Tensor<std::string> s1, s2, h;
  {
    name_scope scope("train");
    s1 = summary::scalar("loss", x);
    s2 = summary::scalar("loss", constant(2.5f));
    h = summary::histogram("weights", constant<float>({1.0f, -2.0f, 0.0f, 3.5f, 3.5f}));
  }
  auto h2 = summary::histogram("empty", zeros<float>(Shape{0}));
  auto hi = summary::histogram("ints", constant<std::int32_t>({{1, 2}, {3, 100}}));
  auto s3 = summary::scalar("bad name!", x);
  auto s4 = summary::scalar("d", constant(1.0));
  // TF's node list for the same program.
  CHECK(node_names_and_types(g) ==
        std::vector<std::string>{
            "x:Placeholder",        "train/loss/tags:Const",   "train/loss:ScalarSummary",
            "train/Const:Const",    "train/loss_1/tags:Const", "train/loss_1:ScalarSummary",
            "train/Const_1:Const",  "train/weights/tag:Const", "train/weights:HistogramSummary",
            "zeros:Const",          "empty/tag:Const",         "empty:HistogramSummary",
            "Const:Const",          "ints/tag:Const",          "ints:HistogramSummary",
            "bad_name_/tags:Const", "bad_name_:ScalarSummary", "Const_1:Const",
            "d/tags:Const",         "d:ScalarSummary"});
  CHECK(s1.name() == "train/loss:0");
  CHECK(s1.dtype() == DType::string);
  CHECK(s1.get_shape() == Shape{});
  CHECK(s4.op().get_attr<DType>("T") == DType::float64);
  CHECK(hi.op().get_attr<DType>("T") == DType::int32);

  std::vector<std::string> in_collection;
  for (const CollectionValue& v : get_collection(GraphKeys::SUMMARIES))
    in_collection.push_back(std::get<Output>(v).name());
  CHECK(in_collection == std::vector<std::string>{"train/loss:0", "train/loss_1:0",
                                                  "train/weights:0", "empty:0", "ints:0",
                                                  "bad_name_:0", "d:0"});

  Session sess(g);
  const FeedDict feed{{x, Value(0.5f)}};
  CHECK(run_bytes(sess, s1, feed) == from_hex("0a110a0a747261696e2f6c6f7373150000003f"));
  CHECK(run_bytes(sess, s2) == from_hex("0a130a0c747261696e2f6c6f73735f311500002040"));
  CHECK(run_bytes(sess, h) == from_hex(kWeightsHistogram));
  CHECK(run_bytes(sess, h2) ==
        from_hex("0a2f0a05656d7074792a2609ffffffffffffef7f11ffffffffffffefff3208ffffffffffffef7f3a"
                 "080000000000000000"));
  CHECK(run_bytes(sess, hi) ==
        from_hex("0aca010a04696e74732ac10109000000000000f03f11000000000000594019000000000000104021"
                 "0000000000805a402900000000008fc340324808996919155aed3f2b14facdbe24f03fdc94cd2e8d"
                 "75ff3fe011f10c744d014068bc10359a0707400d9cc5a029550940723b6014ce785840feda691649"
                 "eb5a40ffffffffffffef7f3a480000000000000000000000000000f03f0000000000000000000000"
                 "000000f03f0000000000000000000000000000f03f0000000000000000000000000000f03f000000"
                 "0000000000"));
  CHECK(run_bytes(sess, s3, feed) == from_hex("0a100a096261645f6e616d655f150000003f"));
  CHECK(run_bytes(sess, s4) == from_hex("0a080a0164150000803f"));
}

TEST_CASE("ops/summary: the histogram's fields and buckets read back") {
  Graph g;
  auto guard = g.as_default();
  auto h = summary::histogram("weights", constant<float>({1.0f, -2.0f, 0.0f, 3.5f, 3.5f}));
  Session sess(g);
  const auto values = io::summary_proto::parse_summary(run_bytes(sess, h), "test");
  REQUIRE(values.size() == 1);
  CHECK(values[0].tag == "weights");
  REQUIRE(values[0].histo);
  const auto& histo = *values[0].histo;
  // TF: min -2, max 3.5, num 5, sum 6, sum_squares 29.5, 9 buckets (empty runs merged).
  CHECK(histo.min == -2.0);
  CHECK(histo.max == 3.5);
  CHECK(histo.num == 5.0);
  CHECK(histo.sum == 6.0);
  CHECK(histo.sum_squares == 29.5);
  CHECK(histo.bucket == std::vector<double>{0, 1, 0, 1, 0, 1, 0, 2, 0});
  CHECK(histo.bucket_limit[2] == 0.0);
  CHECK(histo.bucket_limit[3] == 1e-12);
  CHECK(histo.bucket_limit[8] == std::numeric_limits<double>::max());
}

TEST_CASE("ops/summary: the raw ops with tag vectors, zeros and -0.0, as TensorFlow writes") {
  Graph g;
  auto guard = g.as_default();
  auto a = Tensor<std::string>(detail::OpBuilder(g, {}, "ScalarSummary")
                                   .build(detail::kScalarSummaryOp,
                                          {constant({"z", "m"}), constant<float>({0.0f, -0.0f})},
                                          {{"T", DType::float32}})
                                   .output(0));
  auto b = Tensor<std::string>(detail::OpBuilder(g, {}, "HistogramSummary")
                                   .build(detail::kHistogramSummaryOp,
                                          {constant("nz"), constant<float>({-0.0f})},
                                          {{"T", DType::float32}})
                                   .output(0));
  auto c =
      Tensor<std::string>(detail::OpBuilder(g, {}, "HistogramSummary")
                              .build(detail::kHistogramSummaryOp,
                                     {constant("big"), constant<double>({1e30, -1e-13, 5e-13})},
                                     {{"T", DType::float64}})
                              .output(0));
  // MergeSummary takes string tensors of any shape; values without a tag are never
  // duplicates.
  auto merged = Tensor<std::string>(
      detail::OpBuilder(g, {}, "MergeSummary")
          .build(detail::kMergeSummaryOp,
                 {constant(Value::from_vector<std::string>({"", from_hex("0a000a00")}, {2})), a},
                 {{"N", std::int64_t{2}}})
          .output(0));
  Session sess(g);
  CHECK(run_bytes(sess, a) == from_hex("0a080a017a15000000000a080a016d1500000080"));
  CHECK(run_bytes(sess, merged) == from_hex("0a000a000a080a017a15000000000a080a016d1500000080"));
  CHECK(run_bytes(sess, b) ==
        from_hex("0a550a026e7a2a4f09000000000000008011000000000000008019000000000000f03f3218000000"
                 "000000000011ea2d819997713dffffffffffffef7f3a180000000000000000000000000000f03f00"
                 "00000000000000"));
  CHECK(run_bytes(sess, c) ==
        from_hex("0a89010a036269672a81010982764968c2253cbd11ea8ca039593e294619000000000000084021ea"
                 "8ca039593e29462945f3c2e4e4e9634c322811ea2d81999771bd000000000000000011ea2d819997"
                 "713d4c549f0223831544ffffffffffffef7f3a280000000000000000000000000000f03f00000000"
                 "0000f03f0000000000000000000000000000f03f"));
}

TEST_CASE("ops/summary: merge and merge_all, TensorFlow's nodes and bytes") {
  Graph g;
  auto guard = g.as_default();
  auto x = placeholder<float>(Shape::unknown(), "x");
  Tensor<std::string> s1, h;
  {
    name_scope scope("train");
    s1 = summary::scalar("loss", x);
    h = summary::histogram("weights", constant<float>({1.0f, -2.0f, 0.0f, 3.5f, 3.5f}));
  }
  auto s4 = summary::scalar("d", constant(1.0));
  auto m = summary::merge({s1, h});
  auto all = summary::merge_all();
  REQUIRE(all);
  CHECK(m.name() == "Merge/MergeSummary:0");
  CHECK(all->name() == "Merge_1/MergeSummary:0");
  CHECK(m.op().get_attr<std::int64_t>("N") == 2);
  CHECK(input_names(*all) == std::vector<std::string>{"train/loss:0", "train/weights:0", "d:0"});
  CHECK_FALSE(summary::merge_all("nothing"));
  // merge() joins no collection by default.
  CHECK(get_collection(GraphKeys::SUMMARIES).size() == 3);

  Session sess(g);
  const FeedDict feed{{x, Value(0.5f)}};
  const std::string loss = from_hex("0a110a0a747261696e2f6c6f7373150000003f");
  CHECK(run_bytes(sess, m, feed) == loss + from_hex(kWeightsHistogram));
  CHECK(run_bytes(sess, *all, feed) ==
        loss + from_hex(kWeightsHistogram) + from_hex("0a080a0164150000803f"));
}

TEST_CASE("ops/summary: errors as TensorFlow raises them") {
  Graph g;
  auto guard = g.as_default();
  auto x = placeholder<float>(Shape::unknown(), "x");
  auto s1 = summary::scalar("loss", x);
  auto h = summary::histogram("hist", x);
  Tensor<std::string> h2;
  {
    name_scope scope("a");
    h2 = summary::histogram("hist", x);
  }
  auto dup = summary::merge({s1, s1});
  auto bad = summary::merge({constant("abc")});
  Session sess(g);
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();

  auto e = run_error(sess, s1, {{x, Value::from_vector<float>({1, 2}, {2})}});
  CHECK(e.message() == "tags and values are not the same shape: [] != [2] (tag 'loss')");
  CHECK(e.node_name() == "loss");
  e = run_error(sess, s1, {{x, Value::from_vector<float>({1}, {1, 1})}});
  CHECK(e.message() == "tags and values are not the same shape: [] != [1,1] (tag 'loss')");
  e = run_error(sess, h, {{x, Value::from_vector<float>({1, nan}, {2})}});
  CHECK(e.message() == "Nan in summary histogram for: hist");
  e = run_error(sess, h, {{x, Value::from_vector<float>({inf}, {1})}});
  CHECK(e.message() == "Infinity in Histogram for: hist");
  e = run_error(sess, h2, {{x, Value::from_vector<float>({nan}, {1})}});
  CHECK(e.message() == "Nan in summary histogram for: a/hist");
  e = run_error(sess, dup, {{x, Value(1.0f)}});
  CHECK(e.message() == "Duplicate tag loss found in summary inputs ");
  CHECK(e.node_name() == "Merge/MergeSummary");
  e = run_error(sess, bad);
  CHECK(e.message() == "Could not parse one of the summary inputs");

  // The raw ops: tag vectors of another length, and a histogram's non-scalar tag.
  auto v2 = Tensor<std::string>(detail::OpBuilder(g, {}, "ScalarSummary")
                                    .build(detail::kScalarSummaryOp,
                                           {constant({"a", "b"}), constant<float>({1, 2, 3})},
                                           {{"T", DType::float32}})
                                    .output(0));
  e = run_error(sess, v2);
  CHECK(e.message() == "tags and values are not the same shape: [2] != [3]");
  auto hv = Tensor<std::string>(detail::OpBuilder(g, {}, "HistogramSummary")
                                    .build(detail::kHistogramSummaryOp,
                                           {constant({"a", "b"}), constant<float>({1, 2})},
                                           {{"T", DType::float32}})
                                    .output(0));
  e = run_error(sess, hv);
  CHECK(e.message() == "tags must be scalar");

  // Build-time errors.
  auto te = thrown<TypeError>([&] { summary::scalar("q", constant("s")); });
  REQUIRE(te);
  CHECK(starts_with(
      te->message(),
      "Value passed to parameter 'values' has DataType string not in list of allowed values: "
      "float32, float64, int32, uint8, int16, int8, int64, bfloat16, uint16, float16, uint32, "
      "uint64"));
  te = thrown<TypeError>([&] { summary::merge({x}); });
  REQUIRE(te);
  CHECK(starts_with(te->message(),
                    "Tensors in list passed to 'inputs' of 'MergeSummary' Op have types "
                    "[float32] that do not match expected type string."));
  auto ve = thrown<ValueError>([&] { summary::merge({}); });
  REQUIRE(ve);
  CHECK(ve->message() ==
        "List argument 'inputs' to 'MergeSummary' Op with length 0 shorter than minimum length "
        "1.");
}

TEST_CASE("ops/summary: text and tensor_summary, TensorFlow's nodes and bytes") {
  Graph g;
  auto guard = g.as_default();
  Tensor<std::string> t;
  {
    name_scope scope("s");
    t = summary::text("notes",
                      constant(Value::from_vector<std::string>({"hello", "w\xc3\xb6rld"}, {2})));
  }
  auto t2 = summary::text("one", constant("x"));
  auto ts = summary::tensor_summary("ts", constant<float>({{1.5f, 2.0f}}));
  auto ti = summary::tensor_summary("ti", constant(std::int64_t{3}));
  auto tb = summary::tensor_summary("tb", constant<bool>({true, false}));
  auto td = summary::tensor_summary("td", constant<double>({1.0}), {.summary_description = "desc"});
  CHECK(node_names_and_types(g) ==
        std::vector<std::string>{"s/Const:Const",
                                 "s/notes/tag:Const",
                                 "s/notes/serialized_summary_metadata:Const",
                                 "s/notes:TensorSummaryV2",
                                 "Const:Const",
                                 "one/tag:Const",
                                 "one/serialized_summary_metadata:Const",
                                 "one:TensorSummaryV2",
                                 "Const_1:Const",
                                 "ts/tag:Const",
                                 "ts/serialized_summary_metadata:Const",
                                 "ts:TensorSummaryV2",
                                 "Const_2:Const",
                                 "ti/tag:Const",
                                 "ti/serialized_summary_metadata:Const",
                                 "ti:TensorSummaryV2",
                                 "Const_3:Const",
                                 "tb/tag:Const",
                                 "tb/serialized_summary_metadata:Const",
                                 "tb:TensorSummaryV2",
                                 "Const_4:Const",
                                 "td/tag:Const",
                                 "td/serialized_summary_metadata:Const",
                                 "td:TensorSummaryV2"});
  CHECK(get_collection(GraphKeys::SUMMARIES).size() == 6);
  CHECK(t.op().get_attr<DType>("T") == DType::string);
  Session sess(g);
  CHECK(run_bytes(sess, t) == from_hex("0a2c0a07732f6e6f74657342170807120412020802420568656c6c6f"
                                       "420677c3b6726c644a080a060a0474657874"));
  CHECK(run_bytes(sess, t2) == from_hex("0a180a036f6e654207080712004201784a080a060a0474657874"));
  CHECK(run_bytes(sess, ts) ==
        from_hex("0a1e0a027473421608011208120208011202080222080000c03f000000404a00"));
  CHECK(run_bytes(sess, ti) == from_hex("0a160a027469420e08091200220803000000000000004a00"));
  CHECK(run_bytes(sess, tb) == from_hex("0a140a027462420c080a120412020802220201004a00"));
  CHECK(run_bytes(sess, td) ==
        from_hex("0a200a027464421208021204120208012208000000000000f03f4a061a0464657363"));

  // TF: ValueError "Expected tensor Const_5:0 to have dtype string, got <dtype: 'float32'>".
  auto ve = thrown<ValueError>([&] { summary::text("bad", constant(1.0f)); });
  REQUIRE(ve);
  CHECK(ve->message() == "Expected tensor Const_5:0 to have dtype string, got <dtype: 'float32'>");
}

TEST_CASE("ops/summary: TensorSummaryV2's empty shapes and its run-time errors") {
  Graph g;
  auto guard = g.as_default();
  auto raw = [&](const Output& tag, const Output& tensor, const Output& metadata) {
    return Tensor<std::string>(
        detail::OpBuilder(g, {}, "TensorSummaryV2")
            .build(detail::kTensorSummaryV2Op, {tag, tensor, metadata}, {{"T", tensor.dtype()}})
            .output(0));
  };
  auto a = raw(constant({"a", "b"}), constant(1.0f), constant(""));
  auto b = raw(constant("e"), zeros<float>(Shape{2, 0}), constant(from_hex("0a060a0474657874")));
  auto c = raw(constant(""), constant({"q"}), constant({"a"}));
  Session sess(g);
  // TF: "tag must be scalar", bytes, "serialized_summary_metadata must be scalar".
  CHECK(run_error(sess, a).message() == "tag must be scalar");
  CHECK(run_bytes(sess, b) == from_hex("0a190a0165420a080112061202080212004a080a060a0474657874"));
  CHECK(run_error(sess, c).message() == "serialized_summary_metadata must be scalar");
}

TEST_CASE("ops/summary: collections and family") {
  Graph g;
  auto guard = g.as_default();
  auto x = constant(1.0f);
  auto a = summary::scalar("a", x, {.collections = std::vector<CollectionKey>{"mine"}});
  auto b = summary::scalar("b", x, {.collections = std::vector<CollectionKey>{}});
  auto c = summary::scalar("c", x, {.family = "fam"});
  auto h = summary::histogram("h", x, {.family = "fam"});
  // TF: Const, a/tags, a, b/tags, b, fam/c/tags, fam/c, fam/h/tag, fam/h; two summaries in
  // SUMMARIES, one in "mine"; tags "fam/fam/c" and "fam/fam/h".
  CHECK(node_names_and_types(g) ==
        std::vector<std::string>{"Const:Const", "a/tags:Const", "a:ScalarSummary", "b/tags:Const",
                                 "b:ScalarSummary", "fam/c/tags:Const", "fam/c:ScalarSummary",
                                 "fam/h/tag:Const", "fam/h:HistogramSummary"});
  CHECK(get_collection(GraphKeys::SUMMARIES).size() == 2);
  CHECK(get_collection("mine").size() == 1);
  Session sess(g);
  CHECK(run_bytes(sess, c) == from_hex("0a100a0966616d2f66616d2f63150000803f"));
  const auto values = io::summary_proto::parse_summary(run_bytes(sess, h), "test");
  REQUIRE(values.size() == 1);
  CHECK(values[0].tag == "fam/fam/h");
  (void)a;
  (void)b;
}

}  // namespace symflow_test_ops_summary_ops_test
