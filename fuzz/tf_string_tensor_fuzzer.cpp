// Fuzz target: a DT_STRING tensor's bytes in a TensorFlow checkpoint's data file
// (io/tensor_bundle_tf.hpp's decode_string_tensor). The first byte is the number of
// elements the index would promise, the rest the stored bytes; the entry's CRC is left
// unchecked, so that damaged lengths reach the parser. Damaged bytes must be a
// DataLossError; anything else is a finding.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <symflow/io/tensor_bundle_tf.hpp>

#include "fuzz_support.hpp"

SYMFLOW_FUZZ_TARGET(tf_string_tensor) {
  if (size == 0) return 0;
  const std::int64_t n = data[0];
  const std::string_view raw(reinterpret_cast<const char*>(data) + 1, size - 1);
  try {
    const auto strings = symflow::io::tf_bundle::decode_string_tensor(raw, n, std::nullopt, "fuzz");
    symflow::fuzz::require(strings.size() == static_cast<std::size_t>(n), "one string per element");
    std::size_t bytes = 0;
    for (const std::string& s : strings) bytes += s.size();
    symflow::fuzz::require(bytes + static_cast<std::size_t>(n) + 4 <= raw.size(),
                           "the strings fit in the bytes read");
  } catch (const symflow::DataLossError&) {
  }
  return 0;
}
