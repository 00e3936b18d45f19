// Fuzz target: symflow's own checkpoint files, a JSON `.index` and its
// `.data-00000-of-00001` (io/checkpoint_bundle.hpp). An input is both files: a 4-byte
// little-endian length, the index's bytes, then the data's. Every tensor the index lists
// is read. Bad bytes must be a DataLossError (an UnimplementedError for what symflow
// cannot read; a NotFoundError for the missing shards of an index in TensorFlow's
// format); a tensor that is read must hold exactly the bytes its dims say.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include <symflow/io/checkpoint_bundle.hpp>
#include <symflow/io/checkpoint_paths.hpp>

#include "fuzz_files.hpp"
#include "fuzz_support.hpp"

SYMFLOW_FUZZ_TARGET(checkpoint_bundle) {
  if (size < 4) return 0;
  const std::size_t index_size = std::size_t{data[0]} | (std::size_t{data[1]} << 8) |
                                 (std::size_t{data[2]} << 16) | (std::size_t{data[3]} << 24);
  if (index_size > size - 4) return 0;
  const std::string_view rest(reinterpret_cast<const char*>(data) + 4, size - 4);
  const std::string prefix = (symflow::fuzz::scratch_dir() / "model.ckpt").string();
  symflow::fuzz::write_scratch_file("model.ckpt.index", rest.substr(0, index_size));
  symflow::fuzz::write_scratch_file("model.ckpt.data-00000-of-00001", rest.substr(index_size));
  try {
    const symflow::io::BundleReader reader(prefix);
    for (const auto& [name, entry] : reader.entries()) {
      const symflow::Value v = reader.read(name);
      symflow::fuzz::require(
          v.nbytes() == static_cast<std::size_t>(v.size()) * symflow::dtype_size(v.dtype()),
          "bytes of dims");
    }
  } catch (const symflow::DataLossError&) {
  } catch (const symflow::UnimplementedError&) {
  } catch (const symflow::NotFoundError&) {
  }
  return 0;
}
