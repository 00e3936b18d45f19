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
//
// BundleReader also reads TensorFlow's own V2 checkpoints (io/sorted_table.hpp,
// io/tensor_bundle_tf.hpp), told apart by content: TensorFlow's index ends with the
// table magic, symflow's is a JSON object.

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
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
#include "symflow/io/json_checksum.hpp"
#include "symflow/io/sorted_table.hpp"
#include "symflow/io/sorted_table_writer.hpp"
#include "symflow/io/tensor_bundle_tf.hpp"

namespace symflow {

namespace io {

// Where a slice of a partitioned TensorFlow tensor lies in the whole tensor.
struct BundleSlice {
  Dims start;
  Dims length;               // resolved: a full extent is the whole dimension
  std::string key;           // the table key of the slice's own entry
  tf_bundle::Slice extents;  // as stored: the key and a merged index need them so
};

// One tensor of a bundle, as its index describes it.
struct BundleEntry {
  // DType::invalid for a TensorFlow dtype symflow has no DType for (DT_HALF,
  // DT_RESOURCE, ...): such a tensor is listed but read() refuses it; tf_dtype names it.
  DType dtype = DType::invalid;
  Dims shape;
  int shard = 0;
  std::uint64_t offset = 0;         // first byte in the data file
  std::uint64_t size = 0;           // bytes: product(shape) * dtype_size(dtype)
  std::uint32_t crc32c = 0;         // CRC32C of those bytes, unmasked (TensorFlow's are unmasked on
                                    // reading)
  int tf_dtype = 0;                 // TensorFlow's DataType number: DT_FLOAT is 1, DT_STRING 7
  std::vector<BundleSlice> slices;  // TensorFlow partitioned tensor: its parts (no bytes of
                                    // its own)
};

// TensorFlow's name of an entry's dtype: "DT_FLOAT", "DT_STRING", ...
inline std::string bundle_dtype_name(const BundleEntry& entry) {
  return tf_dtype_number_name(entry.tf_dtype);
}

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

// Reverses the bytes of every element: data written with the other byte order.
inline void swap_elements(void* data, std::size_t nbytes, std::size_t element_size) {
  auto* p = static_cast<unsigned char*>(data);
  for (std::size_t i = 0; i + element_size <= nbytes; i += element_size)
    std::reverse(p + i, p + i + element_size);
}

// The number and bool dtypes a bundle holds (strings are not bundle entries here).
inline std::optional<DType> dtype_from_name(std::string_view name) {
  for (DType d : kAllDTypes)
    if (d != DType::string && dtype_name(d) == name) return d;
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
           ": expected one of float32, float64, int32, int64, uint8, bool, int8, int16, "
           "uint16, uint32, uint64, float16, bfloat16, complex64");
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
    out.tf_dtype = dtype_tf_number(out.dtype);

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

namespace detail::checkpoint {

// The tensors to save, sorted by name; an empty or duplicate name or an empty (None)
// value is an InvalidArgumentError.
inline std::map<std::string_view, const Value*> sorted_for_saving(
    const std::vector<std::pair<std::string, Value>>& tensors) {
  std::map<std::string_view, const Value*> sorted;
  for (const auto& [name, value] : tensors) {
    if (name.empty()) throw InvalidArgumentError("Cannot save a tensor with an empty name");
    if (value.is_none())
      throw InvalidArgumentError("Cannot save tensor '" + name + "': its value is empty (None)");
    if (!sorted.emplace(name, &value).second)
      throw InvalidArgumentError("Adding duplicate key: " + name);
  }
  return sorted;
}

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
  const std::map<std::string_view, const Value*> sorted = ckpt::sorted_for_saving(tensors);
  for (const auto& [name, value] : sorted) {
    if (value->dtype() == DType::string)
      throw UnimplementedError("Cannot save tensor '" + std::string(name) +
                               "': symflow's checkpoint format holds numbers and bools, not "
                               "strings (TensorFlow's holds them: write_tf_bundle)");
    try {
      (void)ckpt::json(name).dump();
    } catch (const ckpt::json::exception&) {
      throw InvalidArgumentError("Cannot save tensor '" + std::string(name) +
                                 "': its name is not valid UTF-8, which the index needs");
    }
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
  // The tensors' CRCs cover their bytes; this one covers the index itself (names,
  // shapes, offsets), so a damaged index is a DataLossError, not another checkpoint.
  add_json_checksum(index);

  remove_file_if_exists(index_path(prefix));
  write_file_atomically(data_path(prefix), pieces);
  // No trailing newline: then every proper prefix of the index is invalid JSON, so
  // a truncated index is always detected.
  write_file_atomically(index_path(prefix), index.dump(2));
}

// A tensor to save in a TensorFlow checkpoint: whole, or (with `slice`) the part of a
// partitioned tensor that the spec describes, as SaveV2 takes them.
struct TensorToSave {
  std::string name;
  Value value;
  std::optional<tf_bundle::ShapeAndSlice> slice;
};

// Writes a TensorFlow V2 checkpoint for `prefix` as TensorFlow's SaveV2 does: the data
// file prefix.data-00000-of-00001 holds the tensors back to back in the order given
// (strings in TensorFlow's layout), then prefix.index, a sorted string table of the
// header and one BundleEntryProto per key; each file is written atomically, after
// removing an index left at this prefix. A slice gets an entry of its own under its
// slice key, and its tensor one entry that lists the slices. InvalidArgumentError, before
// anything is written, for an empty or duplicate name or an empty (None) value, a slice
// whose value does not have its spec's shape, slices of one name with different dtypes or
// whole shapes or that overlap, and a name saved both whole and sliced.
inline void write_tf_bundle_as_given(const std::string& prefix,
                                     const std::vector<TensorToSave>& tensors) {
  struct Partitioned {
    DType dtype;
    Dims shape;
    std::vector<const tf_bundle::ShapeAndSlice*> parts;
  };
  std::set<std::string_view> whole;
  std::map<std::string, Partitioned> partitioned;
  std::vector<std::string> keys;  // each tensor's table key
  for (const TensorToSave& t : tensors) {
    const std::string what =
        t.slice ? "the slice '" + tf_bundle::slice_spec_string(*t.slice) + "' of '" + t.name + "'"
                : "tensor '" + t.name + "'";
    if (t.name.empty()) throw InvalidArgumentError("Cannot save a tensor with an empty name");
    if (t.value.is_none())
      throw InvalidArgumentError("Cannot save " + what + ": its value is empty (None)");
    if (!t.slice) {
      if (!whole.insert(t.name).second || partitioned.count(t.name))
        throw InvalidArgumentError("Adding duplicate key: " + t.name);
      keys.push_back(t.name);
      continue;
    }
    const tf_bundle::ShapeAndSlice& spec = *t.slice;
    if (t.value.dims() != spec.length)
      throw InvalidArgumentError("Cannot save " + what + ": the value has shape " +
                                 dims_to_string(t.value.dims()) + ", the slice " +
                                 dims_to_string(spec.length));
    if (t.value.dtype() == DType::string)
      throw UnimplementedError("Cannot save " + what +
                               ": symflow saves partitioned tensors of numbers and bools only");
    if (whole.count(t.name))
      throw InvalidArgumentError("Cannot save " + what + ": '" + t.name + "' is also saved whole");
    auto [it, first] =
        partitioned.try_emplace(t.name, Partitioned{t.value.dtype(), spec.shape, {}});
    Partitioned& p = it->second;
    if (!first && (p.dtype != t.value.dtype() || p.shape != spec.shape))
      throw InvalidArgumentError("Cannot save " + what + " as " +
                                 std::string(dtype_name(t.value.dtype())) + " " +
                                 dims_to_string(spec.shape) + ": another slice of it is " +
                                 std::string(dtype_name(p.dtype)) + " " + dims_to_string(p.shape));
    for (const tf_bundle::ShapeAndSlice* o : p.parts) {
      bool overlap = num_elements(spec.length) > 0 && num_elements(o->length) > 0;
      for (std::size_t d = 0; d < o->start.size() && overlap; ++d)
        overlap = spec.start[d] < o->start[d] + o->length[d] &&
                  o->start[d] < spec.start[d] + spec.length[d];
      if (overlap)
        throw InvalidArgumentError("Cannot save " + what + ": it overlaps another slice of it");
    }
    p.parts.push_back(&spec);
    keys.push_back(tf_bundle::slice_key(t.name, spec.slice));
  }

  std::vector<TableEntry> index = {{"", tf_bundle::encode_header(1)}};
  std::vector<std::string> bytes;  // each tensor's, in the order given
  std::uint64_t offset = 0;
  for (std::size_t i = 0; i < tensors.size(); ++i) {
    const Value& value = tensors[i].value;
    std::uint32_t crc = 0;
    if (value.dtype() == DType::string) {
      tf_bundle::EncodedStrings e = tf_bundle::encode_string_tensor(
          value.data<std::string>(), value.flat<std::string>().size());
      bytes.push_back(std::move(e.bytes));
      crc = e.crc;
    } else {
      bytes.emplace_back(static_cast<const char*>(value.raw_data()), value.nbytes());
      if constexpr (std::endian::native == std::endian::big)
        detail::checkpoint::swap_to_little_endian(bytes.back().data(), bytes.back().size(),
                                                  dtype_size(value.dtype()));
      crc = crc32c(bytes.back().data(), bytes.back().size());
    }
    index.push_back({keys[i], tf_bundle::encode_entry(dtype_tf_number(value.dtype()), value.dims(),
                                                      0, offset, bytes.back().size(), crc)});
    offset += bytes.back().size();
  }
  for (const auto& [name, p] : partitioned) {
    std::vector<tf_bundle::Slice> parts;
    for (const tf_bundle::ShapeAndSlice* spec : p.parts) parts.push_back(spec->slice);
    index.push_back(
        {name, tf_bundle::encode_entry(dtype_tf_number(p.dtype), p.shape, 0, 0, 0, 0, parts)});
  }
  std::sort(index.begin() + 1, index.end(),
            [](const TableEntry& a, const TableEntry& b) { return a.key < b.key; });
  std::vector<std::string_view> pieces(bytes.begin(), bytes.end());
  remove_file_if_exists(index_path(prefix));
  write_file_atomically(data_path(prefix), pieces);
  write_file_atomically(index_path(prefix), write_sorted_table(index));
}

// Writes a TensorFlow V2 checkpoint of whole tensors for `prefix`, which tf.train.Saver,
// load_checkpoint and symflow's BundleReader read: write_tf_bundle_as_given with the
// tensors sorted by name, as TensorFlow's Saver orders them.
inline void write_tf_bundle(const std::string& prefix,
                            const std::vector<std::pair<std::string, Value>>& tensors) {
  const std::map<std::string_view, const Value*> sorted =
      detail::checkpoint::sorted_for_saving(tensors);
  std::vector<TensorToSave> in_order;
  in_order.reserve(sorted.size());
  for (const auto& [name, value] : sorted) in_order.push_back({std::string(name), *value, {}});
  write_tf_bundle_as_given(prefix, in_order);
}

// Reads a bundle: symflow's (JSON index) or TensorFlow's V2 checkpoint (table index),
// chosen by the index's content. The constructor reads and checks the whole index (and
// the data files' sizes); read() reads one tensor and checks its size and CRC32C.
// read() is const and opens the data file itself, so one reader may serve several
// threads.
class BundleReader {
 public:
  explicit BundleReader(std::string prefix)
      : prefix_(std::move(prefix)),
        index_file_(index_path(prefix_)),
        data_file_(data_path(prefix_)) {
    std::string text;
    try {
      text = read_file(index_file_);
    } catch (const NotFoundError&) {
      throw NotFoundError(
          "Unsuccessful TensorSliceReader constructor: Failed to find any matching files for " +
          prefix_ + " (no index file " + index_file_ + ")");
    }
    // symflow's JSON ends in '}', never in the magic's last byte (0xdb).
    if (has_table_magic(text))
      open_tensorflow(text);
    else
      open_json(text);
  }

  const std::string& prefix() const { return prefix_; }
  const std::string& index_file() const { return index_file_; }
  // Whether the index is TensorFlow's table (else symflow's JSON).
  bool is_tensorflow_format() const { return tensorflow_; }
  int num_shards() const { return num_shards_; }
  // The data file holding shard `shard`: prefix.data-SSSSS-of-NNNNN.
  std::string data_file(int shard = 0) const {
    return tensorflow_ ? tf_bundle::shard_path(prefix_, shard, num_shards_) : data_file_;
  }

  const std::map<std::string, BundleEntry, std::less<>>& entries() const { return entries_; }
  bool contains(std::string_view name) const { return entries_.find(name) != entries_.end(); }

  // The tensor `name`: NotFoundError "Key <name> not found in checkpoint" when the
  // bundle has none, DataLossError when its bytes are missing or fail the CRC,
  // UnimplementedError when symflow has no DType for its TensorFlow dtype.
  Value read(std::string_view name) const {
    const BundleEntry& entry = entry_to_read(name);
    if (!entry.slices.empty()) return read_slice(name, Dims(entry.shape.size(), 0), entry.shape);
    return read_whole(name, entry);
  }

  // The part [start, start + length) of tensor `name`, as RestoreV2 reads a slice spec:
  // from the whole tensor, or from the stored slices of a partitioned one, which must
  // hold all of it (else DataLossError). Errors otherwise as read()'s.
  Value read_slice(std::string_view name, const Dims& start, const Dims& length) const {
    const BundleEntry& entry = entry_to_read(name);
    const std::string what = "tensor '" + std::string(name) + "'";
    if (start.size() != entry.shape.size() || length.size() != entry.shape.size())
      throw InvalidArgumentError("Cannot read slice " + dims_to_string(start) + "+" +
                                 dims_to_string(length) + " of " + what + " of shape " +
                                 dims_to_string(entry.shape) + ": its rank differs");
    for (std::size_t d = 0; d < start.size(); ++d)
      if (start[d] < 0 || length[d] < 0 || start[d] > entry.shape[d] ||
          length[d] > entry.shape[d] - start[d])
        throw InvalidArgumentError("Cannot read slice " + dims_to_string(start) + "+" +
                                   dims_to_string(length) + " of " + what + ": it lies outside " +
                                   dims_to_string(entry.shape));
    if (entry.slices.empty()) {
      Value whole = read_whole(name, entry);
      if (length == entry.shape) return whole;
      Value out(entry.dtype, length);
      copy_box(whole, start, out, Dims(start.size(), 0), length);
      return out;
    }
    Value out(entry.dtype, length);
    if (entry.dtype == DType::string)
      throw UnimplementedError("Cannot read tensor '" + std::string(name) + "' of checkpoint " +
                               prefix_ + ": symflow does not read partitioned string tensors");
    std::int64_t covered = 0;
    for (const BundleSlice& slice : entry.slices) {
      // The box this stored slice shares with the part asked for, if any.
      Dims from(start.size()), extent(start.size());
      bool empty = false;
      for (std::size_t d = 0; d < start.size(); ++d) {
        from[d] = std::max(start[d], slice.start[d]);
        const std::int64_t to = std::min(start[d] + length[d], slice.start[d] + slice.length[d]);
        extent[d] = to - from[d];
        empty = empty || extent[d] <= 0;
      }
      if (empty) continue;
      const BundleEntry& part = slice_entries_.at(slice.key);
      Value stored(entry.dtype, slice.length);
      read_bytes("slice " + dims_to_string(slice.start) + "+" + dims_to_string(slice.length) +
                     " of " + what,
                 part, stored.raw_data(), stored.nbytes());
      Dims in_stored(start.size()), in_out(start.size());
      for (std::size_t d = 0; d < start.size(); ++d) {
        in_stored[d] = from[d] - slice.start[d];
        in_out[d] = from[d] - start[d];
      }
      copy_box(stored, in_stored, out, in_out, extent);
      covered += num_elements(extent);  // the slices do not overlap: no element twice
    }
    if (covered != num_elements(length))
      throw DataLossError("Checkpoint " + prefix_ + " cannot give " + what + "'s part " +
                          dims_to_string(start) + "+" + dims_to_string(length) +
                          ": its slices hold " + std::to_string(covered) + " of its " +
                          std::to_string(num_elements(length)) + " elements");
    return out;
  }

  // The stored slices' own entries, by table key (TensorFlow's partitioned tensors).
  const std::map<std::string, BundleEntry, std::less<>>& slice_entries() const {
    return slice_entries_;
  }

 private:
  const BundleEntry& entry_to_read(std::string_view name) const {
    auto it = entries_.find(name);
    if (it == entries_.end())
      throw NotFoundError("Key " + std::string(name) + " not found in checkpoint");
    const BundleEntry& entry = it->second;
    if (entry.dtype == DType::invalid)
      throw UnimplementedError("Cannot read tensor '" + it->first + "' of checkpoint " + prefix_ +
                               ": its dtype " + bundle_dtype_name(entry) +
                               " has no symflow DType (symflow reads DT_FLOAT, DT_DOUBLE, "
                               "DT_INT32, DT_INT64, DT_UINT8, DT_BOOL and DT_STRING)");
    return entry;
  }

  // An unpartitioned tensor.
  Value read_whole(std::string_view name, const BundleEntry& entry) const {
    const std::string what = "tensor '" + std::string(name) + "'";
    if (entry.dtype == DType::string) return read_strings(what, entry);
    Value v(entry.dtype, entry.shape);
    read_bytes(what, entry, v.raw_data(), v.nbytes());
    return v;
  }

  // Copies the box of `extent` at `from` in `src` to `at` in `dst` (same dtype), a row
  // of the last dim at a time.
  static void copy_box(const Value& src, const Dims& from, Value& dst, const Dims& at,
                       const Dims& extent) {
    const std::size_t rank = extent.size();
    if (num_elements(extent) == 0) return;
    if (rank == 0) {
      if (src.dtype() == DType::string)
        dst.data<std::string>()[0] = src.data<std::string>()[0];
      else
        std::memcpy(dst.raw_data(), src.raw_data(), src.nbytes());
      return;
    }
    const auto offset = [&](const Dims& dims, const Dims& base, const Dims& index) {
      std::size_t at_ = 0;
      for (std::size_t d = 0; d < rank; ++d)
        at_ =
            at_ * static_cast<std::size_t>(dims[d]) + static_cast<std::size_t>(base[d] + index[d]);
      return at_;
    };
    const auto row = static_cast<std::size_t>(extent[rank - 1]);
    const std::size_t element = dtype_size(src.dtype());
    Dims index(rank, 0);  // within the box; the last dim stays 0
    for (;;) {
      const std::size_t s = offset(src.dims(), from, index), t = offset(dst.dims(), at, index);
      if (src.dtype() == DType::string)
        std::copy_n(src.data<std::string>() + s, row, dst.data<std::string>() + t);
      else
        std::memcpy(static_cast<unsigned char*>(dst.raw_data()) + t * element,
                    static_cast<const unsigned char*>(src.raw_data()) + s * element, row * element);
      std::size_t d = rank - 1;
      for (; d-- > 0;) {
        if (++index[d] < extent[d]) break;
        index[d] = 0;
      }
      if (d == static_cast<std::size_t>(-1)) return;
    }
  }

  // Reads the n bytes of `entry` (n == entry.size, checked when the index was read),
  // checks their CRC (and bools), and puts them in the host's byte order.
  // `what` names the tensor in messages.
  void read_bytes(const std::string& what, const BundleEntry& entry, void* out,
                  std::size_t n) const {
    read_raw(what, entry, out, n);
    const std::string file = data_file(entry.shard);
    std::uint32_t crc = crc32c(out, n);
    if (crc != entry.crc32c)
      throw DataLossError("Checksum does not match for " + what + " in " + file + ": stored " +
                          std::to_string(entry.crc32c) + " vs. calculated on the restored bytes " +
                          std::to_string(crc));
    if (entry.dtype == DType::bool_) {
      // Any byte but 0 or 1 is not a bool: reject it rather than hand out an invalid value.
      const auto* bytes = static_cast<const unsigned char*>(out);
      for (std::size_t i = 0; i < n; ++i)
        if (bytes[i] > 1)
          throw DataLossError("Corrupt bool " + what + " in " + file + ": element " +
                              std::to_string(i) + " is byte " + std::to_string(bytes[i]) +
                              ", expected 0 or 1");
    }
    if (swap_bytes_ && entry.dtype != DType::string)  // strings are bytes in any order
      // A complex number's parts are swapped one by one.
      detail::checkpoint::swap_elements(
          out, n, entry.dtype == DType::complex64 ? sizeof(float) : dtype_size(entry.dtype));
  }

  // The n bytes of `entry` as stored, unchecked.
  void read_raw(const std::string& what, const BundleEntry& entry, void* out, std::size_t n) const {
    if (n == 0) return;
    const std::string file = data_file(entry.shard);
    std::size_t got = read_file_at(file, entry.offset, out, n);
    if (got != n)
      throw DataLossError("Truncated checkpoint data file " + file + ": " + what + " needs " +
                          std::to_string(n) + " bytes at offset " + std::to_string(entry.offset) +
                          ", the file ends after " + std::to_string(got));
  }

  // A DT_STRING tensor (tf_bundle::decode_string_tensor checks its CRCs).
  Value read_strings(const std::string& what, const BundleEntry& entry) const {
    std::string raw(static_cast<std::size_t>(entry.size), '\0');
    read_raw(what, entry, raw.data(), raw.size());
    Value v(DType::string, entry.shape);
    std::vector<std::string> strings = tf_bundle::decode_string_tensor(
        raw, v.size(), entry.crc32c, what + " in " + data_file(entry.shard));
    std::move(strings.begin(), strings.end(), v.data<std::string>());
    return v;
  }

  void open_json(const std::string& text) {
    namespace ckpt = detail::checkpoint;
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
      const std::size_t first = text.find_first_not_of(" \t\r\n");
      const bool json_like = first != std::string::npos && text[first] == '{';
      parser.fail(std::string("expected JSON: ") + e.what() +
                  (json_like ? ""
                             : " (nor is it a TensorFlow table, which ends with the table "
                               "magic number)"));
    }
    if (!duplicate.empty()) parser.fail("the key \"" + duplicate + "\" appears twice in an object");
    if (!j.is_object()) parser.fail("expected a JSON object, got " + ckpt::describe(j));
    verify_json_checksum(j, "Corrupt checkpoint index " + index_file_);
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
    // symflow's files are little-endian whatever the host.
    swap_bytes_ = std::endian::native == std::endian::big;
  }

  [[noreturn]] void corrupt(const std::string& what) const {
    throw DataLossError("Corrupt checkpoint index " + index_file_ + ": " + what);
  }

  void open_tensorflow(const std::string& text) {
    const std::string where = "Corrupt checkpoint index " + index_file_;
    std::vector<TableEntry> table = read_sorted_table(text, where);
    tensorflow_ = true;
    if (table.empty() || !table[0].key.empty())
      corrupt("the table has no header entry (the empty key)");
    const tf_bundle::Header header = tf_bundle::parse_header(table[0].value, where);
    if (header.num_shards < 1)
      corrupt("the header's num_shards is " + std::to_string(header.num_shards) +
              ", expected at least 1");
    if (header.producer < 0)
      corrupt("the header's producer version is " + std::to_string(header.producer));
    const std::string version = std::to_string(tf_bundle::kBundleVersion);
    if (header.min_consumer > tf_bundle::kBundleVersion)
      throw UnimplementedError("Checkpoint " + prefix_ + " needs a newer reader: its index " +
                               index_file_ + " has min_consumer " +
                               std::to_string(header.min_consumer) +
                               " and symflow reads bundle version " + version);
    if (std::find(header.bad_consumers.begin(), header.bad_consumers.end(),
                  tf_bundle::kBundleVersion) != header.bad_consumers.end())
      throw UnimplementedError("Checkpoint " + prefix_ + " excludes this reader: its index " +
                               index_file_ + " lists bundle version " + version +
                               " among its bad_consumers");
    num_shards_ = static_cast<int>(header.num_shards);
    swap_bytes_ = header.big_endian != (std::endian::native == std::endian::big);

    std::map<int, std::uint64_t> shard_sizes;  // stat'ed once each, only those used
    for (std::size_t i = 1; i < table.size(); ++i) {
      const TableEntry& t = table[i];
      // A slice's key starts with a zero byte (OrderedCode of 0); no tensor name does.
      const bool is_slice = t.key[0] == '\0';
      const std::string what =
          is_slice ? "slice entry " + std::to_string(i) : "tensor '" + t.key + "'";
      BundleEntry e =
          tf_entry(t.key, what, tf_bundle::parse_entry(t.value, where + ": " + what), shard_sizes);
      if (is_slice)
        slice_entries_.emplace(t.key, std::move(e));
      else
        entries_.emplace(t.key, std::move(e));
    }
    for (auto& [name, e] : entries_)
      if (!e.slices.empty()) check_slices(name, e);
  }

  // An entry checked against its data file, its CRC unmasked.
  // `name` is the table key, `what` names the entry in messages.
  BundleEntry tf_entry(const std::string& key, const std::string& name, const tf_bundle::Entry& p,
                       std::map<int, std::uint64_t>& shard_sizes) const {
    BundleEntry e;
    if (p.dtype == 0) corrupt(name + " has no dtype (DT_INVALID)");
    if (p.dtype > 100)
      corrupt(name + " has the reference dtype " + tf_dtype_number_name(p.dtype) +
              ", which a checkpoint never holds");
    e.tf_dtype = static_cast<int>(p.dtype);
    e.dtype = dtype_from_tf_number(p.dtype).value_or(DType::invalid);
    e.shape = p.shape;
    // As for symflow's index: the product of the non-zero dims fits in int64.
    constexpr auto kMax = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
    std::uint64_t elements = 1, nonzero_product = 1;
    for (std::int64_t dim : e.shape) {
      const auto n = static_cast<std::uint64_t>(dim);
      if (n != 0) {
        if (nonzero_product > kMax / n)
          corrupt(name + " has shape " + dims_to_string(e.shape) +
                  ", whose number of elements overflows int64");
        nonzero_product *= n;
      }
      elements = n == 0 ? 0 : elements * n;
    }
    if (!p.slices.empty()) {
      // A partitioned tensor's entry has no bytes of its own; its slices are resolved
      // against its shape once every entry is read.
      for (const tf_bundle::Slice& s : p.slices) e.slices.push_back(resolve_slice(key, name, e, s));
      return e;
    }
    if (p.shard_id >= num_shards_)
      corrupt(name + " is in shard " + std::to_string(p.shard_id) + " but the checkpoint has " +
              std::to_string(num_shards_));
    e.shard = static_cast<int>(p.shard_id);
    e.offset = static_cast<std::uint64_t>(p.offset);
    e.size = static_cast<std::uint64_t>(p.size);
    e.crc32c = unmask_crc32c(p.masked_crc32c);
    if (const std::uint64_t element = tf_bundle::tf_dtype_size(p.dtype); element > 0) {
      const bool overflows = elements > std::numeric_limits<std::uint64_t>::max() / element;
      if (overflows || e.size != elements * element)
        corrupt(name + " has size " + std::to_string(e.size) + " but shape " +
                dims_to_string(e.shape) + " of " + tf_dtype_number_name(p.dtype) + " needs " +
                (overflows ? std::string("more than 2^64") : std::to_string(elements * element)) +
                " bytes");
    }
    auto size_it = shard_sizes.find(e.shard);
    if (size_it == shard_sizes.end()) {
      const std::string file = data_file(e.shard);
      std::uint64_t size = 0;
      try {
        size = file_size(file);
      } catch (const NotFoundError& err) {
        throw NotFoundError(std::string(err.what()) + " (data shard " + std::to_string(e.shard) +
                            " of " + std::to_string(num_shards_) + " of checkpoint " + prefix_ +
                            ", holding " + name + ")");
      }
      size_it = shard_sizes.emplace(e.shard, size).first;
    }
    if (e.offset > size_it->second || e.size > size_it->second - e.offset)
      throw DataLossError("Truncated checkpoint data file " + data_file(e.shard) + ": " + name +
                          " needs bytes [" + std::to_string(e.offset) + ", " +
                          std::to_string(e.offset) + "+" + std::to_string(e.size) +
                          ") but the file has only " + std::to_string(size_it->second) + " bytes");
    return e;
  }

  BundleSlice resolve_slice(const std::string& key, const std::string& name, const BundleEntry& e,
                            const tf_bundle::Slice& s) const {
    if (e.shape.empty()) corrupt(name + " is a scalar but has slices");
    if (s.size() != e.shape.size())
      corrupt(name + " of rank " + std::to_string(e.shape.size()) + " has a slice of rank " +
              std::to_string(s.size()));
    BundleSlice out;
    for (std::size_t d = 0; d < s.size(); ++d) {
      const std::int64_t dim = e.shape[d];
      const std::int64_t start = s[d].start;
      const std::int64_t length = s[d].length.value_or(dim);
      if ((!s[d].length && start != 0) || start > dim || length > dim - start)
        corrupt(name + " has a slice whose extent " + std::to_string(d) + " (start " +
                std::to_string(start) + ", length " +
                (s[d].length ? std::to_string(*s[d].length) : std::string("full")) +
                ") lies outside the dimension of " + std::to_string(dim));
      out.start.push_back(start);
      out.length.push_back(length);
    }
    out.key = tf_bundle::slice_key(key, s);
    out.extents = s;
    return out;
  }

  // The slices of a partitioned tensor have entries of its dtype and of their shapes,
  // and no two overlap. They need not hold all of it: each shard of a sharded save
  // holds the slices of its own device (read_slice checks what a read needs).
  void check_slices(const std::string& name, const BundleEntry& e) const {
    const std::string what = "tensor '" + name + "'";
    for (std::size_t i = 0; i < e.slices.size(); ++i) {
      const BundleSlice& s = e.slices[i];
      const std::string slice =
          "slice " + dims_to_string(s.start) + "+" + dims_to_string(s.length) + " of " + what;
      auto it = slice_entries_.find(s.key);
      if (it == slice_entries_.end()) corrupt(slice + " has no entry in the index");
      if (it->second.tf_dtype != e.tf_dtype || it->second.shape != s.length)
        corrupt(slice + " is stored as " + tf_dtype_number_name(it->second.tf_dtype) + " " +
                dims_to_string(it->second.shape) + ", expected " + bundle_dtype_name(e) + " " +
                dims_to_string(s.length));
      for (std::size_t j = 0; j < i; ++j) {
        const BundleSlice& o = e.slices[j];
        // Boxes overlap when their extents intersect in every dimension; empty ones never.
        bool overlap = num_elements(s.length) > 0 && num_elements(o.length) > 0;
        for (std::size_t d = 0; d < s.start.size() && overlap; ++d)
          overlap = s.start[d] < o.start[d] + o.length[d] && o.start[d] < s.start[d] + s.length[d];
        if (overlap) corrupt(slice + " overlaps another slice of it");
      }
    }
  }

  std::string prefix_;
  std::string index_file_;
  std::string data_file_;  // symflow's single data file
  bool tensorflow_ = false;
  bool swap_bytes_ = false;  // the file's byte order is not the host's
  int num_shards_ = 1;
  std::map<std::string, BundleEntry, std::less<>> entries_;
  std::map<std::string, BundleEntry, std::less<>> slice_entries_;  // TensorFlow's, by key
};

// TensorFlow's MergeV2Checkpoints: the TensorFlow checkpoints `sources` (one shard each,
// as the sharded Saver's SaveV2 ops write them) become the shards of one checkpoint at
// `destination`, in the order given: their data files are renamed to its shards, one
// index lists every tensor, and the sources' indexes are removed. A tensor name found
// in two sources is an InvalidArgumentError, before anything moves.
inline void merge_tf_bundles(const std::vector<std::string>& sources,
                             const std::string& destination) {
  const auto n = static_cast<std::int64_t>(sources.size());
  std::vector<TableEntry> index = {{"", tf_bundle::encode_header(n)}};
  std::map<std::string, std::string> owner;  // tensor -> the source that holds it
  // A partitioned tensor's slices may lie in several sources: one entry lists them all.
  std::map<std::string, BundleEntry> partitioned;
  std::set<std::string> slice_keys;
  for (std::int64_t shard = 0; shard < n; ++shard) {
    const std::string& source = sources[static_cast<std::size_t>(shard)];
    const BundleReader reader(source);
    if (!reader.is_tensorflow_format() || reader.num_shards() != 1)
      throw UnimplementedError(
          "MergeV2Checkpoints merges TensorFlow checkpoints of one shard "
          "each; " +
          source + " is not one");
    for (const auto& [key, e] : reader.slice_entries()) {
      if (!slice_keys.insert(key).second)
        throw InvalidArgumentError(
            "Duplicate slice of a partitioned tensor encountered, when "
            "merging prefix: " +
            source);
      index.push_back(
          {key, tf_bundle::encode_entry(e.tf_dtype, e.shape, shard, e.offset, e.size, e.crc32c)});
    }
    for (const auto& [name, e] : reader.entries()) {
      if (!e.slices.empty()) {
        auto [it, first] = partitioned.try_emplace(name, e);
        if (first) continue;
        if (it->second.tf_dtype != e.tf_dtype || it->second.shape != e.shape)
          throw InvalidArgumentError("The partitioned tensor '" + name + "' of " + source +
                                     " has another dtype or shape than in the checkpoints "
                                     "merged before it");
        it->second.slices.insert(it->second.slices.end(), e.slices.begin(), e.slices.end());
        continue;
      }
      if (!owner.emplace(name, source).second)
        throw InvalidArgumentError("Duplicate tensor keyed by " + name +
                                   " encountered, when merging prefix: " + source);
      index.push_back(
          {name, tf_bundle::encode_entry(e.tf_dtype, e.shape, shard, e.offset, e.size, e.crc32c)});
    }
  }
  for (const auto& [name, e] : partitioned) {
    if (owner.count(name))
      throw InvalidArgumentError("Tensor '" + name +
                                 "' is both whole and partitioned in the "
                                 "checkpoints merged at " +
                                 destination);
    std::vector<tf_bundle::Slice> parts;
    for (const BundleSlice& s : e.slices) parts.push_back(s.extents);
    index.push_back({name, tf_bundle::encode_entry(e.tf_dtype, e.shape, 0, 0, 0, 0, parts)});
  }
  std::sort(index.begin() + 1, index.end(),
            [](const TableEntry& a, const TableEntry& b) { return a.key < b.key; });
  remove_file_if_exists(index_path(destination));
  for (std::int64_t shard = 0; shard < n; ++shard) {
    const std::string from = tf_bundle::shard_path(sources[static_cast<std::size_t>(shard)], 0, 1);
    const std::string to = tf_bundle::shard_path(destination, shard, n);
    std::error_code ec;
    std::filesystem::rename(from, to, ec);
    if (ec == std::errc::no_such_file_or_directory)
      throw NotFoundError("Cannot merge checkpoint data file " + from + ": " + ec.message());
    if (ec)
      throw PermissionDeniedError("Cannot move checkpoint data file " + from + " to " + to + ": " +
                                  ec.message());
  }
  write_file_atomically(index_path(destination), write_sorted_table(index));
  for (const std::string& source : sources) remove_file_if_exists(index_path(source));
}

}  // namespace io

}  // namespace symflow
