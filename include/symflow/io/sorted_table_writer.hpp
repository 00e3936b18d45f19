#pragma once
// A writer of the LevelDB-style sorted string table that TensorFlow reads as a
// checkpoint's `.index` (the layout is in io/sorted_table.hpp, which reads it back, and
// in docs/formats.md): data blocks of prefix-compressed entries with restart arrays, an
// empty metaindex block, an index block of (separator key, block handle), and the
// footer. Blocks are not compressed; the index keys are LevelDB's short separators, so
// that a table of TensorFlow's entries has TensorFlow's bytes.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "symflow/core/errors.hpp"
#include "symflow/io/crc32c.hpp"
#include "symflow/io/protobuf_wire.hpp"
#include "symflow/io/sorted_table.hpp"

namespace symflow {

namespace detail::sorted_table {

// One block's contents: the entries, each key stored as the length it shares with the
// previous key and the rest, then the restart offsets and their count.
inline std::string block_of(const std::vector<io::TableEntry>& entries, std::size_t first,
                            std::size_t end, std::size_t restart_interval) {
  std::string out;
  std::vector<std::uint32_t> restarts;
  std::string_view last;
  for (std::size_t i = first; i < end; ++i) {
    const io::TableEntry& e = entries[i];
    std::size_t shared = 0;
    if ((i - first) % restart_interval == 0) {
      restarts.push_back(static_cast<std::uint32_t>(out.size()));
    } else {
      while (shared < last.size() && shared < e.key.size() && last[shared] == e.key[shared])
        ++shared;
    }
    io::wire::append_varint(out, shared);
    io::wire::append_varint(out, e.key.size() - shared);
    io::wire::append_varint(out, e.value.size());
    out.append(e.key, shared);
    out += e.value;
    last = e.key;
  }
  if (restarts.empty()) restarts.push_back(0);
  for (std::uint32_t r : restarts) io::wire::append_fixed32(out, r);
  io::wire::append_fixed32(out, static_cast<std::uint32_t>(restarts.size()));
  return out;
}

// Appends a block and its trailer (no compression, masked CRC32C of contents and type
// byte) to `file`; returns the block's handle.
inline std::string append_block(std::string& file, const std::string& contents) {
  std::string handle;
  io::wire::append_varint(handle, file.size());
  io::wire::append_varint(handle, contents.size());
  const std::size_t start = file.size();
  file += contents;
  file += '\0';
  io::wire::append_fixed32(file,
                           io::masked_crc32c(io::crc32c(file.data() + start, contents.size() + 1)));
  return handle;
}

// LevelDB's index keys, which TensorFlow's tables use: a short key >= `last` and <
// `next` (FindShortestSeparator), and a short key >= `last` (FindShortSuccessor).
inline std::string shortest_separator(const std::string& last, const std::string& next) {
  std::size_t i = 0;
  while (i < last.size() && i < next.size() && last[i] == next[i]) ++i;
  if (i < last.size() && i < next.size()) {
    const auto byte = static_cast<unsigned char>(last[i]);
    if (byte < 0xff && byte + 1 < static_cast<unsigned char>(next[i])) {
      std::string key = last.substr(0, i + 1);
      key[i] = static_cast<char>(byte + 1);
      return key;
    }
  }
  return last;
}
inline std::string short_successor(const std::string& last) {
  for (std::size_t i = 0; i < last.size(); ++i) {
    const auto byte = static_cast<unsigned char>(last[i]);
    if (byte != 0xff) {
      std::string key = last.substr(0, i + 1);
      key[i] = static_cast<char>(byte + 1);
      return key;
    }
  }
  return last;
}

}  // namespace detail::sorted_table

namespace io {

struct TableWriterOptions {
  std::size_t entries_per_block = 1024;
  std::size_t restart_interval = 16;  // entries between full keys, as LevelDB's default
};

}  // namespace io

namespace detail::sorted_table {

// The table of `entries` in the order given (write_sorted_table checks that order first;
// tests call this directly to make tables a reader must refuse).
inline std::string assemble(const std::vector<io::TableEntry>& entries,
                            const io::TableWriterOptions& options) {
  std::string file;
  std::vector<io::TableEntry> index;
  for (std::size_t i = 0; i < entries.size(); i += options.entries_per_block) {
    const std::size_t end = std::min(entries.size(), i + options.entries_per_block);
    const std::string& last = entries[end - 1].key;
    index.push_back(
        {end < entries.size() ? shortest_separator(last, entries[end].key) : short_successor(last),
         append_block(file, block_of(entries, i, end, options.restart_interval))});
  }
  const std::string metaindex = append_block(file, block_of({}, 0, 0, 1));
  const std::string index_handle = append_block(file, block_of(index, 0, index.size(), 1));
  std::string footer = metaindex + index_handle;
  footer.resize(io::kTableFooterSize - 8, '\0');
  io::wire::append_fixed32(footer, static_cast<std::uint32_t>(io::kTableMagic));
  io::wire::append_fixed32(footer, static_cast<std::uint32_t>(io::kTableMagic >> 32));
  return file + footer;
}

}  // namespace detail::sorted_table

namespace io {

// The table of `entries`, whose keys must be strictly increasing (bytewise, as
// std::string compares them): an InvalidArgumentError names the first that is not.
inline std::string write_sorted_table(const std::vector<TableEntry>& entries,
                                      const TableWriterOptions& options = {}) {
  if (options.entries_per_block == 0 || options.restart_interval == 0)
    throw InvalidArgumentError("A table needs at least one entry per block and per restart");
  for (std::size_t i = 1; i < entries.size(); ++i)
    if (!(entries[i - 1].key < entries[i].key))
      throw InvalidArgumentError("Table keys must be strictly increasing: '" + entries[i].key +
                                 "' follows '" + entries[i - 1].key + "'");
  return detail::sorted_table::assemble(entries, options);
}

}  // namespace io

}  // namespace symflow
