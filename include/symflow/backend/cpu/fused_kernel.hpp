#pragma once
// The CPU's fused kernel: runs a FusedProgram (a cluster of elementwise nodes that
// runtime/fusion.hpp found) in one pass over its output, block by block. Each step is
// a tight loop over one block (fused.hpp), its result in a block buffer that stays in
// L1; two steps that pair (fused_pairs.hpp) run as one loop with the link between them
// in a register. No full-size intermediate is ever written, and every element goes
// through the same op calls, in the same order, as the node-by-node kernels, so the
// results are equal bit for bit. A run that touches more memory than the last-level
// cache holds streams its outputs past the caches (streaming_store.hpp): each output
// block is made in a block buffer, then copied out with streaming stores.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "symflow/backend/cpu/fused.hpp"
#include "symflow/backend/cpu/fused_pairs.hpp"
#include "symflow/backend/cpu/streaming_store.hpp"
#include "symflow/backend/fused_program.hpp"
#include "symflow/backend/thread_pool.hpp"
#include "symflow/core/buffer_pool.hpp"
#include "symflow/core/value.hpp"

namespace symflow::cpu {

namespace fused_detail {

// One loop of the block program: a step, or a pair of steps merged.
template <class T>
struct BlockOp {
  BlockFn<T> fn = nullptr;
  int num_args = 0;
  int arg[3] = {};   // operands: input e < num_inputs, or num_inputs + j for step j's result
  int result = 0;    // the operand this loop writes
  int output = -1;   // index among the program's outputs, or -1 ...
  int scratch = -1;  // ... and then its block buffer
  T* out = nullptr;  // the output's first element
  int stage = -1;    // when streaming: the block buffer an output is made in
};

// Per-call bookkeeping in buffers this thread keeps, so a steady run allocates
// nothing; a call never re-enters itself.
template <class T>
struct Workspace {
  std::vector<BlockOp<T>> ops;
  std::vector<int> uses, reader, inner_of, last_use, buffer_of, free_buffers;
  std::vector<char> absorbed;
};

// This thread's workspace for programs of T: after a run, its ops are the block
// program that ran (tests read it).
template <class T>
Workspace<T>& workspace() {
  thread_local Workspace<T> w;
  return w;
}

// The block program of `p`: its steps in order, a step whose result only one other step
// reads merged into that one where the two pair, and block buffers assigned anew (an
// inner step needs none; a buffer is reused once its value is dead, never by a loop
// that reads it, as the loops assume no aliasing). Returns the number of buffers, or -1
// when a step has no block loop for T.
template <class T>
int plan_block_program(const FusedProgram& p, Workspace<T>& w) {
  const int inputs = p.num_inputs;
  const std::size_t operands = static_cast<std::size_t>(inputs) + p.steps.size();
  w.uses.assign(operands, 0);
  for (const FusedStep& step : p.steps)
    for (int a : step.args) ++w.uses[static_cast<std::size_t>(a)];

  // Each step's one reader, when it has exactly one; then whether a pair takes it as
  // its inner step (absorbed), or as its outer step (the inner step's index).
  w.reader.assign(p.steps.size(), -1);
  for (std::size_t k = 0; k < p.steps.size(); ++k)
    for (int a : p.steps[k].args)
      if (a >= inputs) w.reader[static_cast<std::size_t>(a - inputs)] = static_cast<int>(k);
  w.inner_of.assign(p.steps.size(), -1);
  w.absorbed.assign(p.steps.size(), 0);
  for (std::size_t j = 0; j < p.steps.size(); ++j) {
    const FusedStep& step = p.steps[j];
    const int self = inputs + static_cast<int>(j);
    const int k = w.reader[j];
    if (k < 0 || step.output >= 0 || step.args.size() != 2 || !step.def ||
        w.uses[static_cast<std::size_t>(self)] != 1 || w.inner_of[j] >= 0)
      continue;
    const auto outer = static_cast<std::size_t>(k);
    const FusedStep& next = p.steps[outer];
    if (w.inner_of[outer] >= 0 || next.args.size() != 2 || !next.def) continue;
    const int pos = next.args[0] == self ? 0 : 1;
    if (fused_pair<T>(next.def, step.def, pos) == nullptr) continue;
    w.inner_of[outer] = static_cast<int>(j);
    w.absorbed[j] = 1;
  }

  // The loops, each at its (outer) step's place: an inner step's operands are computed
  // before it, and the buffers below keep them alive until the pair runs.
  w.ops.clear();
  for (std::size_t k = 0; k < p.steps.size(); ++k) {
    const FusedStep& step = p.steps[k];
    if (!step.def || step.args.size() > 2) return -1;
    BlockFn<T> fn = block_fn<T>(*step.def);
    if (!fn) return -1;
    if (w.absorbed[k]) continue;
    BlockOp<T> op{.result = inputs + static_cast<int>(k), .output = step.output};
    if (const int j = w.inner_of[k]; j >= 0) {
      const FusedStep& inner = p.steps[static_cast<std::size_t>(j)];
      const int pos = step.args[0] == inputs + j ? 0 : 1;
      op.fn = fused_pair<T>(step.def, inner.def, pos);
      op.num_args = 3;
      op.arg[0] = inner.args[0];
      op.arg[1] = inner.args[1];
      op.arg[2] = step.args[static_cast<std::size_t>(1 - pos)];
    } else {
      op.fn = fn;
      op.num_args = static_cast<int>(step.args.size());
      for (std::size_t a = 0; a < step.args.size(); ++a) op.arg[a] = step.args[a];
    }
    w.ops.push_back(op);
  }

  w.last_use.assign(operands, -1);
  for (std::size_t i = 0; i < w.ops.size(); ++i)
    for (int a = 0; a < w.ops[i].num_args; ++a)
      w.last_use[static_cast<std::size_t>(w.ops[i].arg[a])] = static_cast<int>(i);
  w.buffer_of.assign(operands, -1);
  w.free_buffers.clear();
  int buffers = 0;
  for (std::size_t i = 0; i < w.ops.size(); ++i) {
    BlockOp<T>& op = w.ops[i];
    if (op.output < 0) {
      if (w.free_buffers.empty()) {
        op.scratch = buffers++;
      } else {
        op.scratch = w.free_buffers.back();
        w.free_buffers.pop_back();
      }
      w.buffer_of[static_cast<std::size_t>(op.result)] = op.scratch;
    }
    for (int a = 0; a < op.num_args; ++a) {
      const auto arg = static_cast<std::size_t>(op.arg[a]);
      if (w.last_use[arg] != static_cast<int>(i) || w.buffer_of[arg] < 0) continue;
      w.free_buffers.push_back(w.buffer_of[arg]);
      w.buffer_of[arg] = -1;  // freed once, even when read twice (x * x)
    }
  }
  return buffers;
}

// Runs `p`; its outputs are streamed when the inputs read in full and the outputs
// together take at least `stream_min_bytes`.
template <class T>
bool run_fused_as(const FusedProgram& p, std::span<const Value> inputs, const Dims& dims,
                  std::span<Value> outputs, ThreadPool* pool, std::size_t stream_min_bytes) {
  const std::int64_t n = num_elements(dims);
  enum class Mode { full, constant, gather };
  struct Source {
    const T* data = nullptr;
    BroadcastRun run;
    Mode mode = Mode::full;
    int scratch = -1;
  };
  struct Sources {
    std::vector<Source> all;
    std::vector<int> full, gather;  // indices into `all`
  };
  Workspace<T>& w = workspace<T>();
  thread_local Sources src;
  const int buffers = plan_block_program(p, w);
  if (buffers < 0) return false;

  int num_scratch = buffers;
  src.all.assign(static_cast<std::size_t>(p.num_inputs), Source{});
  src.full.clear();
  src.gather.clear();
  for (std::size_t e = 0; e < src.all.size(); ++e) {
    if (inputs[e].dtype() != p.dtype) return false;
    auto run = broadcast_run(inputs[e].dims(), dims);
    if (!run) return false;
    Source& s = src.all[e];
    s.data = inputs[e].data<T>();
    s.run = *run;
    if (run->mid * run->inner == n && run->inner == 1) {
      s.mode = Mode::full;  // read in place
      src.full.push_back(static_cast<int>(e));
    } else {
      s.mode = run->mid == 1 ? Mode::constant : Mode::gather;
      s.scratch = num_scratch++;
      if (s.mode == Mode::gather) src.gather.push_back(static_cast<int>(e));
    }
  }

  for (int o = 0; o < p.num_outputs; ++o)
    outputs[static_cast<std::size_t>(o)] = Value::for_overwrite(p.dtype, dims);  // all written
  if (n == 0) return true;
  const std::size_t bytes = static_cast<std::size_t>(n) * sizeof(T);
  bool stream =
      kHasStreamingStores &&
      (src.full.size() + static_cast<std::size_t>(p.num_outputs)) * bytes >= stream_min_bytes;
  for (BlockOp<T>& op : w.ops) {
    op.out = nullptr;
    op.stage = -1;
    if (op.output < 0) continue;
    op.out = outputs[static_cast<std::size_t>(op.output)].template data<T>();
    stream = stream && streamable(op.out);
  }
  // A streamed output's block stays in its buffer for the steps that read it after.
  if (stream)
    for (BlockOp<T>& op : w.ops)
      if (op.out) op.stage = num_scratch++;

  // Blocks [b0, b1), with block buffers of their own: the blocks are split over the
  // intra-op threads, and every element is computed as on one thread.
  const std::size_t block = static_cast<std::size_t>(kFusedBlock);
  const std::size_t num_operands = src.all.size() + p.steps.size();
  const std::int64_t blocks = (n + kFusedBlock - 1) / kFusedBlock;
  const bool split = pool && blocks >= 2 * kFusedMinBlocksPerTask;
  const std::size_t tasks =
      split ? static_cast<std::size_t>(pool->num_chunks(blocks, kFusedMinBlocksPerTask)) : 1;
  // Every task's buffers in one piece, taken before the split (see num_chunks).
  const std::size_t scratch_size = static_cast<std::size_t>(num_scratch) * block;
  // Each task's operand pointers on cache lines of their own: they are written for
  // every loop, and two threads writing one line would pass it back and forth.
  const std::size_t pointers_size = (num_operands + 3 + 7) / 8 * 8;
  symflow::detail::PooledArray<T> all_scratch(tasks * scratch_size);
  symflow::detail::PooledArray<const T*> all_pointers(tasks * pointers_size);
  // What the block loop reads, in locals: the loops it calls are opaque to the compiler,
  // which would otherwise load the vectors' bounds again after each of them.
  const BlockOp<T>* const first_op = w.ops.data();
  const BlockOp<T>* const last_op = first_op + w.ops.size();
  const Source* const all_sources = src.all.data();
  const std::size_t num_sources = src.all.size();
  const int* const full = src.full.data();
  const std::size_t num_full = src.full.size();
  const int* const gather = src.gather.data();
  const std::size_t num_gather = src.gather.size();
  auto run_blocks = [=, &all_scratch, &all_pointers](std::int64_t task, std::int64_t b0,
                                                     std::int64_t b1) {
    T* const scratch = all_scratch.data() + static_cast<std::size_t>(task) * scratch_size;
    const T** const operand = all_pointers.data() + static_cast<std::size_t>(task) * pointers_size;
    const T** const args = operand + num_operands;
    std::fill_n(operand, pointers_size, nullptr);
    auto buffer = [&](int i) { return scratch + static_cast<std::size_t>(i) * block; };
    for (std::size_t e = 0; e < num_sources; ++e) {
      const Source& s = all_sources[e];
      if (s.mode == Mode::full) continue;
      // A broadcast scalar is the same block every time.
      if (s.mode == Mode::constant) std::fill_n(buffer(s.scratch), block, s.data[0]);
      operand[e] = buffer(s.scratch);
    }
    for (std::int64_t b = b0; b < b1; ++b) {
      const std::int64_t start = b * kFusedBlock;
      const std::int64_t len = std::min(kFusedBlock, n - start);
      for (std::size_t i = 0; i < num_full; ++i)
        operand[full[i]] = all_sources[full[i]].data + start;
      for (std::size_t i = 0; i < num_gather; ++i) {
        const Source& s = all_sources[gather[i]];
        gather_block(s.data, s.run, start, len, buffer(s.scratch));
      }
      for (const BlockOp<T>* op = first_op; op != last_op; ++op) {
        args[0] = operand[op->arg[0]];  // unused arguments read slot 0, harmlessly
        args[1] = operand[op->arg[1]];
        args[2] = operand[op->arg[2]];
        T* const out = op->stage >= 0 ? buffer(op->stage)
                       : op->out      ? op->out + start
                                      : buffer(op->scratch);
        op->fn(args, out, len);
        if (op->stage >= 0) stream_copy(out, op->out + start, len);
        operand[op->result] = out;
      }
    }
    if (stream) streaming_fence();  // before the pool hears that this task is done
  };
  if (split)
    pool->parallel_for_chunks(blocks, kFusedMinBlocksPerTask, run_blocks);
  else
    run_blocks(0, 0, blocks);
  return true;
}

// run_fused with a chosen streaming threshold (tests force streaming on small runs).
inline bool run_fused_streaming_from(const FusedProgram& program, std::span<const Value> inputs,
                                     const Dims& dims, std::span<Value> outputs, ThreadPool* pool,
                                     std::size_t stream_min_bytes) {
  if (program.dtype == DType::float32)
    return run_fused_as<float>(program, inputs, dims, outputs, pool, stream_min_bytes);
  if (program.dtype == DType::float64)
    return run_fused_as<double>(program, inputs, dims, outputs, pool, stream_min_bytes);
  return false;
}

}  // namespace fused_detail

// The CPU's FusedKernelFn: float32 and float64 programs. Outputs are streamed when the
// run touches at least as many bytes as the last-level cache holds: then they could not
// all stay there anyway, and the reads of write-allocation are saved.
inline bool run_fused(const FusedProgram& program, std::span<const Value> inputs, const Dims& dims,
                      std::span<Value> outputs, ThreadPool* pool = nullptr) {
  return fused_detail::run_fused_streaming_from(program, inputs, dims, outputs, pool,
                                                last_level_cache_bytes());
}

}  // namespace symflow::cpu
