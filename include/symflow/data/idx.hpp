#pragma once
// Reading IDX files (the MNIST / Fashion-MNIST format), plain or gzip-compressed, into a
// Value. Link zlib (CMake: ZLIB::ZLIB) when you include this header; the rest of symflow
// does not need it.
//
// Layout: two zero bytes, a type byte (0x08 = uint8), the number of dimensions, then each
// dimension as a big-endian uint32, then the elements in row-major order.

#include <zlib.h>

#include <cstdint>
#include <string>
#include <vector>

#include "symflow/core/errors.hpp"
#include "symflow/core/value.hpp"

namespace symflow::data {

namespace detail {

// The whole file, decompressed when it is gzip (zlib reads plain files unchanged).
inline std::vector<unsigned char> read_maybe_gzip(const std::string& path) {
  gzFile file = gzopen(path.c_str(), "rb");
  if (file == nullptr) throw NotFoundError("Cannot open IDX file " + path);
  std::vector<unsigned char> bytes;
  unsigned char chunk[1 << 16];
  while (true) {
    int n = gzread(file, chunk, sizeof chunk);
    if (n < 0) {
      int code = 0;
      std::string why = gzerror(file, &code);
      gzclose(file);
      throw DataLossError("Cannot read IDX file " + path + ": " + why);
    }
    if (n == 0) break;
    bytes.insert(bytes.end(), chunk, chunk + n);
  }
  gzclose(file);
  return bytes;
}

}  // namespace detail

// Parses an IDX image of unsigned bytes (type 0x08) into a uint8 Value of its dims.
// `what` names the source in errors.
inline Value parse_idx(const std::vector<unsigned char>& bytes, const std::string& what) {
  if (bytes.size() < 4)
    throw DataLossError(what + ": too short for an IDX header (" + std::to_string(bytes.size()) +
                        " bytes)");
  if (bytes[0] != 0 || bytes[1] != 0)
    throw DataLossError(what + ": not an IDX file (the first two bytes must be zero)");
  if (bytes[2] != 0x08)
    throw UnimplementedError(what + ": IDX element type " + std::to_string(bytes[2]) +
                             " is not supported; expected 8 (unsigned byte)");
  const std::size_t rank = bytes[3];
  const std::size_t header = 4 + 4 * rank;
  if (rank == 0 || bytes.size() < header)
    throw DataLossError(what + ": truncated IDX header for " + std::to_string(rank) +
                        " dimensions");
  Dims dims;
  for (std::size_t i = 0; i < rank; ++i) {
    const unsigned char* p = &bytes[4 + 4 * i];
    std::uint32_t d = (std::uint32_t{p[0]} << 24) | (std::uint32_t{p[1]} << 16) |
                      (std::uint32_t{p[2]} << 8) | std::uint32_t{p[3]};
    dims.push_back(d);
  }
  // One byte per element: the count is the data's size, checked before it is compared.
  const auto count = checked_num_elements(dims);
  if (!count)
    throw DataLossError(what + ": IDX dims " + dims_to_string(dims) +
                        " have more elements than an int64 counts");
  if (bytes.size() - header != static_cast<std::uint64_t>(*count))
    throw DataLossError(what + ": IDX header promises " + std::to_string(*count) +
                        " bytes of data, the file has " + std::to_string(bytes.size() - header));
  Value v(DType::uint8, dims);
  std::copy(bytes.begin() + static_cast<std::ptrdiff_t>(header), bytes.end(),
            v.data<std::uint8_t>());
  return v;
}

// Reads an IDX file (".gz" or not) into a uint8 Value: [n, rows, cols] for images,
// [n] for labels.
inline Value read_idx(const std::string& path) {
  return parse_idx(detail::read_maybe_gzip(path), path);
}

// A labelled data set: images as float32 [n, rows*cols] scaled to [0, 1], and int32
// labels [n].
struct Dataset {
  Value images;
  Value labels;
  std::int64_t size() const { return labels.size(); }
};

// Loads an MNIST-style pair (e.g. "train-images-idx3-ubyte.gz" and the labels), keeping
// the first `limit` examples when limit > 0.
inline Dataset load_idx_dataset(const std::string& images_path, const std::string& labels_path,
                                std::int64_t limit = 0) {
  Value images = read_idx(images_path);
  Value labels = read_idx(labels_path);
  if (images.rank() != 3)
    throw InvalidArgumentError(images_path + ": expected images of rank 3 [n, rows, cols], got " +
                               dims_to_string(images.dims()));
  if (labels.rank() != 1 || labels.dims()[0] != images.dims()[0])
    throw InvalidArgumentError(labels_path + ": expected " + std::to_string(images.dims()[0]) +
                               " labels, got shape " + dims_to_string(labels.dims()));
  std::int64_t n = images.dims()[0];
  if (limit > 0 && limit < n) n = limit;
  const std::int64_t pixels = images.dims()[1] * images.dims()[2];
  Dataset d{Value(DType::float32, {n, pixels}), Value(DType::int32, {n})};
  const std::uint8_t* src = images.data<std::uint8_t>();
  float* dst = d.images.data<float>();
  for (std::int64_t i = 0; i < n * pixels; ++i) dst[i] = static_cast<float>(src[i]) / 255.0f;
  for (std::int64_t i = 0; i < n; ++i)
    d.labels.data<std::int32_t>()[i] = labels.data<std::uint8_t>()[i];
  return d;
}

}  // namespace symflow::data
