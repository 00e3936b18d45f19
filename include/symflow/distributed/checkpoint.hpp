#pragma once
// Checkpoints in a data-parallel job: rank 0 writes them, the other ranks skip the write
// (their variables are equal: they apply the same averaged gradients), and every rank
// learns the checkpoint's path once it is on disk, so that a restore that follows (on a
// shared file system, or the same machine) finds it. The Saver, latest_checkpoint and
// restore are unchanged: every rank restores with Saver::restore.

#include <cstdint>
#include <cstring>
#include <exception>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "symflow/backend/collective_engine.hpp"
#include "symflow/core/errors.hpp"
#include "symflow/runtime/session.hpp"
#include "symflow/train/saver.hpp"

namespace symflow::distributed {

namespace detail {
inline std::shared_ptr<CollectiveEngine> checkpoint_engine() {
  std::shared_ptr<CollectiveEngine> engine = collective_engine();
  if (!engine)
    throw ValueError(
        "symflow::distributed::save_on_root: not initialized; call "
        "symflow::distributed::init() first");
  return engine;
}
}  // namespace detail

// Saver::save on root_rank only (at "<save_path>-<global_step>" when a step is given);
// returns the checkpoint's prefix on every rank, after root has written it (a collective:
// every rank must call it). When root's save fails, root rethrows its error and the other
// ranks raise AbortedError with its message.
inline std::string save_on_root(train::Saver& saver, Session& sess, const std::string& save_path,
                                std::optional<std::int64_t> global_step = std::nullopt,
                                int root_rank = 0) {
  std::shared_ptr<CollectiveEngine> engine = detail::checkpoint_engine();
  const bool root = engine->rank() == root_rank;
  std::string text;  // root: the prefix, or the error's message
  std::exception_ptr failure;
  if (root) {
    try {
      text = global_step ? saver.save(sess, save_path, *global_step) : saver.save(sess, save_path);
    } catch (const std::exception& e) {
      failure = std::current_exception();
      text = e.what();
    }
  }
  // Root tells the others whether it saved and how long its text is, then the text.
  std::uint64_t header[2] = {failure ? 1u : 0u, text.size()};
  CollectivePart header_part{header, header, sizeof header};
  engine->broadcast({&header_part, 1}, root_rank, "save_on_root");
  text.resize(header[1]);
  CollectivePart text_part{text.data(), text.data(), text.size()};
  engine->broadcast({&text_part, 1}, root_rank, "save_on_root");
  if (failure) std::rethrow_exception(failure);
  if (header[0] != 0)
    throw AbortedError(
        "Rank " + std::to_string(root_rank) + " failed to save the checkpoint: " + text,
        "save_on_root");
  return text;
}

}  // namespace symflow::distributed
