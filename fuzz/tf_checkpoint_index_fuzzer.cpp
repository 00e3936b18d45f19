// Fuzz target: the `.index` file of a TensorFlow V2 checkpoint, a sorted string table of
// protobufs (io/sorted_table.hpp, io/tensor_bundle_tf.hpp). Damaged bytes must be a
// DataLossError, or an UnimplementedError for what symflow cannot read (Snappy blocks in
// a build without Snappy); anything else is a finding.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include <symflow/io/sorted_table.hpp>
#include <symflow/io/tensor_bundle_tf.hpp>

#include "fuzz_support.hpp"

SYMFLOW_FUZZ_TARGET(tf_checkpoint_index) {
  namespace bundle = symflow::io::tf_bundle;
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  try {
    std::string previous;
    bool first = true;
    for (const symflow::io::TableEntry& e : symflow::io::read_sorted_table(bytes, "fuzz.index")) {
      symflow::fuzz::require(first || e.key > previous, "keys strictly increasing");
      first = false;
      previous = e.key;
      if (e.key.empty())
        (void)bundle::parse_header(e.value, "fuzz.index: header");
      else
        (void)bundle::parse_entry(e.value, "fuzz.index: " + e.key);
    }
  } catch (const symflow::DataLossError&) {
  } catch (const symflow::UnimplementedError&) {
  }
  return 0;
}
