#pragma once
// TensorFlow's checkpoint utilities (tf.train.list_variables, load_checkpoint,
// load_variable and the CheckpointReader they return), for symflow's checkpoints and
// TensorFlow's V2 ones alike (io/checkpoint_bundle.hpp reads both). Each takes a
// checkpoint prefix or a directory; a directory means its newest checkpoint, as its
// `checkpoint` state file names it (train/checkpoint_state.hpp).
//
// Declarations only: the definitions (checkpoint_utils_inl.hpp) reach the index reader
// and its JSON library, which a SYMFLOW_COMPILED program compiles once.

#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "symflow/core/dtype.hpp"
#include "symflow/core/shape.hpp"
#include "symflow/core/value.hpp"
#include "symflow/detail/config.hpp"

namespace symflow {

namespace io {
class BundleReader;
}  // namespace io

namespace train {

// tf.train.CheckpointReader (py_checkpoint_reader.NewCheckpointReader): the index is
// read and checked once; tensors are read on request. Copies share the reader.
class CheckpointReader {
 public:
  // NotFoundError "Unsuccessful TensorSliceReader constructor: Failed to find any
  // matching files for <prefix>" when there is no checkpoint at `prefix`.
  SYMFLOW_INLINE explicit CheckpointReader(const std::string& prefix);

  SYMFLOW_INLINE bool has_tensor(std::string_view name) const;

  // NotFoundError "Key <name> not found in checkpoint" for a name it lacks;
  // UnimplementedError for a dtype symflow has no DType for (DT_STRING, ...).
  SYMFLOW_INLINE Value get_tensor(std::string_view name) const;

  // Every tensor's shape, whatever its dtype.
  SYMFLOW_INLINE std::map<std::string, Dims> get_variable_to_shape_map() const;
  // The dtype of every tensor symflow can read; get_variable_to_tf_dtype_map lists all.
  SYMFLOW_INLINE std::map<std::string, DType> get_variable_to_dtype_map() const;
  // Every tensor's TensorFlow dtype name: "DT_FLOAT", "DT_STRING", ...
  SYMFLOW_INLINE std::map<std::string, std::string> get_variable_to_tf_dtype_map() const;

  const std::string& prefix() const { return prefix_; }
  // The index as io/checkpoint_bundle.hpp reads it (include that header to use it).
  const io::BundleReader& bundle() const { return *bundle_; }

 private:
  std::string prefix_;
  std::shared_ptr<const io::BundleReader> bundle_;
};

// tf.train.load_checkpoint: ValueError for a directory without a checkpoint.
SYMFLOW_INLINE CheckpointReader load_checkpoint(const std::string& ckpt_dir_or_prefix);

// tf.train.list_variables: every tensor's name and shape, sorted by name.
SYMFLOW_INLINE std::vector<std::pair<std::string, Dims>> list_variables(
    const std::string& ckpt_dir_or_prefix);

// tf.train.load_variable: one tensor's value; a trailing ":0" of a tensor name is
// dropped, as TensorFlow does.
SYMFLOW_INLINE Value load_variable(const std::string& ckpt_dir_or_prefix, std::string_view name);

}  // namespace train

}  // namespace symflow

#if !defined(SYMFLOW_COMPILED)
#include "symflow/train/checkpoint_utils_inl.hpp"
#endif
