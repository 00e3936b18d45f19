#pragma once
// The CPU kernels of the summary ops (ScalarSummary, HistogramSummary, TensorSummaryV2,
// ImageSummary, AudioSummaryV2, MergeSummary), and kSummaryCpuKernels, the table that
// maps their OpDefs (ops/defs/summary.hpp) to them. Each writes a serialized Summary
// proto into a string scalar with io/summary_protos.hpp (the one include of io/ that
// these kernels make, reaching no graph; tests/architecture). ImageSummary encodes PNGs
// with libpng when symflow is built with it (SYMFLOW_HAVE_PNG; Debian: libpng-dev), with
// TensorFlow's settings, so that the bytes are TensorFlow's.

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <unordered_set>
#include <vector>

#if defined(SYMFLOW_HAVE_PNG) && SYMFLOW_HAVE_PNG
#include <png.h>
#include <zlib.h>
#endif

#include "symflow/backend/cpu/kernel_table.hpp"
#include "symflow/backend/kernel_context.hpp"
#include "symflow/io/summary_protos.hpp"
#include "symflow/ops/defs/summary.hpp"

namespace symflow::detail {

// ScalarSummary: tags and values of one shape (or both scalars), each value as a float.
inline void scalar_summary_kernel(KernelContext& ctx) {
  const Value& tags = ctx.input(0);
  const Value& values = ctx.input(1);
  if (tags.dims() != values.dims()) {
    std::string message = "tags and values are not the same shape: " + dims_to_string(tags.dims()) +
                          " != " + dims_to_string(values.dims());
    if (tags.rank() == 0) message += " (tag '" + tags.scalar<std::string>() + "')";
    ctx.fail(message);
  }
  const auto tag_list = tags.flat<std::string>();
  std::string summary;
  visit_dtype(values.dtype(), [&](auto type_tag) {
    using T = typename decltype(type_tag)::type;
    const auto flat = values.flat<T>();
    for (std::size_t i = 0; i < tag_list.size(); ++i)
      io::summary_proto::append_simple_value(summary, tag_list[i], static_cast<float>(flat[i]));
  });
  ctx.set_output(0, Value(std::move(summary)));
}

// HistogramSummary: every element in TensorFlow's default buckets; NaN and infinities
// fail, named after the node (not the tag), in TensorFlow's two wordings.
inline void histogram_summary_kernel(KernelContext& ctx) {
  const Value& tag = ctx.input(0);
  const Value& values = ctx.input(1);
  if (tag.rank() != 0) ctx.fail("tags must be scalar");
  io::summary_proto::HistogramBuilder histogram;
  visit_dtype(values.dtype(), [&](auto type_tag) {
    using T = typename decltype(type_tag)::type;
    for (const T& x : values.flat<T>()) {
      const auto v = static_cast<double>(x);
      if (std::isnan(v)) ctx.fail("Nan in summary histogram for: " + ctx.node_name());
      if (std::isinf(v)) ctx.fail("Infinity in Histogram for: " + ctx.node_name());
      histogram.add(v);
    }
  });
  std::string summary;
  io::summary_proto::append_histogram_value(summary, tag.scalar<std::string>(),
                                            histogram.to_proto());
  ctx.set_output(0, Value(std::move(summary)));
}

// TensorSummaryV2: the tensor as a TensorProto, and the metadata's bytes as given.
inline void tensor_summary_v2_kernel(KernelContext& ctx) {
  const Value& tag = ctx.input(0);
  const Value& tensor = ctx.input(1);
  const Value& metadata = ctx.input(2);
  if (tag.rank() != 0) ctx.fail("tag must be scalar");
  if (metadata.rank() != 0) ctx.fail("serialized_summary_metadata must be scalar");
  std::string raw;
  std::vector<std::string_view> strings;
  if (tensor.dtype() == DType::string) {
    for (const std::string& s : tensor.flat<std::string>()) strings.push_back(s);
  } else {
    raw.assign(static_cast<const char*>(tensor.raw_data()), tensor.nbytes());
  }
  std::string summary;
  io::summary_proto::append_tensor_value(
      summary, tag.scalar<std::string>(),
      io::summary_proto::serialize_tensor_proto(tensor.dtype(), tensor.dims(), raw, strings),
      metadata.scalar<std::string>());
  ctx.set_output(0, Value(std::move(summary)));
}

#if defined(SYMFLOW_HAVE_PNG) && SYMFLOW_HAVE_PNG
// Appends libpng's output to the std::string behind the write pointer.
inline void png_append_to_string(png_structp png, png_bytep data, png_size_t length) {
  static_cast<std::string*>(png_get_io_ptr(png))
      ->append(reinterpret_cast<const char*>(data), length);
}
inline void png_flush_nothing(png_structp) {}

// An 8-bit PNG of `height` rows of `width` pixels of `channels` (1: gray, 3: RGB, 4:
// RGBA) bytes each, written as TensorFlow's png::WriteImageToBuffer writes it: zlib's
// default compression level, the largest zlib memory level, libpng's default filters.
// False when libpng fails. (Only trivially destructible objects live in this frame, which
// libpng's longjmp may leave.)
inline bool encode_png(const std::uint8_t* pixels, int width, int height, int channels,
                       std::string* out) {
  png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, nullptr, nullptr, nullptr);
  if (png == nullptr) return false;
  png_infop info = png_create_info_struct(png);
  if (info == nullptr) {
    png_destroy_write_struct(&png, nullptr);
    return false;
  }
  if (setjmp(png_jmpbuf(png))) {
    png_destroy_write_struct(&png, &info);
    return false;
  }
  const int color_type = channels == 1   ? PNG_COLOR_TYPE_GRAY
                         : channels == 3 ? PNG_COLOR_TYPE_RGB
                                         : PNG_COLOR_TYPE_RGB_ALPHA;
  png_set_write_fn(png, out, png_append_to_string, png_flush_nothing);
  png_set_compression_level(png, Z_DEFAULT_COMPRESSION);
  png_set_compression_mem_level(png, MAX_MEM_LEVEL);
  png_set_IHDR(png, info, static_cast<png_uint_32>(width), static_cast<png_uint_32>(height), 8,
               color_type, PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT,
               PNG_FILTER_TYPE_DEFAULT);
  png_write_info(png, info);
  const std::size_t row_bytes =
      static_cast<std::size_t>(width) * static_cast<std::size_t>(channels);
  for (int row = 0; row < height; ++row)
    png_write_row(png, const_cast<png_bytep>(pixels + static_cast<std::size_t>(row) * row_bytes));
  png_write_end(png, nullptr);
  png_destroy_write_struct(&png, &info);
  return true;
}
#endif

// One float image ([hw, depth] at `values`) as uint8, as TensorFlow scales it: min and
// max over the pixels whose channels are all finite; with a negative minimum the values
// are scaled by 127 / max|v| around 128, else by 255 / max (no scaling below 1e-6); the
// product is truncated. A pixel with a NaN or infinite channel takes bad_color.
template <class T>
void normalize_float_image(const T* values, std::size_t hw, std::size_t depth,
                           const std::uint8_t* bad_color, std::uint8_t* image) {
  auto finite_pixel = [&](std::size_t i) {
    for (std::size_t j = 0; j < depth; ++j)
      if (!std::isfinite(values[i * depth + j])) return false;
    return true;
  };
  float image_min = std::numeric_limits<float>::infinity();
  float image_max = -image_min;
  for (std::size_t i = 0; i < hw; ++i) {
    if (!finite_pixel(i)) continue;
    for (std::size_t j = 0; j < depth; ++j) {
      const auto value = static_cast<float>(values[i * depth + j]);
      image_min = std::min(image_min, value);
      image_max = std::max(image_max, value);
    }
  }
  constexpr float kZeroThreshold = 1e-6f;
  T scale, offset;
  if (image_min < 0) {
    const float max_val = std::max(std::abs(image_min), std::abs(image_max));
    scale = static_cast<T>(max_val < kZeroThreshold ? 0.0f : 127.0f / max_val);
    offset = static_cast<T>(128.0f);
  } else {
    scale = static_cast<T>(image_max < kZeroThreshold ? 0.0f : 255.0f / image_max);
    offset = static_cast<T>(0.0f);
  }
  for (std::size_t i = 0; i < hw; ++i) {
    const bool finite = finite_pixel(i);
    for (std::size_t j = 0; j < depth; ++j)
      image[i * depth + j] =
          finite ? static_cast<std::uint8_t>(values[i * depth + j] * scale + offset) : bad_color[j];
  }
}

// ImageSummary: the first min(batch, max_images) images as PNGs, tagged "<tag>/image/<i>"
// ("<tag>/image" when max_images is 1).
inline void image_summary_kernel(KernelContext& ctx) {
  const Value& tag = ctx.input(0);
  const Value& tensor = ctx.input(1);
  if (tag.rank() != 0) ctx.fail("Tags must be a scalar");
  const Dims& dims = tensor.dims();
  if (dims.size() != 4 || (dims[3] != 1 && dims[3] != 3 && dims[3] != 4))
    ctx.fail("Tensor must be 4-D with last dim 1, 3, or 4, not " + dims_to_string(dims));
  if (dims[1] == 0 || dims[2] == 0) {
    std::string found;
    for (std::size_t i = 0; i < dims.size(); ++i)
      found += (i ? ", " : "") + std::to_string(dims[i]);
    ctx.fail("input tensor must have non-zero dims. Found: [" + found + "].");
  }
  if (dims[1] * dims[2] >= (std::int64_t{1} << 29))
    ctx.fail("Tensor too large for summary " + dims_to_string(dims));
  const auto max_images = ctx.attr<std::int64_t>("max_images");
  const Value& bad_color = ctx.attr<Value>("bad_color");
  if (bad_color.dtype() != DType::uint8)
    ctx.fail("bad_color must be uint8, got " + std::string(dtype_name(bad_color.dtype())));
  if (bad_color.rank() != 1)
    ctx.fail("bad_color must be a vector, got shape " + dims_to_string(bad_color.dims()));
  const auto height = static_cast<std::size_t>(dims[1]);
  const auto width = static_cast<std::size_t>(dims[2]);
  const auto depth = static_cast<std::size_t>(dims[3]);
  const std::size_t hw = height * width;
  if (tensor.dtype() != DType::uint8 && bad_color.dims()[0] < dims[3])
    ctx.fail("expected depth <= bad_color.size, got depth = " + std::to_string(depth) +
             ", bad_color.size = " + std::to_string(bad_color.dims()[0]));
  const std::int64_t count = std::min(max_images, dims[0]);
  std::string summary;
  std::vector<std::uint8_t> pixels(hw * depth);
  for (std::int64_t i = 0; i < count; ++i) {
    const std::size_t first = static_cast<std::size_t>(i) * hw * depth;
    visit_dtype(tensor.dtype(), [&](auto type_tag) {
      using T = typename decltype(type_tag)::type;
      if constexpr (std::is_same_v<T, std::uint8_t>) {
        const auto flat = tensor.flat<T>();
        std::copy(flat.begin() + static_cast<std::ptrdiff_t>(first),
                  flat.begin() + static_cast<std::ptrdiff_t>(first + hw * depth), pixels.begin());
      } else if constexpr (std::is_floating_point_v<T>) {
        normalize_float_image(tensor.flat<T>().data() + first, hw, depth,
                              bad_color.flat<std::uint8_t>().data(), pixels.data());
      }
    });
    io::summary_proto::Image image{static_cast<std::int64_t>(height),
                                   static_cast<std::int64_t>(width),
                                   static_cast<std::int64_t>(depth),
                                   {}};
#if defined(SYMFLOW_HAVE_PNG) && SYMFLOW_HAVE_PNG
    if (!encode_png(pixels.data(), static_cast<int>(width), static_cast<int>(height),
                    static_cast<int>(depth), &image.encoded_image_string))
      throw InternalError("PNG encoding failed", ctx.node_name());
#else
    throw UnimplementedError(
        "ImageSummary needs libpng, and symflow was built without it: install libpng "
        "(Debian: libpng-dev) and configure again",
        ctx.node_name());
#endif
    const std::string value_tag =
        tag.scalar<std::string>() + (max_images > 1 ? "/image/" + std::to_string(i) : "/image");
    io::summary_proto::append_image_value(summary, value_tag, image);
  }
  ctx.set_output(0, Value(std::move(summary)));
}

// AudioSummaryV2: the first min(batch, max_outputs) clips as 16-bit WAVs, tagged
// "<tag>/audio/<i>" ("<tag>/audio" when max_outputs is 1); the WAV's rate is the sample
// rate rounded to an integer (at least 1), the proto keeps the float.
inline void audio_summary_v2_kernel(KernelContext& ctx) {
  const Value& tag = ctx.input(0);
  const Value& tensor = ctx.input(1);
  const Value& sample_rate_value = ctx.input(2);
  if (tag.rank() != 0) ctx.fail("Tag must be a scalar");
  const Dims& dims = tensor.dims();
  if (dims.size() < 2 || dims.size() > 3)
    ctx.fail("Tensor must be 3-D or 2-D, got: " + dims_to_string(dims));
  if (sample_rate_value.size() != 1) ctx.fail("sample_rate must be a scalar");
  const float sample_rate = sample_rate_value.flat<float>()[0];
  if (!(sample_rate > 0.0f)) ctx.fail("sample_rate must be > 0");
  const auto max_outputs = ctx.attr<std::int64_t>("max_outputs");
  const std::int64_t length_frames = dims[1];
  const std::int64_t num_channels = dims.size() == 2 ? 1 : dims[2];
  if (num_channels == 0 || num_channels > 0xffff)
    ctx.fail("num_channels must be in (0, 2^16), got: " + std::to_string(num_channels));
  const long rounded_rate = std::lrint(sample_rate);
  if (rounded_rate > 0xffffffffL)
    ctx.fail("sample_rate must be in (0, 2^32), got: " + std::to_string(rounded_rate));
  const auto wav_rate = static_cast<std::uint32_t>(std::max(rounded_rate, 1L));
  const std::int64_t count = std::min(max_outputs, dims[0]);
  const auto clip_size = static_cast<std::size_t>(length_frames * num_channels);
  const float* samples = tensor.flat<float>().data();
  std::string summary;
  for (std::int64_t i = 0; i < count; ++i) {
    io::summary_proto::Audio audio{
        sample_rate, num_channels, length_frames,
        io::summary_proto::encode_wav(samples + static_cast<std::size_t>(i) * clip_size, wav_rate,
                                      static_cast<std::uint16_t>(num_channels),
                                      static_cast<std::size_t>(length_frames)),
        "audio/wav"};
    const std::string value_tag =
        tag.scalar<std::string>() + (max_outputs > 1 ? "/audio/" + std::to_string(i) : "/audio");
    io::summary_proto::append_audio_value(summary, value_tag, audio);
  }
  ctx.set_output(0, Value(std::move(summary)));
}

// MergeSummary: the values of every input string, in order, each copied as it was
// encoded; two values with one non-empty tag fail.
inline void merge_summary_kernel(KernelContext& ctx) {
  std::string merged;
  std::unordered_set<std::string> tags;
  for (std::size_t i = 0; i < ctx.num_inputs(); ++i) {
    for (const std::string& serialized : ctx.input(i).flat<std::string>()) {
      std::vector<io::summary_proto::DecodedValue> values;
      try {
        values = io::summary_proto::parse_summary(serialized, ctx.node_name());
      } catch (const DataLossError&) {
        ctx.fail("Could not parse one of the summary inputs");
      }
      for (const auto& value : values) {
        if (!value.tag.empty() && !tags.insert(value.tag).second)
          ctx.fail("Duplicate tag " + value.tag + " found in summary inputs ");
        io::summary_proto::append_bytes_field(merged, io::summary_proto::kSummaryValue,
                                              value.bytes);
      }
    }
  }
  ctx.set_output(0, Value(std::move(merged)));
}

inline constexpr auto kSummaryCpuKernels = std::to_array<CpuKernel>({
    {&kScalarSummaryOp, scalar_summary_kernel},
    {&kHistogramSummaryOp, histogram_summary_kernel},
    {&kTensorSummaryV2Op, tensor_summary_v2_kernel},
    {&kImageSummaryOp, image_summary_kernel},
    {&kAudioSummaryV2Op, audio_summary_v2_kernel},
    {&kMergeSummaryOp, merge_summary_kernel},
});

}  // namespace symflow::detail
