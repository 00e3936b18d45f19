#pragma once
// A reader of the LevelDB-style sorted string table that TensorFlow writes as a
// checkpoint's `.index` (tensorflow/core/lib/io/table*, docs/formats.md):
//
//   data block 0 .. data block n-1, metaindex block, index block, footer (48 bytes)
//
// Every block is its contents plus a 5-byte trailer (compression type, masked CRC32C
// of contents and type). A block is a run of prefix-compressed (key, value) entries
// followed by an array of restart offsets and its length. The index block maps a
// separator key (>= every key of its data block) to that block's handle; the footer
// holds the metaindex and index handles and ends in the table's magic number.
//
// The whole table is read and checked at once (checkpoint indexes are small): every
// block's bounds and CRC, every entry's lengths, the restart arrays, and the order of
// the keys. Nothing is trusted before it is checked, and any defect is a DataLossError
// whose message starts with the caller's `where` (e.g. "Corrupt checkpoint index
// P.index") and says what was wrong. Snappy-compressed blocks need SYMFLOW_HAVE_SNAPPY
// (CMake defines it when it finds Debian's libsnappy-dev); without it they are an
// UnimplementedError.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "symflow/core/errors.hpp"
#include "symflow/io/crc32c.hpp"
#include "symflow/io/protobuf_wire.hpp"

#if defined(SYMFLOW_HAVE_SNAPPY) && SYMFLOW_HAVE_SNAPPY
#include <snappy.h>
#endif

namespace symflow {

namespace io {

inline constexpr std::uint64_t kTableMagic = 0xdb4775248b80fb57ull;
inline constexpr std::size_t kTableFooterSize = 48;  // two handles padded to 40, the magic
inline constexpr std::size_t kBlockTrailerSize = 5;  // type byte, masked CRC32C

// Whether `bytes` end with the table magic (written as two little-endian words).
inline bool has_table_magic(std::string_view bytes) {
  return bytes.size() >= 8 && wire::load_fixed64(bytes.data() + bytes.size() - 8) == kTableMagic;
}

struct TableEntry {
  std::string key;
  std::string value;
};

}  // namespace io

namespace detail::sorted_table {

using io::kBlockTrailerSize;
using io::kTableFooterSize;
using io::TableEntry;
namespace wire = io::wire;

struct BlockHandle {
  std::uint64_t offset = 0;
  std::uint64_t size = 0;
};

class TableParser {
 public:
  TableParser(std::string_view bytes, std::string where)
      : bytes_(bytes), where_(std::move(where)) {}

  [[noreturn]] void fail(const std::string& what) const {
    throw DataLossError(where_ + ": " + what);
  }

  std::vector<TableEntry> read_all() {
    if (bytes_.size() < kTableFooterSize)
      fail("the file has " + std::to_string(bytes_.size()) + " bytes, fewer than the " +
           std::to_string(kTableFooterSize) + " of a table's footer");
    if (!io::has_table_magic(bytes_))
      fail("the file does not end with the table magic number 0xdb4775248b80fb57");
    const std::string_view footer = bytes_.substr(bytes_.size() - kTableFooterSize);
    // The handles are four varints within the first 40 bytes; the writer zero-fills the
    // rest, so anything else there is damage.
    const std::string_view handles = footer.substr(0, kTableFooterSize - 8);
    std::size_t pos = 0;
    const BlockHandle metaindex = handle(handles, pos, "the footer's metaindex handle");
    const BlockHandle index = handle(handles, pos, "the footer's index handle");
    for (; pos < handles.size(); ++pos)
      if (handles[pos] != 0)
        fail("the footer's padding byte " + std::to_string(pos) + " is not zero");
    table_end_ = bytes_.size() - kTableFooterSize;

    // The metaindex holds no entry symflow needs (TF writes it empty), but it is a
    // block like the others and is checked as one.
    (void)entries_of(block(metaindex, "the metaindex block"), "the metaindex block", false);
    const std::string index_block = block(index, "the index block");
    const std::vector<TableEntry> index_entries = entries_of(index_block, "the index block", true);

    std::vector<TableEntry> out;
    std::uint64_t previous_end = 0;
    for (std::size_t b = 0; b < index_entries.size(); ++b) {
      const TableEntry& sep = index_entries[b];
      const std::string what = "data block " + std::to_string(b);
      std::size_t p = 0;
      const BlockHandle h = handle(sep.value, p, "the index entry of " + what);
      if (p != sep.value.size())
        fail("the index entry of " + what + " has " + std::to_string(sep.value.size() - p) +
             " bytes after its block handle");
      const std::string contents = block(h, what);  // checks that it fits in the file
      // Data blocks lie in file order, each after the previous one, before the metaindex.
      if (h.offset < previous_end)
        fail(what + " at offset " + std::to_string(h.offset) + " overlaps the block before it");
      previous_end = h.offset + h.size + kBlockTrailerSize;
      if (previous_end > metaindex.offset)
        fail(what + " at offset " + std::to_string(h.offset) + " runs into the metaindex block");
      std::vector<TableEntry> entries = entries_of(contents, what, false);
      if (entries.empty()) fail(what + " has no entries");
      for (TableEntry& e : entries) {
        if (!out.empty() && !(out.back().key < e.key))
          fail("the keys are not in increasing order: '" + printable(e.key) + "' follows '" +
               printable(out.back().key) + "'");
        if (sep.key < e.key)
          fail("key '" + printable(e.key) + "' of " + what + " is beyond its index key '" +
               printable(sep.key) + "'");
        out.push_back(std::move(e));
      }
    }
    return out;
  }

 private:
  // A key as a message shows it: printable ASCII kept, other bytes as \xNN.
  static std::string printable(std::string_view key) {
    static constexpr char kHex[] = "0123456789abcdef";
    std::string out;
    for (char c : key.substr(0, 200)) {
      const auto u = static_cast<unsigned char>(c);
      if (u >= 0x20 && u < 0x7f && c != '\\') {
        out += c;
      } else {
        out += "\\x";
        out += kHex[u >> 4];
        out += kHex[u & 15u];
      }
    }
    if (key.size() > 200) out += "...";
    return out;
  }

  BlockHandle handle(std::string_view data, std::size_t& pos, const std::string& what) const {
    auto offset = wire::read_varint(data, pos);
    auto size = offset ? wire::read_varint(data, pos) : std::nullopt;
    if (!offset || !size) fail(what + " is cut off or not a pair of varints");
    return {*offset, *size};
  }

  // The contents of the block at `h`, checked against its trailer and decompressed.
  std::string block(const BlockHandle& h, const std::string& what) const {
    const std::string at = what + " at offset " + std::to_string(h.offset);
    if (h.offset > table_end_ || h.size > table_end_ - h.offset ||
        kBlockTrailerSize > table_end_ - h.offset - h.size)
      fail(at + " with " + std::to_string(h.size) + " bytes (and its " +
           std::to_string(kBlockTrailerSize) + "-byte trailer) does not fit before the footer at " +
           std::to_string(table_end_));
    const std::string_view contents = bytes_.substr(h.offset, h.size);
    const char* trailer = bytes_.data() + h.offset + h.size;
    const std::uint32_t stored = io::unmask_crc32c(wire::load_fixed32(trailer + 1));
    const std::uint32_t actual = io::crc32c(trailer, 1, io::crc32c(contents));
    if (stored != actual)
      fail(at + " fails its CRC32C: stored " + std::to_string(stored) + ", computed " +
           std::to_string(actual));
    switch (static_cast<unsigned char>(trailer[0])) {
      case 0:
        return std::string(contents);
      case 1:
        return snappy_block(contents, at);
      default:
        fail(at + " has compression type " +
             std::to_string(static_cast<unsigned char>(trailer[0])) +
             ", expected 0 (none) or 1 (Snappy)");
    }
  }

  std::string snappy_block([[maybe_unused]] std::string_view contents,
                           const std::string& at) const {
#if defined(SYMFLOW_HAVE_SNAPPY) && SYMFLOW_HAVE_SNAPPY
    std::size_t length = 0;
    if (!snappy::GetUncompressedLength(contents.data(), contents.size(), &length))
      fail(at + " is Snappy-compressed but its uncompressed length is unreadable");
    // One Snappy copy tag of at most 5 bytes yields at most 64 bytes; a larger claim is
    // damage, and refusing it keeps a bad length from allocating gigabytes.
    if (length > 64 * contents.size() + 64)
      fail(at + " claims " + std::to_string(length) + " bytes once decompressed, more than " +
           std::to_string(contents.size()) + " Snappy bytes can hold");
    std::string out(length, '\0');
    if (!snappy::RawUncompress(contents.data(), contents.size(), out.data()))
      fail(at + " is Snappy-compressed but does not decompress");
    return out;
#else
    throw UnimplementedError(where_ + ": " + at +
                             " is Snappy-compressed, and symflow was built without Snappy "
                             "(install libsnappy-dev and reconfigure)");
#endif
  }

  // The entries of a block, keys strictly increasing. `every_restart`: the index block
  // restarts at each entry (no shared prefixes); data blocks every 16 entries.
  std::vector<TableEntry> entries_of(std::string_view block, const std::string& what,
                                     bool every_restart) const {
    if (block.size() < 4)
      fail(what + " has " + std::to_string(block.size()) + " bytes, too few for its restart count");
    const std::uint32_t num_restarts = wire::load_fixed32(block.data() + block.size() - 4);
    if (num_restarts == 0 || num_restarts > (block.size() - 4) / 4)
      fail(what + " claims " + std::to_string(num_restarts) + " restart points; " +
           std::to_string(block.size()) + " bytes hold between 1 and " +
           std::to_string((block.size() - 4) / 4));
    const std::size_t restarts_at = block.size() - 4 - 4 * std::size_t{num_restarts};
    std::vector<std::uint32_t> restarts(num_restarts);
    for (std::uint32_t i = 0; i < num_restarts; ++i)
      restarts[i] = wire::load_fixed32(block.data() + restarts_at + 4 * i);
    if (restarts[0] != 0)
      fail(what + "'s first restart point is " + std::to_string(restarts[0]) + ", expected 0");

    const std::string_view body = block.substr(0, restarts_at);
    std::vector<TableEntry> out;
    std::size_t pos = 0, next_restart = 0;
    std::string key;
    while (pos < body.size()) {
      const std::size_t start = pos;
      const std::string at = "the entry at byte " + std::to_string(start) + " of " + what;
      auto shared = wire::read_varint(body, pos);
      auto unshared = shared ? wire::read_varint(body, pos) : std::nullopt;
      auto value_size = unshared ? wire::read_varint(body, pos) : std::nullopt;
      if (!value_size) fail(at + " has a cut-off or overlong length varint");
      if (*shared > key.size())
        fail(at + " shares " + std::to_string(*shared) + " bytes with a key of " +
             std::to_string(key.size()));
      if (*unshared > body.size() - pos || *value_size > body.size() - pos - *unshared)
        fail(at + " needs " + std::to_string(*unshared) + " key and " +
             std::to_string(*value_size) + " value bytes, but only " +
             std::to_string(body.size() - pos) + " are left");
      const bool is_restart = next_restart < restarts.size() && restarts[next_restart] == start;
      if (is_restart) ++next_restart;
      if ((is_restart || every_restart || out.empty()) && *shared != 0)
        fail(at + " shares a key prefix at a restart point");
      key.resize(static_cast<std::size_t>(*shared));
      key.append(body.substr(pos, static_cast<std::size_t>(*unshared)));
      pos += static_cast<std::size_t>(*unshared);
      if (!out.empty() && !(out.back().key < key))
        fail(at + ": its key '" + printable(key) + "' does not follow '" +
             printable(out.back().key) + "' in increasing order");
      out.push_back({key, std::string(body.substr(pos, static_cast<std::size_t>(*value_size)))});
      pos += static_cast<std::size_t>(*value_size);
    }
    // Every restart offset must be the start of an entry (an empty block has one, 0).
    if (next_restart != restarts.size() &&
        !(body.empty() && restarts.size() == 1 && restarts[0] == 0))
      fail(what + "'s restart point " + std::to_string(next_restart) + " (offset " +
           std::to_string(restarts[next_restart]) + ") is not the start of an entry");
    return out;
  }

  std::string_view bytes_;
  std::string where_;
  std::size_t table_end_ = 0;
};

}  // namespace detail::sorted_table

namespace io {

// Every (key, value) of the table in `bytes`, in key order, checked as the header
// says; `where` starts every error message and should name the file.
inline std::vector<TableEntry> read_sorted_table(std::string_view bytes, const std::string& where) {
  return detail::sorted_table::TableParser(bytes, where).read_all();
}

}  // namespace io

}  // namespace symflow
