#pragma once
// The checksum of symflow's JSON files (docs/formats.md, "Checksum"): a top-level member
// "checksum": "crc32c:<8 lowercase hex digits>", the plain (unmasked) CRC32C of the
// document's compact dump without that member. Masking protects a CRC stored inside the
// bytes it covers; this one is not covered by itself, so it is kept plain.

#include <charconv>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <system_error>

#include <nlohmann/json.hpp>

#include "symflow/core/errors.hpp"
#include "symflow/io/crc32c.hpp"
#include "symflow/io/json_numbers.hpp"

namespace symflow::io {

// The files that carry it: a .meta, a checkpoint index, a GraphDef written with one. The
// canonical dump is UTF-8, without whitespace, object keys sorted, numbers in their
// shortest round-trip form (what nlohmann::json's dump() gives). Any change to a name, a
// value or a field changes that dump, so damage is caught even where it leaves valid
// JSON; whitespace and key order, which carry nothing, are not covered. Files without the
// member (written before it existed) still read.
inline constexpr std::string_view kJsonChecksumKey = "checksum";
inline constexpr std::string_view kJsonChecksumPrefix = "crc32c:";

// "crc32c:<8 hex digits>" of `document`'s compact dump (which must not hold the member).
inline std::string json_checksum(const nlohmann::json& document) {
  const std::string canonical = document.dump();
  char hex[9];
  std::snprintf(hex, sizeof hex, "%08x", static_cast<unsigned>(crc32c(canonical)));
  return std::string(kJsonChecksumPrefix) + hex;
}

// Adds (or replaces) the checksum member of a JSON object.
inline void add_json_checksum(nlohmann::json& document) {
  document.erase(std::string(kJsonChecksumKey));
  const std::string checksum = json_checksum(document);
  document[std::string(kJsonChecksumKey)] = checksum;
}

// Checks and removes the checksum member of a parsed document; returns whether it had
// one. A member that is not "crc32c:<8 hex digits>", or a checksum that does not match,
// is a DataLossError naming `source`.
inline bool verify_json_checksum(nlohmann::json& document, std::string_view source) {
  const std::string key(kJsonChecksumKey);
  if (!document.is_object() || !document.contains(key)) return false;
  const nlohmann::json stored = document.at(key);
  document.erase(key);
  const std::string where(source);
  const std::string* text = stored.is_string() ? &stored.get_ref<const std::string&>() : nullptr;
  std::uint32_t value = 0;
  const bool well_formed = [&] {
    if (!text || text->size() != kJsonChecksumPrefix.size() + 8 ||
        !text->starts_with(kJsonChecksumPrefix))
      return false;
    const char* first = text->data() + kJsonChecksumPrefix.size();
    const char* last = text->data() + text->size();
    auto [end, error] = std::from_chars(first, last, value, 16);
    return error == std::errc() && end == last;
  }();
  if (!well_formed)
    throw DataLossError(where + ": field \"checksum\": expected \"crc32c:<8 hex digits>\", got " +
                        describe_json(stored) + "; the file is damaged");
  std::string actual;
  try {
    actual = json_checksum(document);
  } catch (const nlohmann::json::exception& e) {
    throw DataLossError(where + ": the file is damaged: " + e.what());
  }
  char expected[9];
  std::snprintf(expected, sizeof expected, "%08x", static_cast<unsigned>(value));
  if (actual != std::string(kJsonChecksumPrefix) + expected)
    throw DataLossError(where + ": checksum mismatch: the file records " + *text +
                        " but its content has " + actual + "; the file is damaged");
  return true;
}

}  // namespace symflow::io
