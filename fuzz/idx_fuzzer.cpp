// Fuzz target: IDX files (MNIST's format, data/idx.hpp), after gunzip. Bad bytes must be a
// DataLossError naming the file (an UnimplementedError for an element type other than
// bytes); a value that is read must hold exactly the elements its dims say, so that
// nothing past its buffer is ever touched.
#include <cstddef>
#include <cstdint>
#include <vector>

#include <symflow/data/idx.hpp>

#include "fuzz_support.hpp"

SYMFLOW_FUZZ_TARGET(idx) {
  const std::vector<unsigned char> bytes(data, data + size);
  try {
    const symflow::Value v = symflow::data::parse_idx(bytes, "fuzz.idx");
    symflow::fuzz::require(v.size() == symflow::num_elements(v.dims()), "element count of dims");
    symflow::fuzz::require(
        v.nbytes() == static_cast<std::size_t>(v.size()) * symflow::dtype_size(v.dtype()),
        "bytes of dims");
    // The header's 4 bytes, 4 per dim, then every element: nothing more, nothing less.
    symflow::fuzz::require(size == 4 + 4 * v.dims().size() + v.nbytes(), "file holds the value");
  } catch (const symflow::DataLossError&) {
  } catch (const symflow::UnimplementedError&) {
  }
  return 0;
}
