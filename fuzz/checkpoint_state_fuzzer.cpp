// Fuzz target: a checkpoint folder's state file (`checkpoint`, protobuf text that
// train/checkpoint_state.hpp reads). Bad bytes must be a DataLossError naming the file, or
// TensorFlow's ValueError for a state that names no checkpoint; a state that is read names
// its newest checkpoint inside the folder.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include <symflow/train/checkpoint_state.hpp>

#include "fuzz_files.hpp"
#include "fuzz_support.hpp"

SYMFLOW_FUZZ_TARGET(checkpoint_state) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  const std::string dir = symflow::fuzz::scratch_dir().string();
  symflow::fuzz::write_scratch_file("checkpoint", bytes);
  try {
    const auto state = symflow::train::get_checkpoint_state(dir);
    symflow::fuzz::require(state.has_value(), "a state file that exists is read");
    symflow::fuzz::require(!state->model_checkpoint_path.empty(), "a newest checkpoint");
  } catch (const symflow::DataLossError& e) {
    symflow::fuzz::require(std::string(e.what()).find(dir) != std::string::npos,
                           "the error names the file");
  } catch (const symflow::ValueError&) {
  }
  return 0;
}
