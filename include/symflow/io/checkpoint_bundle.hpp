#pragma once
// The checkpoint bundle: the files a Saver writes for one checkpoint prefix.
//
//   <prefix>.index                 JSON: every tensor's dtype, shape, place and CRC32C
//   <prefix>.data-00000-of-00001   the tensors' bytes, back to back
//
// TensorFlow stores the index as a LevelDB-style table of protobufs; symflow keeps
// its file names and its single-shard layout, but writes the index as JSON so that
// any program can read a checkpoint (docs/formats.md, "Checkpoints", is the exact
// format). The data file is written before the index, so a bundle whose index
// exists is complete. Every defect of either file is a DataLossError that names the
// file, the tensor and what was expected; nothing is trusted before it is checked.

#include <bit>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "symflow/core/dtype.hpp"
#include "symflow/core/errors.hpp"
#include "symflow/core/shape.hpp"
#include "symflow/core/value.hpp"
#include "symflow/io/atomic_file.hpp"
#include "symflow/io/checkpoint_paths.hpp"
#include "symflow/io/crc32c.hpp"

namespace symflow {

namespace io {

// One tensor of a bundle, as its index describes it.
struct BundleEntry {
  DType dtype = DType::invalid;
  Dims shape;
  int shard = 0;
  std::uint64_t offset = 0;  // first byte in the data file
  std::uint64_t size = 0;    // bytes: product(shape) * dtype_size(dtype)
  std::uint32_t crc32c = 0;  // CRC32C of those bytes, unmasked
};

inline constexpr std::string_view kCheckpointFormat = "symflow.checkpoint";
inline constexpr int kCheckpointVersion = 1;

}  // namespace io

namespace detail::checkpoint {

using json = nlohmann::json;

// Values store bool as one byte holding 0 or 1, which is the file's encoding too.
static_assert(sizeof(bool) == 1, "checkpoints store bool as one byte");

// The file is little-endian; on a big-endian host, elements are swapped on the way
// in and out (a no-op elsewhere).
inline void swap_to_little_endian(void* data, std::size_t nbytes, std::size_t element_size) {
  if constexpr (std::endian::native == std::endian::big) {
    auto* p = static_cast<unsigned char*>(data);
    for (std::size_t i = 0; i + element_size <= nbytes; i += element_size)
      for (std::size_t a = i, b = i + element_size - 1; a < b; ++a, --b) std::swap(p[a], p[b]);
  } else {
    (void)data, (void)nbytes, (void)element_size;
  }
}

inline std::optional<DType> dtype_from_name(std::string_view name) {
  for (DType d :
       {DType::float32, DType::float64, DType::int32, DType::int64, DType::uint8, DType::bool_})
    if (dtype_name(d) == name) return d;
  return std::nullopt;
}

// A short description of a JSON value for messages: numbers and short strings
// verbatim, anything else by its type.
inline std::string describe(const json& j) {
  if (j.is_number() || j.is_boolean() || j.is_null()) return j.dump();
  if (j.is_string() && j.get_ref<const std::string&>().size() <= 40) return j.dump();
  return std::string("a JSON ") + j.type_name();
}

// Checks the index as it is parsed: every message starts with the file's name.
class IndexParser {
 public:
  explicit IndexParser(std::string index_file) : file_(std::move(index_file)) {}

  [[noreturn]] void fail(const std::string& what) const {
    throw DataLossError("Corrupt checkpoint index " + file_ + ": " + what);
  }

  const json& field(const json& object, const char* key, const std::string& where) const {
    auto it = object.find(key);
    if (it == object.end()) fail(where + "has no field \"" + key + "\"");
    return *it;
  }

  // A non-negative integer no larger than `max`.
  std::uint64_t unsigned_field(
      const json& object, const char* key, const std::string& where,
      std::uint64_t max = std::numeric_limits<std::uint64_t>::max()) const {
    const json& v = field(object, key, where);
    bool ok = v.is_number_unsigned() || (v.is_number_integer() && v.get<std::int64_t>() >= 0);
    std::uint64_t n = ok ? v.get<std::uint64_t>() : 0;
    if (!ok || n > max)
      fail(where + "field \"" + key + "\": expected an integer in [0, " + std::to_string(max) +
           "], got " + describe(v));
    return n;
  }

  io::BundleEntry entry(const std::string& name, const json& e, std::uint64_t num_shards,
                        const std::string& data_file, std::uint64_t data_size) const {
    const std::string where = "tensor '" + name + "' ";
    if (!e.is_object()) fail(where + "expected a JSON object, got " + describe(e));
    io::BundleEntry out;

    const json& dtype = field(e, "dtype", where);
    std::optional<DType> d;
    if (dtype.is_string()) d = dtype_from_name(dtype.get_ref<const std::string&>());
    if (!d)
      fail(where + "has unknown dtype " + describe(dtype) +
           ": expected one of float32, float64, int32, int64, uint8, bool");
    out.dtype = *d;

    const json& shape = field(e, "shape", where);
    if (!shape.is_array())
      fail(where + "field \"shape\": expected an array of dimensions, got " + describe(shape));
    // Every partial product of the non-zero dims must fit in int64, so that no
    // element count computed from the shape can overflow.
    constexpr auto kMaxDim = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
    std::uint64_t elements = 1, nonzero_product = 1;
    for (const json& dim : shape) {
      bool ok =
          dim.is_number_unsigned() || (dim.is_number_integer() && dim.get<std::int64_t>() >= 0);
      std::uint64_t n = ok ? dim.get<std::uint64_t>() : 0;
      if (!ok || n > kMaxDim)
        fail(where + "field \"shape\": expected non-negative integer dimensions, got " +
             describe(dim));
      if (n != 0) {
        if (nonzero_product > kMaxDim / n)
          fail(where + "field \"shape\": the number of elements overflows int64");
        nonzero_product *= n;
      }
      elements = n == 0 ? 0 : elements * n;
      out.shape.push_back(static_cast<std::int64_t>(n));
    }

    out.shard = static_cast<int>(unsigned_field(e, "shard", where, num_shards - 1));
    out.offset = unsigned_field(e, "offset", where);
    out.size = unsigned_field(e, "size", where);
    out.crc32c = static_cast<std::uint32_t>(unsigned_field(e, "crc32c", where, 0xFFFFFFFFu));

    const std::uint64_t element_size = dtype_size(out.dtype);
    if (elements > std::numeric_limits<std::uint64_t>::max() / element_size ||
        out.size != elements * element_size)
      fail(where + "has size " + std::to_string(out.size) + " but shape " +
           dims_to_string(out.shape) + " of " + std::string(dtype_name(out.dtype)) + " needs " +
           (elements > std::numeric_limits<std::uint64_t>::max() / element_size
                ? std::string("more than 2^64")
                : std::to_string(elements * element_size)) +
           " bytes");
    if (out.offset > data_size || out.size > data_size - out.offset)
      throw DataLossError("Truncated checkpoint data file " + data_file + ": tensor '" + name +
                          "' needs bytes [" + std::to_string(out.offset) + ", " +
                          std::to_string(out.offset) + "+" + std::to_string(out.size) +
                          ") but the file has only " + std::to_string(data_size) + " bytes");
    return out;
  }

 private:
  std::string file_;
};

}  // namespace detail::checkpoint

namespace io {

// Writes the bundle for `prefix`: the data file, then the index, each atomically.
// Tensors are stored sorted by name, back to back from offset 0. An index left by
// an earlier bundle at this prefix is removed first, so that it never describes
// the new data file. Empty or duplicate names, non-UTF-8 names and empty (None)
// values are an InvalidArgumentError, raised before anything is written.
inline void write_bundle(const std::string& prefix,
                         const std::vector<std::pair<std::string, Value>>& tensors) {
  namespace ckpt = detail::checkpoint;
  std::map<std::string_view, const Value*> sorted;
  for (const auto& [name, value] : tensors) {
    if (name.empty()) throw InvalidArgumentError("Cannot save a tensor with an empty name");
    if (value.is_none())
      throw InvalidArgumentError("Cannot save tensor '" + name + "': its value is empty (None)");
    try {
      (void)ckpt::json(name).dump();
    } catch (const ckpt::json::exception&) {
      throw InvalidArgumentError("Cannot save tensor '" + name +
                                 "': its name is not valid UTF-8, which the index needs");
    }
    if (!sorted.emplace(name, &value).second)
      throw InvalidArgumentError("Adding duplicate key: " + name);
  }

  ckpt::json entries = ckpt::json::object();
  std::vector<std::string_view> pieces;
  std::vector<std::string> swapped;  // big-endian hosts only: little-endian copies
  swapped.reserve(sorted.size());    // no reallocation: `pieces` points into it
  std::uint64_t offset = 0;
  for (const auto& [name, value] : sorted) {
    std::string_view bytes(static_cast<const char*>(value->raw_data()), value->nbytes());
    if constexpr (std::endian::native == std::endian::big) {
      swapped.emplace_back(bytes);
      ckpt::swap_to_little_endian(swapped.back().data(), bytes.size(), dtype_size(value->dtype()));
      bytes = swapped.back();
    }
    entries[std::string(name)] = {
        {"dtype", std::string(dtype_name(value->dtype()))},
        {"shape", value->dims()},
        {"shard", 0},
        {"offset", offset},
        {"size", static_cast<std::uint64_t>(bytes.size())},
        {"crc32c", crc32c(bytes.data(), bytes.size())},
    };
    pieces.push_back(bytes);
    offset += bytes.size();
  }
  ckpt::json index = {
      {"format", std::string(kCheckpointFormat)},
      {"version", kCheckpointVersion},
      {"num_shards", 1},
      {"tensors", std::move(entries)},
  };

  remove_file_if_exists(index_path(prefix));
  write_file_atomically(data_path(prefix), pieces);
  // No trailing newline: then every proper prefix of the index is invalid JSON, so
  // a truncated index is always detected.
  write_file_atomically(index_path(prefix), index.dump(2));
}

// Reads a bundle. The constructor reads and checks the whole index (and the data
// file's size); read() reads one tensor and checks its size and CRC32C. read() is
// const and opens the data file itself, so one reader may serve several threads.
class BundleReader {
 public:
  explicit BundleReader(std::string prefix)
      : prefix_(std::move(prefix)),
        index_file_(index_path(prefix_)),
        data_file_(data_path(prefix_)) {
    namespace ckpt = detail::checkpoint;
    std::string text;
    try {
      text = read_file(index_file_);
    } catch (const NotFoundError&) {
      throw NotFoundError(
          "Unsuccessful TensorSliceReader constructor: Failed to find any matching files for " +
          prefix_ + " (no index file " + index_file_ + ")");
    }
    ckpt::IndexParser parser(index_file_);
    ckpt::json j;
    // JSON parsers keep one of two equal keys silently; a duplicate tensor name is
    // corruption, so the keys of every object are checked as they are parsed.
    std::vector<std::set<std::string>> keys;
    std::string duplicate;
    auto check_keys = [&](int, ckpt::json::parse_event_t event, ckpt::json& parsed) {
      if (event == ckpt::json::parse_event_t::object_start) keys.emplace_back();
      if (event == ckpt::json::parse_event_t::object_end) keys.pop_back();
      if (event == ckpt::json::parse_event_t::key) {
        const auto& key = parsed.get_ref<const std::string&>();
        if (!keys.back().insert(key).second && duplicate.empty()) duplicate = key;
      }
      return true;
    };
    try {
      j = ckpt::json::parse(text, check_keys);
    } catch (const ckpt::json::exception& e) {
      parser.fail(std::string("expected JSON: ") + e.what());
    }
    if (!duplicate.empty()) parser.fail("the key \"" + duplicate + "\" appears twice in an object");
    if (!j.is_object()) parser.fail("expected a JSON object, got " + ckpt::describe(j));
    const ckpt::json& format = parser.field(j, "format", "the index ");
    if (!format.is_string() || format.get_ref<const std::string&>() != kCheckpointFormat)
      parser.fail("field \"format\": expected \"" + std::string(kCheckpointFormat) + "\", got " +
                  ckpt::describe(format));
    const ckpt::json& version = parser.field(j, "version", "the index ");
    if (!version.is_number_integer() || version != kCheckpointVersion)
      parser.fail("unsupported version " + ckpt::describe(version) + ": expected " +
                  std::to_string(kCheckpointVersion));
    const ckpt::json& shards = parser.field(j, "num_shards", "the index ");
    if (!shards.is_number_integer() || shards != 1)
      parser.fail("field \"num_shards\": expected 1, got " + ckpt::describe(shards));
    const ckpt::json& tensors = parser.field(j, "tensors", "the index ");
    if (!tensors.is_object())
      parser.fail("field \"tensors\": expected a JSON object, got " + ckpt::describe(tensors));

    const std::uint64_t data_size = file_size(data_file_);
    for (const auto& [name, e] : tensors.items()) {
      if (name.empty()) parser.fail("a tensor has an empty name");
      entries_.emplace(name, parser.entry(name, e, 1, data_file_, data_size));
    }
  }

  const std::string& prefix() const { return prefix_; }
  const std::map<std::string, BundleEntry, std::less<>>& entries() const { return entries_; }
  bool contains(std::string_view name) const { return entries_.find(name) != entries_.end(); }

  // The tensor `name`: NotFoundError "Key <name> not found in checkpoint" when the
  // bundle has none, DataLossError when its bytes are missing or fail the CRC.
  Value read(std::string_view name) const {
    auto it = entries_.find(name);
    if (it == entries_.end())
      throw NotFoundError("Key " + std::string(name) + " not found in checkpoint");
    const BundleEntry& entry = it->second;
    Value v(entry.dtype, entry.shape);
    const std::size_t n = v.nbytes();  // == entry.size, checked by the constructor
    if (n > 0) {
      std::size_t got = read_file_at(data_file_, entry.offset, v.raw_data(), n);
      if (got != n)
        throw DataLossError("Truncated checkpoint data file " + data_file_ + ": tensor '" +
                            it->first + "' needs " + std::to_string(n) + " bytes at offset " +
                            std::to_string(entry.offset) + ", the file ends after " +
                            std::to_string(got));
    }
    std::uint32_t crc = crc32c(v.raw_data(), n);
    if (crc != entry.crc32c)
      throw DataLossError("Checksum does not match for tensor '" + it->first + "' in " +
                          data_file_ + ": stored " + std::to_string(entry.crc32c) +
                          " vs. calculated on the restored bytes " + std::to_string(crc));
    if (entry.dtype == DType::bool_) {
      // Any byte but 0 or 1 is not a bool: reject it rather than hand out an invalid value.
      const auto* bytes = static_cast<const unsigned char*>(v.raw_data());
      for (std::size_t i = 0; i < n; ++i)
        if (bytes[i] > 1)
          throw DataLossError("Corrupt bool tensor '" + it->first + "' in " + data_file_ +
                              ": element " + std::to_string(i) + " is byte " +
                              std::to_string(bytes[i]) + ", expected 0 or 1");
    }
    detail::checkpoint::swap_to_little_endian(v.raw_data(), n, dtype_size(entry.dtype));
    return v;
  }

 private:
  std::string prefix_;
  std::string index_file_;
  std::string data_file_;
  std::map<std::string, BundleEntry, std::less<>> entries_;
};

}  // namespace io

}  // namespace symflow
