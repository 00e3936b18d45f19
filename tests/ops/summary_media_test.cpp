// TensorFlow 1.x's tf.summary.image and tf.summary.audio (ops ImageSummary and
// AudioSummaryV2). Node names, attrs, the serialized Summary bytes (PNG and WAV included)
// and every error text come from TensorFlow 2.21 running the same graphs
// (tensorflow.compat.v1, eager execution disabled; the bytes are sess.run's result,
// written as hex).

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

namespace symflow_test_ops_summary_media_test {

using namespace symflow;
using namespace symflow::test;

inline std::string from_hex(std::string_view hex) {
  std::string out;
  for (std::size_t i = 0; i + 1 < hex.size(); i += 2)
    out += static_cast<char>(std::stoi(std::string(hex.substr(i, 2)), nullptr, 16));
  return out;
}

inline std::string run_bytes(Session& sess, const Output& t) {
  return sess.run(t).scalar<std::string>();
}

inline std::vector<std::string> node_names_and_types(const Graph& g) {
  std::vector<std::string> out;
  for (const Operation& op : g.get_operations()) out.push_back(op.name() + ":" + op.type());
  return out;
}

inline bool starts_with(const std::string& text, const std::string& prefix) {
  return text.rfind(prefix, 0) == 0;
}

// PNG encoding needs libpng (SYMFLOW_HAVE_PNG); without it an image summary is an
// UnimplementedError when it runs.
#if defined(SYMFLOW_HAVE_PNG) && SYMFLOW_HAVE_PNG
constexpr bool kHavePng = true;
#else
constexpr bool kHavePng = false;
#endif

// The run's error message (symflow's note of the node follows TensorFlow's text).
inline std::string run_error(Session& sess, const Output& fetch) {
  auto e = thrown<InvalidArgumentError>([&] { sess.run(fetch); });
  REQUIRE(e);
  return e->what();
}

constexpr std::string_view kUint8Images =
    "0a650a0c706963732f696d6167652f302255080310041803224d89504e470d0a1a0a0000000d49484452"
    "000000040000000308020000003b96399100000014494441540899636460e5e28701161b1b1bec1c0038"
    "2103163fe5dc140000000049454e44ae4260820a6a0a0c706963732f696d6167652f31225a0803100418"
    "03225289504e470d0a1a0a0000000d49484452000000040000000308020000003b963991000000194944"
    "4154089963dcb2731f3f0c307ef8fa0bc1d13134837300b841073668724ae70000000049454e44ae4260"
    "82";
constexpr std::string_view kFloatImageWithNan =
    "0a5a0a07662f696d616765224f080210021801224789504e470d0a1a0a0000000d494844520000000200"
    "000002080000000057dd52f80000000e49444154089963a8ffcff0df1e0008ba02bdac65903d00000000"
    "49454e44ae426082";
constexpr std::string_view kSignedRgbaImage =
    "0a730a0b6e65672f696d6167652f302264080210031804225c89504e470d0a1a0a0000000d4948445200"
    "0000030000000208060000009d74661a000000234944415408996334b0760bd4d1d1d6d6d6d6d161d8bc"
    "f7c4e57b2fbffcffcfc0f01f006c310b23f24333c30000000049454e44ae426082";
constexpr std::string_view kDoubleImage =
    "0a5e0a0b64626c2f696d6167652f30224f080210021801224789504e470d0a1a0a0000000d4948445200"
    "00000200000002080000000057dd52f80000000e49444154089963fccfc0c4c00000050d01034f0a5c39"
    "0000000049454e44ae426082";
constexpr std::string_view kGradientImage =
    "0a730a0c677261642f696d6167652f302263081010101803225b89504e470d0a1a0a0000000d49484452"
    "0000001000000010080200000090916836000000224944415428916364606060602405f00b0890a49e45"
    "605403311af8079f9346a00600e59305d80b88f9fc0000000049454e44ae426082";
constexpr std::string_view kFamilyImages =
    "0a700a17666d2f747261696e2f666d2f66616d2f696d6167652f302255080310041803224d89504e470d"
    "0a1a0a0000000d49484452000000040000000308020000003b96399100000014494441540899636460e5"
    "e28701161b1b1bec1c00382103163fe5dc140000000049454e44ae4260820a750a17666d2f747261696e"
    "2f666d2f66616d2f696d6167652f31225a080310041803225289504e470d0a1a0a0000000d4948445200"
    "0000040000000308020000003b9639910000001949444154089963dcb2731f3f0c307ef8fa0bc1d13134"
    "837300b841073668724ae70000000049454e44ae426082";
constexpr std::string_view kMonoAudio =
    "0a590a0b736e642f617564696f2f30324a0d0004fa45100118042234524946462c00000057415645666d"
    "74201000000001000100401f0000803e0000020010006461746108000000cd0c00c0ff7f00002a096175"
    "64696f2f7761760a590a0b736e642f617564696f2f31324a0d0004fa45100118042234524946462c0000"
    "0057415645666d74201000000001000100401f0000803e000002001000646174610800000066269a1900"
    "80ff7f2a09617564696f2f776176";
constexpr std::string_view kStereoAudio =
    "0a640a0a736e64332f617564696f32560d00007a46100218052240524946463800000057415645666d74"
    "201000000001000200803e000000fa00000400100064617461140000000080798df39a6ca8e5b55ec3d8"
    "d051decaeb43f92a09617564696f2f776176";
constexpr std::string_view kNanAudio =
    "0a570a07612f617564696f324c0d00002041100118052236524946462e00000057415645666d74201000"
    "0000010001000a0000001400000002001000646174610a00000000000080ff7f0080ff7f2a0961756469"
    "6f2f776176";
constexpr std::string_view kSlowAudio =
    "0a560a0c736c6f772f617564696f2f3032460d9a99993e10011802223052494646280000005741564566"
    "6d742010000000010001000100000002000000020010006461746104000000004000402a09617564696f"
    "2f776176";

// np.arange(72, dtype=uint8).reshape(2, 3, 4, 3) * 5 (wrapping as uint8 does).
inline Value uint8_images() {
  std::vector<std::uint8_t> v(72);
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<std::uint8_t>(i * 5);
  return Value::from_vector(v, {2, 3, 4, 3});
}

TEST_CASE("ops/summary_media: image summaries, TensorFlow's nodes, attrs and PNG bytes") {
  Graph g;
  auto guard = g.as_default();
  auto images = constant(uint8_images());
  auto pics = summary::image("pics", images);
  const float nan = std::numeric_limits<float>::quiet_NaN();
  auto f = summary::image(
      "f", constant(Value::from_vector<float>({0.5f, 1.0f, nan, 0.25f}, {1, 2, 2, 1})),
      {.max_outputs = 1});
  // (np.arange(24, dtype=float32).reshape(1, 2, 3, 4) - 7.3) / 3, with one infinity.
  std::vector<float> signed_values(24);
  for (std::size_t i = 0; i < 24; ++i) signed_values[i] = (static_cast<float>(i) - 7.3f) / 3.0f;
  signed_values[1 * 12 + 2 * 4 + 1] = std::numeric_limits<float>::infinity();
  auto neg = summary::image("neg", constant(Value::from_vector(signed_values, {1, 2, 3, 4})),
                            {.max_outputs = 5});
  auto dbl = summary::image("dbl", constant(Value::filled<double>({1, 2, 2, 1}, 1.0)));
  std::vector<float> ramp(16 * 16 * 3);
  for (std::size_t i = 0; i < ramp.size(); ++i) ramp[i] = static_cast<float>(i) / 700.0f;
  auto grad = summary::image("grad", constant(Value::from_vector(ramp, {1, 16, 16, 3})));
  Tensor<std::string> fam;
  {
    name_scope scope("train");
    fam = summary::image("fam", images, {.family = "fm"});
  }
  CHECK(node_names_and_types(g) ==
        std::vector<std::string>{
            "Const:Const", "pics/tag:Const", "pics:ImageSummary", "Const_1:Const", "f/tag:Const",
            "f:ImageSummary", "Const_2:Const", "neg/tag:Const", "neg:ImageSummary", "Const_3:Const",
            "dbl/tag:Const", "dbl:ImageSummary", "Const_4:Const", "grad/tag:Const",
            "grad:ImageSummary", "train/fm/fam/tag:Const", "train/fm/fam:ImageSummary"});
  CHECK(pics.op().get_attr<std::int64_t>("max_images") == 3);
  CHECK(f.op().get_attr<std::int64_t>("max_images") == 1);
  CHECK(pics.op().get_attr<DType>("T") == DType::uint8);
  CHECK(dbl.op().get_attr<DType>("T") == DType::float64);
  const Value& bad_color = pics.op().get_attr<Value>("bad_color");
  CHECK(bad_color.dtype() == DType::uint8);
  CHECK(bad_color.to_vector<std::uint8_t>() == std::vector<std::uint8_t>{255, 0, 0, 255});
  CHECK(pics.get_shape() == Shape{});

  std::vector<std::string> in_collection;
  for (const CollectionValue& v : get_collection(GraphKeys::SUMMARIES))
    in_collection.push_back(std::get<Output>(v).name());
  CHECK(in_collection ==
        std::vector<std::string>{"pics:0", "f:0", "neg:0", "dbl:0", "grad:0", "train/fm/fam:0"});

  Session sess(g);
  if (!kHavePng) {
    auto e = thrown<UnimplementedError>([&] { sess.run(pics); });
    REQUIRE(e);
    CHECK(contains(e->message(), "libpng"));
    return;
  }
  CHECK(run_bytes(sess, pics) == from_hex(kUint8Images));
  CHECK(run_bytes(sess, f) == from_hex(kFloatImageWithNan));
  CHECK(run_bytes(sess, neg) == from_hex(kSignedRgbaImage));
  CHECK(run_bytes(sess, dbl) == from_hex(kDoubleImage));
  CHECK(run_bytes(sess, grad) == from_hex(kGradientImage));
  CHECK(run_bytes(sess, fam) == from_hex(kFamilyImages));
}

TEST_CASE("ops/summary_media: an image summary's values read back") {
  Graph g;
  auto guard = g.as_default();
  auto pics = summary::image("pics", constant(uint8_images()), {.max_outputs = 1});
  Session sess(g);
  if (!kHavePng) return;
  const auto values = io::summary_proto::parse_summary(run_bytes(sess, pics), "test");
  REQUIRE(values.size() == 1);  // one of the batch's two: max_outputs
  CHECK(values[0].tag == "pics/image");
  REQUIRE(values[0].image);
  CHECK(values[0].image->height == 3);
  CHECK(values[0].image->width == 4);
  CHECK(values[0].image->colorspace == 3);
  CHECK(starts_with(values[0].image->encoded_image_string, "\x89PNG\r\n\x1a\n"));
  // An empty batch gives an empty Summary.
  auto none = summary::image("none", zeros<float>(Shape{0, 2, 2, 1}));
  CHECK(run_bytes(sess, none).empty());
}

TEST_CASE("ops/summary_media: bad images fail with TensorFlow's messages") {
  Graph g;
  auto guard = g.as_default();
  // Build time: the dtype and max_outputs.
  auto type_error = thrown<TypeError>([&] {
    summary::image("im", constant(Value::filled<std::int32_t>({1, 2, 2, 1}, 0)));
  });
  REQUIRE(type_error);
  CHECK(starts_with(type_error->what(),
                    "Value passed to parameter 'tensor' has DataType int32 not in list of "
                    "allowed values: uint8, float32, float16, float64"));
  auto max_error = thrown<ValueError>([&] {
    summary::image("im", zeros<float>(Shape{1, 2, 2, 1}), {.max_outputs = 0});
  });
  REQUIRE(max_error);
  CHECK(starts_with(max_error->what(),
                    "Attr 'max_images' of 'ImageSummary' Op passed 0 less than minimum 1."));
  // Run time: the rank, the channels and empty images.
  auto rank2 = summary::image("im", zeros<float>(Shape{2, 3}));
  auto two_channels = summary::image("im", zeros<float>(Shape{1, 2, 2, 2}));
  auto no_rows = summary::image("im", zeros<float>(Shape{1, 0, 2, 1}));
  Session sess(g);
  CHECK(starts_with(run_error(sess, rank2),
                    "Tensor must be 4-D with last dim 1, 3, or 4, not [2,3]"));
  CHECK(starts_with(run_error(sess, two_channels),
                    "Tensor must be 4-D with last dim 1, 3, or 4, not [1,2,2,2]"));
  CHECK(starts_with(run_error(sess, no_rows),
                    "input tensor must have non-zero dims. Found: [1, 0, 2, 1]."));
}

TEST_CASE("ops/summary_media: audio summaries, TensorFlow's nodes and WAV bytes") {
  Graph g;
  auto guard = g.as_default();
  auto snd = summary::audio("snd",
                            constant(Value::from_vector<float>(
                                {0.1f, -0.5f, 1.5f, 0.0f, 0.3f, 0.2f, -1.2f, 1.0f}, {2, 4})),
                            8000.5f);
  // np.linspace(-1, 1, 20, dtype=float32).reshape(2, 5, 2)
  std::vector<float> ramp(20);
  for (std::size_t i = 0; i < 20; ++i)
    ramp[i] = static_cast<float>(static_cast<double>(i) * (2.0 / 19.0) - 1.0);
  ramp[19] = 1.0f;
  auto stereo = summary::audio("snd3", constant(Value::from_vector(ramp, {2, 5, 2})), 16000.0f,
                               {.max_outputs = 1});
  const float inf = std::numeric_limits<float>::infinity();
  auto odd = summary::audio(
      "a",
      constant(Value::from_vector<float>(
          {std::numeric_limits<float>::quiet_NaN(), -inf, inf, -1.0f, 0.99999f}, {1, 5})),
      10.0f, {.max_outputs = 1});
  auto slow = summary::audio("slow", constant(Value::filled<float>({1, 2}, 0.5f)), 0.3f);
  CHECK(node_names_and_types(g) ==
        std::vector<std::string>{
            "Const:Const", "snd/sample_rate:Const", "snd/tag:Const", "snd:AudioSummaryV2",
            "Const_1:Const", "snd3/sample_rate:Const", "snd3/tag:Const", "snd3:AudioSummaryV2",
            "Const_2:Const", "a/sample_rate:Const", "a/tag:Const", "a:AudioSummaryV2",
            "Const_3:Const", "slow/sample_rate:Const", "slow/tag:Const", "slow:AudioSummaryV2"});
  CHECK(snd.op().get_attr<std::int64_t>("max_outputs") == 3);
  CHECK(stereo.op().get_attr<std::int64_t>("max_outputs") == 1);
  Session sess(g);
  CHECK(run_bytes(sess, snd) == from_hex(kMonoAudio));
  CHECK(run_bytes(sess, stereo) == from_hex(kStereoAudio));
  CHECK(run_bytes(sess, odd) == from_hex(kNanAudio));
  CHECK(run_bytes(sess, slow) == from_hex(kSlowAudio));

  const auto values = io::summary_proto::parse_summary(run_bytes(sess, stereo), "test");
  REQUIRE(values.size() == 1);
  CHECK(values[0].tag == "snd3/audio");
  REQUIRE(values[0].audio);
  CHECK(values[0].audio->sample_rate == 16000.0f);
  CHECK(values[0].audio->num_channels == 2);
  CHECK(values[0].audio->length_frames == 5);
  CHECK(values[0].audio->content_type == "audio/wav");
  CHECK(values[0].audio->encoded_audio_string.size() == 44 + 5 * 2 * 2);
}

TEST_CASE("ops/summary_media: a sample rate tensor, and bad audio with TensorFlow's messages") {
  Graph g;
  auto guard = g.as_default();
  auto rate = placeholder<float>(Shape{}, "rate");
  auto fed = summary::audio("fed", zeros<float>(Shape{1, 3}), rate);
  CHECK(fed.op().inputs()[2].name() == "rate:0");
  auto type_error = thrown<TypeError>([&] {
    summary::audio("a", constant(Value::filled<double>({1, 2}, 0.0)), 10.0f);
  });
  REQUIRE(type_error);
  CHECK(starts_with(type_error->what(),
                    "Input 'tensor' of 'AudioSummaryV2' Op has type float64 that does not "
                    "match expected type of float32."));
  auto max_error = thrown<ValueError>([&] {
    summary::audio("a", zeros<float>(Shape{1, 2}), 10.0f, {.max_outputs = 0});
  });
  REQUIRE(max_error);
  CHECK(starts_with(max_error->what(),
                    "Attr 'max_outputs' of 'AudioSummaryV2' Op passed 0 less than minimum 1."));
  auto rank1 = summary::audio("a", zeros<float>(Shape{3}), 100.0f);
  auto rank4 = summary::audio("a", zeros<float>(Shape{1, 2, 1, 1}), 100.0f);
  auto no_rate = summary::audio("a", zeros<float>(Shape{1, 2}), 0.0f);
  Session sess(g);
  CHECK(starts_with(run_error(sess, rank1), "Tensor must be 3-D or 2-D, got: [3]"));
  CHECK(starts_with(run_error(sess, rank4), "Tensor must be 3-D or 2-D, got: [1,2,1,1]"));
  CHECK(starts_with(run_error(sess, no_rate), "sample_rate must be > 0"));
  const auto values = io::summary_proto::parse_summary(
      sess.run(fed, {{rate, Value(22050.0f)}}).scalar<std::string>(), "test");
  REQUIRE(values.size() == 1);
  CHECK(values[0].tag == "fed/audio/0");
  CHECK(values[0].audio->sample_rate == 22050.0f);
}

}  // namespace symflow_test_ops_summary_media_test
