#pragma once
// TensorBoard's Summary protos (TensorFlow's core/framework/summary.proto), written and
// read without a protobuf library: the bytes the summary ops output and event files
// carry. Written as TensorFlow's SerializeToString does (fields in number order, proto3
// zeros left out, a oneof member always written), so that a summary matches TensorFlow's
// byte for byte. Also the histogram TensorFlow's HistogramSummary builds
// (core/lib/histogram/histogram.cc): its default buckets, and the collapsing of empty
// runs of buckets in its proto. And the WAV bytes of an audio summary
// (core/lib/wav/wav_io.cc: 16-bit PCM, little-endian).
//
// This header reaches nothing above core/, so that the summary kernels may use it.

#include <algorithm>
#include <bit>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "symflow/core/dtype.hpp"
#include "symflow/core/shape.hpp"
#include "symflow/io/protobuf_wire.hpp"

namespace symflow::io::summary_proto {

using wire::append_fixed32;
using wire::append_fixed64;
using wire::append_varint;
using wire::WireReader;
using wire::WireType;

// Field numbers of Summary, Summary.Value and HistogramProto.
inline constexpr std::uint32_t kSummaryValue = 1;
inline constexpr std::uint32_t kValueTag = 1;
inline constexpr std::uint32_t kValueSimpleValue = 2;
inline constexpr std::uint32_t kValueImage = 4;
inline constexpr std::uint32_t kValueHisto = 5;
inline constexpr std::uint32_t kValueAudio = 6;
inline constexpr std::uint32_t kValueTensor = 8;
inline constexpr std::uint32_t kValueMetadata = 9;
inline constexpr std::uint32_t kHistoMin = 1;
inline constexpr std::uint32_t kHistoMax = 2;
inline constexpr std::uint32_t kHistoNum = 3;
inline constexpr std::uint32_t kHistoSum = 4;
inline constexpr std::uint32_t kHistoSumSquares = 5;
inline constexpr std::uint32_t kHistoBucketLimit = 6;
inline constexpr std::uint32_t kHistoBucket = 7;
// Summary.Image and Summary.Audio.
inline constexpr std::uint32_t kImageHeight = 1;
inline constexpr std::uint32_t kImageWidth = 2;
inline constexpr std::uint32_t kImageColorspace = 3;
inline constexpr std::uint32_t kImageEncoded = 4;
inline constexpr std::uint32_t kAudioSampleRate = 1;
inline constexpr std::uint32_t kAudioNumChannels = 2;
inline constexpr std::uint32_t kAudioLengthFrames = 3;
inline constexpr std::uint32_t kAudioEncoded = 4;
inline constexpr std::uint32_t kAudioContentType = 5;

inline void append_tag(std::string& out, std::uint32_t field, WireType type) {
  append_varint(out, (std::uint64_t{field} << 3) | static_cast<std::uint8_t>(type));
}
inline void append_bytes_field(std::string& out, std::uint32_t field, std::string_view bytes) {
  append_tag(out, field, WireType::bytes);
  append_varint(out, bytes.size());
  out.append(bytes);
}
// A proto3 double: left out when its bits are zero (so -0.0 is written, as protobuf does).
inline void append_double_field(std::string& out, std::uint32_t field, double value) {
  const auto bits = std::bit_cast<std::uint64_t>(value);
  if (bits == 0) return;
  append_tag(out, field, WireType::fixed64);
  append_fixed64(out, bits);
}
// A proto3 integer: left out when zero.
inline void append_int_field(std::string& out, std::uint32_t field, std::int64_t value) {
  if (value == 0) return;
  append_tag(out, field, WireType::varint);
  append_varint(out, static_cast<std::uint64_t>(value));
}
inline void append_packed_doubles(std::string& out, std::uint32_t field,
                                  const std::vector<double>& values) {
  if (values.empty()) return;
  append_tag(out, field, WireType::bytes);
  append_varint(out, values.size() * 8);
  for (double v : values) append_fixed64(out, std::bit_cast<std::uint64_t>(v));
}

// A HistogramProto's fields.
struct Histogram {
  double min = 0, max = 0, num = 0, sum = 0, sum_squares = 0;
  std::vector<double> bucket_limit;
  std::vector<double> bucket;
};

// TensorFlow's default bucket limits: -DBL_MAX, the negated limits, 0, then limits from
// 1e-12 growing by 10% while below 1e20, then DBL_MAX. A value falls in the first bucket
// whose limit is above it.
inline const std::vector<double>& default_bucket_limits() {
  static const std::vector<double> limits = [] {
    std::vector<double> positive;
    for (double v = 1.0e-12; v < 1.0e20; v *= 1.1) positive.push_back(v);
    positive.push_back(DBL_MAX);
    std::vector<double> all;
    for (auto it = positive.rbegin(); it != positive.rend(); ++it) all.push_back(-*it);
    all.push_back(0.0);
    all.insert(all.end(), positive.begin(), positive.end());
    return all;
  }();
  return limits;
}

// Accumulates values (finite ones: the caller rejects NaN and infinities) into the
// default buckets, as TensorFlow's histogram::Histogram does.
class HistogramBuilder {
 public:
  HistogramBuilder() : counts_(default_bucket_limits().size(), 0.0) {}

  void add(double value) {
    const auto& limits = default_bucket_limits();
    const auto at = std::upper_bound(limits.begin(), limits.end(), value) - limits.begin();
    counts_[std::min(static_cast<std::size_t>(at), counts_.size() - 1)] += 1.0;
    min_ = std::min(min_, value);
    max_ = std::max(max_, value);
    num_ += 1;
    sum_ += value;
    sum_squares_ += value * value;
  }

  // The proto, with each run of empty buckets merged into one that ends where the run
  // ends (TensorFlow's EncodeToProto without preserve_zero_buckets).
  Histogram to_proto() const {
    const auto& limits = default_bucket_limits();
    Histogram h{min_, max_, num_, sum_, sum_squares_, {}, {}};
    for (std::size_t i = 0; i < counts_.size();) {
      double end = limits[i];
      double count = counts_[i];
      ++i;
      if (count <= 0.0) {
        while (i < counts_.size() && counts_[i] <= 0.0) {
          end = limits[i];
          count = counts_[i];
          ++i;
        }
      }
      h.bucket_limit.push_back(end);
      h.bucket.push_back(count);
    }
    return h;
  }

 private:
  std::vector<double> counts_;
  double min_ = DBL_MAX;
  double max_ = -DBL_MAX;
  double num_ = 0, sum_ = 0, sum_squares_ = 0;
};

inline std::string serialize_histogram(const Histogram& h) {
  std::string out;
  append_double_field(out, kHistoMin, h.min);
  append_double_field(out, kHistoMax, h.max);
  append_double_field(out, kHistoNum, h.num);
  append_double_field(out, kHistoSum, h.sum);
  append_double_field(out, kHistoSumSquares, h.sum_squares);
  append_packed_doubles(out, kHistoBucketLimit, h.bucket_limit);
  append_packed_doubles(out, kHistoBucket, h.bucket);
  return out;
}

// One Summary.Value with a simple_value (a oneof member: written even when zero), as
// the field of a Summary: appending several gives a Summary of several values.
inline void append_simple_value(std::string& summary, std::string_view tag, float value) {
  std::string v;
  if (!tag.empty()) append_bytes_field(v, kValueTag, tag);
  append_tag(v, kValueSimpleValue, WireType::fixed32);
  append_fixed32(v, std::bit_cast<std::uint32_t>(value));
  append_bytes_field(summary, kSummaryValue, v);
}

inline void append_histogram_value(std::string& summary, std::string_view tag, const Histogram& h) {
  std::string v;
  if (!tag.empty()) append_bytes_field(v, kValueTag, tag);
  append_bytes_field(v, kValueHisto, serialize_histogram(h));
  append_bytes_field(summary, kSummaryValue, v);
}

// A Summary.Image: the PNG's bytes and its height, width and channels (colorspace).
struct Image {
  std::int64_t height = 0, width = 0, colorspace = 0;
  std::string encoded_image_string;
};

inline void append_image_value(std::string& summary, std::string_view tag, const Image& image) {
  std::string fields;
  append_int_field(fields, kImageHeight, image.height);
  append_int_field(fields, kImageWidth, image.width);
  append_int_field(fields, kImageColorspace, image.colorspace);
  if (!image.encoded_image_string.empty())
    append_bytes_field(fields, kImageEncoded, image.encoded_image_string);
  std::string v;
  if (!tag.empty()) append_bytes_field(v, kValueTag, tag);
  append_bytes_field(v, kValueImage, fields);
  append_bytes_field(summary, kSummaryValue, v);
}

// A Summary.Audio: the WAV's bytes, its sample rate, channels and frames.
struct Audio {
  float sample_rate = 0;
  std::int64_t num_channels = 0, length_frames = 0;
  std::string encoded_audio_string;
  std::string content_type;
};

inline void append_audio_value(std::string& summary, std::string_view tag, const Audio& audio) {
  std::string fields;
  if (std::bit_cast<std::uint32_t>(audio.sample_rate) != 0) {
    append_tag(fields, kAudioSampleRate, WireType::fixed32);
    append_fixed32(fields, std::bit_cast<std::uint32_t>(audio.sample_rate));
  }
  append_int_field(fields, kAudioNumChannels, audio.num_channels);
  append_int_field(fields, kAudioLengthFrames, audio.length_frames);
  if (!audio.encoded_audio_string.empty())
    append_bytes_field(fields, kAudioEncoded, audio.encoded_audio_string);
  if (!audio.content_type.empty())
    append_bytes_field(fields, kAudioContentType, audio.content_type);
  std::string v;
  if (!tag.empty()) append_bytes_field(v, kValueTag, tag);
  append_bytes_field(v, kValueAudio, fields);
  append_bytes_field(summary, kSummaryValue, v);
}

// One float sample as a 16-bit one: scaled by 2^15, rounded half away from zero and
// clamped; NaN becomes 0 (what TensorFlow's conversion gives on x86).
inline std::int16_t float_to_int16_sample(float sample) {
  if (std::isnan(sample)) return 0;
  const float scaled = std::round(sample * 32768.0f);
  return static_cast<std::int16_t>(std::clamp(scaled, -32768.0f, 32767.0f));
}

// A WAV file of 16-bit PCM samples (interleaved channels, `num_frames` frames): the
// 44-byte RIFF header TensorFlow writes, then the samples, little-endian.
inline std::string encode_wav(const float* samples, std::uint32_t sample_rate,
                              std::uint16_t num_channels, std::size_t num_frames) {
  const std::size_t num_samples = num_frames * num_channels;
  const auto data_size = static_cast<std::uint32_t>(num_samples * 2);
  std::string out;
  out.reserve(44 + data_size);
  auto put16 = [&](std::uint32_t v) {
    out += static_cast<char>(v & 0xff);
    out += static_cast<char>((v >> 8) & 0xff);
  };
  auto put32 = [&](std::uint32_t v) {
    put16(v & 0xffff);
    put16(v >> 16);
  };
  out += "RIFF";
  put32(36 + data_size);
  out += "WAVEfmt ";
  put32(16);  // the format chunk's size
  put16(1);   // PCM
  put16(num_channels);
  put32(sample_rate);
  put32(sample_rate * 2u * num_channels);  // bytes per second
  put16(2u * num_channels);                // bytes per frame
  put16(16);                               // bits per sample
  out += "data";
  put32(data_size);
  for (std::size_t i = 0; i < num_samples; ++i)
    put16(static_cast<std::uint16_t>(float_to_int16_sample(samples[i])));
  return out;
}

// TensorFlow's DataType number of a dtype (DT_FLOAT is 1, DT_STRING 7).
inline constexpr std::uint64_t tf_datatype_number(DType d) {
  return static_cast<std::uint64_t>(dtype_tf_number(d));
}

// A TensorProto as TensorFlow's TensorSummaryV2 writes it: dtype, shape, and the elements
// as tensor_content bytes (numbers, host order: little-endian), or one string_val per
// element for strings. `raw` is the numbers' bytes; `strings` the string elements.
inline std::string serialize_tensor_proto(DType dtype, const Dims& dims, std::string_view raw,
                                          const std::vector<std::string_view>& strings) {
  std::string out;
  append_tag(out, 1, WireType::varint);
  append_varint(out, tf_datatype_number(dtype));
  std::string shape;
  for (std::int64_t size : dims) {
    std::string dim;
    if (size != 0) {
      append_tag(dim, 1, WireType::varint);
      append_varint(dim, static_cast<std::uint64_t>(size));
    }
    append_bytes_field(shape, 2, dim);
  }
  append_bytes_field(out, 2, shape);
  if (dtype == DType::string) {
    for (std::string_view element : strings) append_bytes_field(out, 8, element);
  } else if (!raw.empty()) {
    append_bytes_field(out, 4, raw);
  }
  return out;
}

// One Summary.Value holding a tensor and its (already serialized) SummaryMetadata, which
// is always written, empty or not.
inline void append_tensor_value(std::string& summary, std::string_view tag,
                                std::string_view tensor_proto, std::string_view metadata) {
  std::string v;
  if (!tag.empty()) append_bytes_field(v, kValueTag, tag);
  append_bytes_field(v, kValueTensor, tensor_proto);
  append_bytes_field(v, kValueMetadata, metadata);
  append_bytes_field(summary, kSummaryValue, v);
}

// A Summary.Value read back: its tag and, where present, its simple value, histogram,
// image or audio. `bytes` is the Value's whole encoding, kept so that merging copies it
// unchanged.
struct DecodedValue {
  std::string tag;
  std::optional<float> simple_value;
  std::optional<Histogram> histo;
  std::optional<Image> image;
  std::optional<Audio> audio;
  std::string_view bytes;
};

inline Histogram parse_histogram(std::string_view bytes, const std::string& where) {
  Histogram h;
  WireReader r(bytes, where + ": HistogramProto");
  while (r.next()) {
    switch (r.field()) {
      case kHistoMin:
        h.min = r.float64();
        break;
      case kHistoMax:
        h.max = r.float64();
        break;
      case kHistoNum:
        h.num = r.float64();
        break;
      case kHistoSum:
        h.sum = r.float64();
        break;
      case kHistoSumSquares:
        h.sum_squares = r.float64();
        break;
      case kHistoBucketLimit:
      case kHistoBucket: {
        auto& list = r.field() == kHistoBucket ? h.bucket : h.bucket_limit;
        r.repeated(WireType::fixed64,
                   [&](std::uint64_t bits) { list.push_back(std::bit_cast<double>(bits)); });
        break;
      }
      default:
        r.skip();
    }
  }
  return h;
}

inline Image parse_image(std::string_view bytes, const std::string& where) {
  Image image;
  WireReader r(bytes, where + ": Summary.Image");
  while (r.next()) {
    switch (r.field()) {
      case kImageHeight:
        image.height = r.int64();
        break;
      case kImageWidth:
        image.width = r.int64();
        break;
      case kImageColorspace:
        image.colorspace = r.int64();
        break;
      case kImageEncoded:
        image.encoded_image_string = std::string(r.bytes());
        break;
      default:
        r.skip();
    }
  }
  return image;
}

inline Audio parse_audio(std::string_view bytes, const std::string& where) {
  Audio audio;
  WireReader r(bytes, where + ": Summary.Audio");
  while (r.next()) {
    switch (r.field()) {
      case kAudioSampleRate:
        audio.sample_rate = r.float32();
        break;
      case kAudioNumChannels:
        audio.num_channels = r.int64();
        break;
      case kAudioLengthFrames:
        audio.length_frames = r.int64();
        break;
      case kAudioEncoded:
        audio.encoded_audio_string = std::string(r.bytes());
        break;
      case kAudioContentType:
        audio.content_type = std::string(r.bytes());
        break;
      default:
        r.skip();
    }
  }
  return audio;
}

// The values of a serialized Summary; a DataLossError (starting with `where`) when the
// bytes are not one.
inline std::vector<DecodedValue> parse_summary(std::string_view bytes, const std::string& where) {
  std::vector<DecodedValue> values;
  WireReader r(bytes, where + ": Summary");
  while (r.next()) {
    if (r.field() != kSummaryValue) {
      r.skip();
      continue;
    }
    DecodedValue value;
    value.bytes = r.bytes();
    WireReader v(value.bytes, where + ": Summary.Value");
    while (v.next()) {
      if (v.field() == kValueTag) {
        value.tag = std::string(v.bytes());
      } else if (v.field() == kValueSimpleValue) {
        value.simple_value = v.float32();
      } else if (v.field() == kValueHisto) {
        value.histo = parse_histogram(v.bytes(), where);
      } else if (v.field() == kValueImage) {
        value.image = parse_image(v.bytes(), where);
      } else if (v.field() == kValueAudio) {
        value.audio = parse_audio(v.bytes(), where);
      } else {
        v.skip();
      }
    }
    values.push_back(std::move(value));
  }
  return values;
}

}  // namespace symflow::io::summary_proto
