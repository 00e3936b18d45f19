#pragma once
// The parts of TensorFlow's V2 checkpoint ("tensor bundle") that are TensorFlow's own:
// the protobufs its `.index` table holds (tensorflow/core/protobuf/tensor_bundle.proto)
// and the keys of a partitioned tensor's slices. io/checkpoint_bundle.hpp's BundleReader
// uses them; io/sorted_table.hpp reads the table itself.
//
//   BundleHeaderProto { int32 num_shards = 1; Endianness endianness = 2; VersionDef version = 3; }
//   BundleEntryProto  { DataType dtype = 1; TensorShapeProto shape = 2; int32 shard_id = 3;
//                       int64 offset = 4; int64 size = 5; fixed32 crc32c = 6;
//                       repeated TensorSliceProto slices = 7; }
//
// Decoding checks only the wire format and the values' ranges; whether an entry fits
// its data file is the reader's check.

#include <charconv>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "symflow/core/errors.hpp"
#include "symflow/core/shape.hpp"
#include "symflow/io/crc32c.hpp"
#include "symflow/io/protobuf_wire.hpp"

namespace symflow::io::tf_bundle {

// The bundle format version this reader implements (TF's kTensorBundleVersion).
inline constexpr std::int64_t kBundleVersion = 1;

struct Header {
  std::int64_t num_shards = 0;
  bool big_endian = false;
  std::int64_t producer = 0;
  std::int64_t min_consumer = 0;
  std::vector<std::int64_t> bad_consumers;
};

// One dimension of a slice: [start, start + length), or the whole dimension.
struct Extent {
  std::int64_t start = 0;
  std::optional<std::int64_t> length;  // none: the full dimension
};
using Slice = std::vector<Extent>;

struct Entry {
  std::int64_t dtype = 0;  // TensorFlow's DataType number
  Dims shape;
  std::int64_t shard_id = 0;
  std::int64_t offset = 0;
  std::int64_t size = 0;
  std::uint32_t masked_crc32c = 0;
  std::vector<Slice> slices;
};

// The data file of `shard` of `num_shards`: prefix.data-00000-of-00001.
inline std::string shard_path(const std::string& prefix, std::int64_t shard,
                              std::int64_t num_shards) {
  char buf[64];
  std::snprintf(buf, sizeof buf, ".data-%05lld-of-%05lld", static_cast<long long>(shard),
                static_cast<long long>(num_shards));
  return prefix + buf;
}

// The bytes of one element of TF dtype `n`, or 0 when elements have no fixed size
// (DT_STRING, DT_RESOURCE, DT_VARIANT) or the type is unknown.
inline std::size_t tf_dtype_size(std::int64_t n) {
  switch (n) {
    case 4:   // DT_UINT8
    case 6:   // DT_INT8
    case 10:  // DT_BOOL
    case 11:  // DT_QINT8
    case 12:  // DT_QUINT8
      return 1;
    case 5:   // DT_INT16
    case 14:  // DT_BFLOAT16
    case 15:  // DT_QINT16
    case 16:  // DT_QUINT16
    case 17:  // DT_UINT16
    case 19:  // DT_HALF
      return 2;
    case 1:   // DT_FLOAT
    case 3:   // DT_INT32
    case 13:  // DT_QINT32
    case 22:  // DT_UINT32
      return 4;
    case 2:   // DT_DOUBLE
    case 8:   // DT_COMPLEX64
    case 9:   // DT_INT64
    case 23:  // DT_UINT64
      return 8;
    case 18:  // DT_COMPLEX128
      return 16;
    default:
      return 0;
  }
}

// The `n` elements of a DT_STRING tensor's bytes in a data file, as TensorFlow's
// BundleWriter stores them: each element's length as a varint64, a 4-byte little-endian
// masked CRC32C of the lengths, then the elements back to back. The CRCs are not of the
// bytes as stored: the lengths' covers each length as a little-endian uint32 (uint64 when
// it does not fit), and the entry's (`entry_crc`, unmasked; unchecked when absent) extends
// it with the stored length checksum and the elements. Anything else is a DataLossError
// that names `where`.
inline std::vector<std::string> decode_string_tensor(std::string_view raw, std::int64_t n,
                                                     std::optional<std::uint32_t> entry_crc,
                                                     const std::string& where) {
  auto corrupt = [&](const std::string& why) {
    throw DataLossError("Corrupt string tensor " + where + ": " + why);
  };
  // Each element needs at least one length byte: a larger n cannot be in `raw`.
  if (n < 0 || static_cast<std::uint64_t>(n) > raw.size())
    corrupt(std::to_string(n) + " elements cannot fit in " + std::to_string(raw.size()) + " bytes");
  std::vector<std::uint64_t> lengths(static_cast<std::size_t>(n));
  std::size_t at = 0;
  std::uint32_t crc = 0;
  for (std::uint64_t& length : lengths) {
    length = 0;
    for (int shift = 0;; shift += 7) {
      if (at == raw.size() || shift > 63) corrupt("an element's length is cut off");
      const auto byte = static_cast<unsigned char>(raw[at++]);
      length |= static_cast<std::uint64_t>(byte & 0x7F) << shift;
      if (!(byte & 0x80)) break;
    }
    unsigned char le[8];
    const std::size_t width = length <= 0xFFFFFFFFu ? 4 : 8;
    for (std::size_t b = 0; b < width; ++b) le[b] = static_cast<unsigned char>(length >> (8 * b));
    crc = crc32c(le, width, crc);
  }
  if (raw.size() - at < 4) corrupt("the checksum of the lengths is cut off");
  std::uint32_t stored = 0;
  for (std::size_t b = 4; b-- > 0;)
    stored = (stored << 8) | static_cast<unsigned char>(raw[at + b]);
  if (masked_crc32c(crc) != stored) corrupt("the checksum of the lengths does not match");
  crc = crc32c(raw.data() + at, 4, crc);
  at += 4;
  std::vector<std::string> out(lengths.size());
  for (std::size_t i = 0; i < lengths.size(); ++i) {
    if (lengths[i] > raw.size() - at)
      corrupt("element " + std::to_string(i) + " needs " + std::to_string(lengths[i]) +
              " bytes, only " + std::to_string(raw.size() - at) + " are left");
    out[i].assign(raw.substr(at, static_cast<std::size_t>(lengths[i])));
    crc = crc32c(out[i].data(), out[i].size(), crc);
    at += static_cast<std::size_t>(lengths[i]);
  }
  if (at != raw.size()) corrupt(std::to_string(raw.size() - at) + " bytes follow the last element");
  if (entry_crc && crc != *entry_crc)
    corrupt("its checksum does not match: stored " + std::to_string(*entry_crc) +
            " vs. calculated " + std::to_string(crc));
  return out;
}

// TensorFlow's bytes of a DT_STRING tensor (the inverse of decode_string_tensor), and
// the unmasked CRC32C its entry stores.
struct EncodedStrings {
  std::string bytes;
  std::uint32_t crc = 0;
};
inline EncodedStrings encode_string_tensor(const std::string* elements, std::size_t n) {
  EncodedStrings out;
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint64_t length = elements[i].size();
    wire::append_varint(out.bytes, length);
    unsigned char le[8];
    const std::size_t width = length <= 0xFFFFFFFFu ? 4 : 8;
    for (std::size_t b = 0; b < width; ++b) le[b] = static_cast<unsigned char>(length >> (8 * b));
    out.crc = crc32c(le, width, out.crc);
  }
  const std::size_t checksum_at = out.bytes.size();
  wire::append_fixed32(out.bytes, masked_crc32c(out.crc));
  out.crc = crc32c(out.bytes.data() + checksum_at, 4, out.crc);
  for (std::size_t i = 0; i < n; ++i) {
    out.bytes += elements[i];
    out.crc = crc32c(elements[i].data(), elements[i].size(), out.crc);
  }
  return out;
}

// A BundleHeaderProto as TensorFlow writes it: `num_shards`, little-endian, version
// { producer: 1 }.
inline std::string encode_header(std::int64_t num_shards) {
  wire::WireWriter version;
  version.varint(1, 1);
  wire::WireWriter w;
  w.int64(1, num_shards);
  w.message(3, version);
  return w.take();
}

// A TensorSliceProto: a full extent is an empty Extent, as TensorFlow writes it.
inline void encode_slice(wire::WireWriter& out, int field, const Slice& slice) {
  wire::WireWriter s;
  for (const Extent& e : slice) {
    wire::WireWriter extent;
    if (e.length) {
      if (e.start) extent.int64(1, e.start);
      extent.int64(2, *e.length);  // a oneof: written even when 0
    }
    s.message(1, extent);
  }
  out.message(field, s);
}

// A BundleEntryProto; `crc` unmasked. A partitioned tensor's entry has its slices and
// no bytes of its own (shard, offset, size and crc 0).
inline std::string encode_entry(int tf_dtype, const Dims& shape, std::int64_t shard,
                                std::uint64_t offset, std::uint64_t size, std::uint32_t crc,
                                const std::vector<Slice>& slices = {}) {
  wire::WireWriter w;
  w.varint(1, static_cast<std::uint64_t>(tf_dtype));
  wire::WireWriter s;
  for (std::int64_t d : shape) {
    wire::WireWriter dim;
    dim.int64(1, d);
    s.message(2, dim);
  }
  w.message(2, s);
  if (shard) w.int64(3, shard);
  if (offset) w.varint(4, offset);
  if (size) w.varint(5, size);
  if (slices.empty()) {
    w.fixed32(6, masked_crc32c(crc));
  } else {
    for (const Slice& slice : slices) encode_slice(w, 7, slice);
  }
  return w.take();
}

namespace fields {

inline std::int64_t non_negative(wire::WireReader& r, const char* what) {
  const std::int64_t v = r.int64();
  if (v < 0) r.fail(std::string(what) + " is " + std::to_string(v) + ", expected >= 0");
  return v;
}

inline Dims parse_shape(std::string_view bytes, const std::string& where, Dims dims) {
  wire::WireReader r(bytes, where + " shape");
  while (r.next()) {
    if (r.field() == 2) {
      wire::WireReader dim(r.bytes(), where + " shape dim");
      std::int64_t size = 0;
      while (dim.next()) {
        if (dim.field() == 1) {
          size = dim.int64();
          // A checkpoint holds actual tensors: no unknown (-1) sizes.
          if (size < 0) dim.fail("dimension " + std::to_string(size) + " is not >= 0");
        } else {
          dim.skip();
        }
      }
      dims.push_back(size);
    } else if (r.field() == 3) {
      if (r.boolean()) r.fail("the shape has unknown rank, which a stored tensor cannot have");
    } else {
      r.skip();
    }
  }
  return dims;
}

inline Slice parse_slice(std::string_view bytes, const std::string& where) {
  Slice slice;
  wire::WireReader r(bytes, where + " slice");
  while (r.next()) {
    if (r.field() != 1) {
      r.skip();
      continue;
    }
    wire::WireReader e(r.bytes(), where + " slice extent");
    Extent extent;
    while (e.next()) {
      if (e.field() == 1)
        extent.start = non_negative(e, "a slice's start");
      else if (e.field() == 2)
        extent.length = non_negative(e, "a slice's length");
      else
        e.skip();
    }
    slice.push_back(extent);
  }
  return slice;
}

}  // namespace fields

// The header entry's value (the table's entry with the empty key).
inline Header parse_header(std::string_view bytes, const std::string& where) {
  Header h;
  wire::WireReader r(bytes, where + " header (BundleHeaderProto)");
  while (r.next()) {
    switch (r.field()) {
      case 1:
        h.num_shards = r.int32();
        break;
      case 2: {
        const std::int64_t e = r.int64();
        if (e != 0 && e != 1)
          r.fail("endianness " + std::to_string(e) + " is neither LITTLE (0) nor BIG (1)");
        h.big_endian = e == 1;
        break;
      }
      case 3: {
        wire::WireReader v(r.bytes(), where + " header version (VersionDef)");
        while (v.next()) {
          if (v.field() == 1)
            h.producer = v.int32();
          else if (v.field() == 2)
            h.min_consumer = v.int32();
          else if (v.field() == 3)
            v.repeated(wire::WireType::varint, [&](std::uint64_t x) {
              h.bad_consumers.push_back(static_cast<std::int32_t>(x));
            });
          else
            v.skip();
        }
        break;
      }
      default:
        r.skip();
    }
  }
  return h;
}

// A tensor entry's value; `where` names the index file and the tensor.
inline Entry parse_entry(std::string_view bytes, const std::string& where) {
  Entry e;
  wire::WireReader r(bytes, where + " (BundleEntryProto)");
  while (r.next()) {
    switch (r.field()) {
      case 1:
        e.dtype = r.int32();
        break;
      case 2:  // a repeated message field merges: its dims append
        e.shape = fields::parse_shape(r.bytes(), where, std::move(e.shape));
        break;
      case 3:
        e.shard_id = r.int32();
        if (e.shard_id < 0) r.fail("shard_id " + std::to_string(e.shard_id) + " is negative");
        break;
      case 4:
        e.offset = fields::non_negative(r, "offset");
        break;
      case 5:
        e.size = fields::non_negative(r, "size");
        break;
      case 6:
        e.masked_crc32c = r.fixed32();
        break;
      case 7:
        e.slices.push_back(fields::parse_slice(r.bytes(), where));
        break;
      default:
        r.skip();
    }
  }
  return e;
}

// A "shape and slice" spec, as SaveV2 and RestoreV2 take one per tensor: the whole
// tensor's dims, then its slice, one extent per dim ("-" the whole dim, "start,length")
// joined by ':'. "4 3 0,2:-" is rows [0, 2) of a [4, 3] tensor.
struct ShapeAndSlice {
  Dims shape;   // the whole tensor's
  Slice slice;  // as written: full extents stay full, which slice keys tell apart
  Dims start;   // resolved against `shape`
  Dims length;
};

// Parses `spec`; a malformed one, or a slice outside the shape, is an
// InvalidArgumentError naming the spec.
inline ShapeAndSlice parse_shape_and_slice(std::string_view spec) {
  const auto fail = [&](const std::string& why) -> void {
    throw InvalidArgumentError("Bad shape_and_slice specification '" + std::string(spec) + "': " +
                               why + " (expected the dims, then a slice such as \"4 3 0,2:-\")");
  };
  const auto number = [&](std::string_view text, const char* what) {
    std::int64_t v = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (text.empty() || ec != std::errc() || end != text.data() + text.size())
      fail(std::string(what) + " '" + std::string(text) + "' is not an integer");
    return v;
  };
  std::vector<std::string_view> words;
  for (std::size_t at = 0; at <= spec.size();) {
    std::size_t space = spec.find(' ', at);
    if (space == std::string_view::npos) space = spec.size();
    words.push_back(spec.substr(at, space - at));
    at = space + 1;
  }
  if (words.size() < 2) fail("it needs at least one dim and a slice");
  ShapeAndSlice out;
  for (std::size_t i = 0; i + 1 < words.size(); ++i) {
    out.shape.push_back(number(words[i], "the dim"));
    if (out.shape.back() < 0) fail("the dim " + std::to_string(out.shape.back()) + " is negative");
  }
  const std::string_view slice = words.back();
  for (std::size_t at = 0; at <= slice.size();) {
    std::size_t colon = slice.find(':', at);
    if (colon == std::string_view::npos) colon = slice.size();
    const std::string_view extent = slice.substr(at, colon - at);
    at = colon + 1;
    if (extent == "-") {
      out.slice.push_back({});
      continue;
    }
    const std::size_t comma = extent.find(',');
    if (comma == std::string_view::npos)
      fail("the extent '" + std::string(extent) + "' is neither '-' nor 'start,length'");
    const std::int64_t start = number(extent.substr(0, comma), "the start");
    const std::int64_t length = number(extent.substr(comma + 1), "the length");
    if (length == -1 && start == 0) {
      out.slice.push_back({});  // TensorFlow's own spelling of a full extent
      continue;
    }
    if (start < 0 || length <= 0)
      fail("the extent '" + std::string(extent) + "' needs a start >= 0 and a length > 0");
    out.slice.push_back({start, length});
  }
  if (out.slice.size() != out.shape.size())
    fail("its slice has " + std::to_string(out.slice.size()) + " extents for " +
         std::to_string(out.shape.size()) + " dims");
  for (std::size_t d = 0; d < out.shape.size(); ++d) {
    const Extent& e = out.slice[d];
    const std::int64_t length = e.length.value_or(out.shape[d]);
    if (e.start > out.shape[d] || length > out.shape[d] - e.start)
      fail("extent " + std::to_string(d) + " [" + std::to_string(e.start) + ", " +
           std::to_string(e.start) + "+" + std::to_string(length) + ") is outside the dim of " +
           std::to_string(out.shape[d]));
    out.start.push_back(e.start);
    out.length.push_back(length);
  }
  return out;
}

// The spec as SaveV2 takes it, for messages: "4 3 0,2:-".
inline std::string slice_spec_string(const ShapeAndSlice& spec) {
  std::string out;
  for (std::int64_t d : spec.shape) out += std::to_string(d) + " ";
  for (std::size_t d = 0; d < spec.slice.size(); ++d) {
    if (d) out += ':';
    const Extent& e = spec.slice[d];
    out += e.length ? std::to_string(e.start) + "," + std::to_string(*e.length) : "-";
  }
  return out;
}

// OrderedCode (tensorflow/core/lib/strings/ordered_code.cc), as far as slice keys need
// it: byte strings and numbers encoded so that byte-wise order is the values' order.
namespace ordered_code {

inline void write_num_increasing(std::string& out, std::uint64_t v) {
  unsigned char buf[9];
  int len = 0;
  for (; v > 0; v >>= 8) buf[8 - len++] = static_cast<unsigned char>(v & 0xFF);
  out += static_cast<char>(len);
  out.append(reinterpret_cast<const char*>(buf + 9 - len), static_cast<std::size_t>(len));
}

// 0x00 and 0xFF are escaped (00 FF, FF 00); 00 01 ends the string.
inline void write_string(std::string& out, std::string_view s) {
  for (char c : s) {
    out += c;
    if (c == '\0') out += '\xff';
    if (c == '\xff') out += '\0';
  }
  out += '\0';
  out += '\x01';
}

// The sign bit, then as many copies of it as bytes follow the first, then a
// delimiter bit, then the value in big-endian two's complement.
inline void write_signed_num_increasing(std::string& out, std::int64_t v) {
  const std::uint64_t magnitude =
      v < 0 ? ~static_cast<std::uint64_t>(v) : static_cast<std::uint64_t>(v);
  int bits = 0;  // bits needed for the magnitude
  for (std::uint64_t m = magnitude; m > 0; m >>= 1) ++bits;
  // n bytes hold numbers in [-2^(7n-1), 2^(7n-1)), magnitudes of up to 7n - 1 bits.
  int len = 1;
  while (len < 10 && bits > 7 * len - 1) ++len;
  unsigned char buf[10];
  const auto u = static_cast<std::uint64_t>(v);
  for (int i = 0; i < 10; ++i) {
    const int shift = 8 * (9 - i);
    buf[i] = shift >= 64 ? (v < 0 ? 0xFF : 0x00) : static_cast<unsigned char>(u >> shift);
  }
  // Header: `len` one-bits (sign plus len - 1 size bits) then a zero, inverted when
  // negative; it spans the first two bytes for len >= 9.
  unsigned char* begin = buf + 10 - len;
  static constexpr unsigned char kHeader[11][2] = {{0, 0},    {0x80, 0},    {0xc0, 0},   {0xe0, 0},
                                                   {0xf0, 0}, {0xf8, 0},    {0xfc, 0},   {0xfe, 0},
                                                   {0xff, 0}, {0xff, 0x80}, {0xff, 0xc0}};
  begin[0] ^= kHeader[len][0];
  if (len >= 2) begin[1] ^= kHeader[len][1];
  out.append(reinterpret_cast<const char*>(begin), static_cast<std::size_t>(len));
}

}  // namespace ordered_code

// The table key of the slice `slice` of tensor `name` (TF's EncodeTensorNameSlice):
// such keys start with a zero byte, so they sort before every tensor name.
inline std::string slice_key(std::string_view name, const Slice& slice) {
  std::string key;
  ordered_code::write_num_increasing(key, 0);
  ordered_code::write_string(key, name);
  ordered_code::write_num_increasing(key, slice.size());
  for (const Extent& e : slice) {
    ordered_code::write_signed_num_increasing(key, e.start);
    ordered_code::write_signed_num_increasing(key, e.length ? *e.length : -1);
  }
  return key;
}

}  // namespace symflow::io::tf_bundle
