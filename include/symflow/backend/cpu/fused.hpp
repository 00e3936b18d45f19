#pragma once
// Fused elementwise clusters on the CPU. A cluster (found by runtime/fusion.hpp) is
// a small program: steps that each apply one elementwise op. It runs in one pass
// over the output, block by block: every step is a tight loop over block-sized
// scratch arrays that stay in L1, so no full-size intermediate is ever written.
// Each element goes through the same op calls, in the same order, as the
// node-by-node kernels, so results are equal bit for bit.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "symflow/backend/fused_program.hpp"
#include "symflow/backend/thread_pool.hpp"
#include "symflow/core/buffer_pool.hpp"
#include "symflow/core/value.hpp"

namespace symflow {

namespace cpu {

// Elements per block: 2 KiB of float32 scratch per buffer (4 KiB of float64).
inline constexpr std::int64_t kFusedBlock = 512;
// The fewest blocks an intra-op thread takes (64K elements): below that, a second
// thread costs more than it saves on memory-bound loops.
inline constexpr std::int64_t kFusedMinBlocksPerTask = 128;

// The compiler vectorises the loop whose trip count is the constant block size
// (GCC's -O2 cost model only vectorises loops that need no scalar epilogue); the
// last, partial block takes the plain loop. __restrict: outputs never alias inputs.
#define SYMFLOW_FUSED_BLOCK_LOOP_BODY                                \
  const Fn f{};                                                      \
  const std::int64_t count = N > 0 ? N : n;                          \
  if constexpr (requires { f(T{}, T{}); }) {                         \
    const T* __restrict x = in[0];                                   \
    const T* __restrict y = in[1];                                   \
    for (std::int64_t k = 0; k < count; ++k) out[k] = f(x[k], y[k]); \
  } else {                                                           \
    const T* __restrict x = in[0];                                   \
    for (std::int64_t k = 0; k < count; ++k) out[k] = f(x[k]);       \
  }

template <class Fn, class T, std::int64_t N>
inline void block_loop(const T* const* in, T* __restrict out, std::int64_t n) {
  SYMFLOW_FUSED_BLOCK_LOOP_BODY
}

// On x86-64 built for the baseline (SSE2), blocks also come in an AVX2 build of the
// same loop, chosen at run time: the steps are bound by their stores, and 32-byte
// vectors halve them. Each step is one IEEE operation per element (no FMA here), so
// the results are the same bits as the SSE2 loop and the node-by-node kernels.
#if (defined(__GNUC__) || defined(__clang__)) && defined(__x86_64__) && !defined(__AVX2__)
#define SYMFLOW_FUSED_AVX2 1
template <class Fn, class T, std::int64_t N>
__attribute__((target("avx2"))) inline void block_loop_avx2(const T* const* in, T* __restrict out,
                                                            std::int64_t n) {
  SYMFLOW_FUSED_BLOCK_LOOP_BODY
}

inline bool cpu_has_avx2() {
  static const bool has = [] {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") != 0;
  }();
  return has;
}
#endif
#undef SYMFLOW_FUSED_BLOCK_LOOP_BODY

template <class Fn, class T>
void elementwise_block(const T* const* in, T* out, std::int64_t n) {
#ifdef SYMFLOW_FUSED_AVX2
  if (cpu_has_avx2()) {
    if (n == kFusedBlock)
      block_loop_avx2<Fn, T, kFusedBlock>(in, out, n);
    else
      block_loop_avx2<Fn, T, 0>(in, out, n);
    return;
  }
#endif
  if (n == kFusedBlock)
    block_loop<Fn, T, kFusedBlock>(in, out, n);
  else
    block_loop<Fn, T, 0>(in, out, n);
}

// The ElementwiseDef of a functor op: Fn{}(x) or Fn{}(x, y) on float and double.
template <class Fn, int Arity, bool Broadcasts = true>
inline constexpr ElementwiseDef elementwise_def{.arity = Arity,
                                                .broadcasts = Broadcasts,
                                                .block_f32 = elementwise_block<Fn, float>,
                                                .block_f64 = elementwise_block<Fn, double>};

// How an input of shape `in` is read at output flat index i when it broadcasts to
// `out` along one contiguous run of axes: element (i / inner) % mid. Same shape:
// mid = size, inner = 1; a scalar: mid = 1; a row vector [C] against [R, C]:
// mid = C, inner = 1; a column [R, 1]: mid = R, inner = C. nullopt for any other
// pattern (e.g. [R, 1, C] against [R, K, C]).
struct BroadcastRun {
  std::int64_t mid = 1;
  std::int64_t inner = 1;
};

inline std::optional<BroadcastRun> broadcast_run(const Dims& in, const Dims& out) {
  if (in.size() > out.size()) return std::nullopt;
  const std::size_t lead = out.size() - in.size();
  BroadcastRun run;
  int state = 0;  // 0: before the run, 1: inside it, 2: after it
  for (std::size_t axis = 0; axis < out.size(); ++axis) {
    const std::int64_t o = out[axis];
    const std::int64_t d = axis < lead ? 1 : in[axis - lead];
    if (d != o && d != 1) return std::nullopt;
    if (o == 1) continue;  // says nothing about the layout
    if (d == o) {
      if (state == 2) return std::nullopt;
      state = 1;
      run.mid *= o;
    } else {
      if (state == 1) state = 2;
      if (state == 2) run.inner *= o;
    }
  }
  return run;
}

namespace fused_detail {

// Copies elements [start, start + len) of the broadcast view of `src` into `dst`.
template <class T>
void gather_block(const T* src, BroadcastRun run, std::int64_t start, std::int64_t len, T* dst) {
  std::int64_t j = (start / run.inner) % run.mid;  // current source element
  std::int64_t r = start % run.inner;              // position within its repeat
  for (std::int64_t k = 0; k < len;) {
    if (run.inner == 1) {
      const std::int64_t take = std::min(run.mid - j, len - k);
      std::copy_n(src + j, take, dst + k);
      k += take;
      j = 0;
    } else {
      const std::int64_t take = std::min(run.inner - r, len - k);
      std::fill_n(dst + k, take, src[j]);
      k += take;
      r = 0;
      if (++j == run.mid) j = 0;
    }
  }
}

template <class T>
using BlockFn = void (*)(const T* const*, T*, std::int64_t);

template <class T>
BlockFn<T> block_fn(const ElementwiseDef& def) {
  if constexpr (std::is_same_v<T, float>)
    return def.block_f32;
  else
    return def.block_f64;
}

template <class T>
bool run_fused_as(const FusedProgram& p, std::span<const Value> inputs, const Dims& dims,
                  std::span<Value> outputs, ThreadPool* pool) {
  const std::int64_t n = num_elements(dims);
  enum class Mode { full, constant, gather };
  struct Source {
    const T* data = nullptr;
    BroadcastRun run;
    Mode mode = Mode::full;
    int scratch = -1;
  };
  // Per-call bookkeeping in buffers this thread keeps (a steady run allocates
  // nothing); a call never re-enters itself.
  struct Op {
    BlockFn<T> fn;
    std::size_t first_arg, num_args;
    T* out;       // its output's first element, or null
    int scratch;  // else its block buffer
  };
  struct Workspace {
    std::vector<Source> sources;
    std::vector<std::size_t> arg_ids;
    std::vector<Op> ops;
  };
  thread_local Workspace w;
  std::vector<Source>& sources = w.sources;
  sources.assign(static_cast<std::size_t>(p.num_inputs), Source{});
  int num_scratch = p.num_scratch;
  for (std::size_t e = 0; e < sources.size(); ++e) {
    if (inputs[e].dtype() != p.dtype) return false;
    auto run = broadcast_run(inputs[e].dims(), dims);
    if (!run) return false;
    Source& s = sources[e];
    s.data = inputs[e].data<T>();
    s.run = *run;
    if (run->mid * run->inner == n && run->inner == 1) {
      s.mode = Mode::full;  // read in place
    } else {
      s.mode = run->mid == 1 ? Mode::constant : Mode::gather;
      s.scratch = num_scratch++;
    }
  }
  for (const FusedStep& step : p.steps)
    if (!step.def || !block_fn<T>(*step.def)) return false;

  for (int o = 0; o < p.num_outputs; ++o)
    outputs[static_cast<std::size_t>(o)] = Value::for_overwrite(p.dtype, dims);  // all written
  if (n == 0) return true;

  // Everything a step needs per block, looked up once.
  std::vector<std::size_t>& arg_ids = w.arg_ids;
  arg_ids.clear();
  std::size_t max_args = 0;
  for (const FusedStep& step : p.steps) {
    for (int a : step.args) arg_ids.push_back(static_cast<std::size_t>(a));
    max_args = std::max(max_args, step.args.size());
  }

  std::vector<Op>& ops = w.ops;
  ops.clear();
  std::size_t first_arg = 0;
  for (const FusedStep& step : p.steps) {
    Op op{block_fn<T>(*step.def), first_arg, step.args.size(), nullptr, step.scratch};
    if (step.scratch < 0)
      op.out = outputs[static_cast<std::size_t>(step.output)].template data<T>();
    first_arg += step.args.size();
    ops.push_back(op);
  }

  // Blocks [b0, b1), with block buffers of their own: the blocks are split over the
  // intra-op threads, and every element is computed as on one thread.
  const std::size_t block = static_cast<std::size_t>(kFusedBlock);
  const std::size_t num_operands = sources.size() + p.steps.size();
  const std::int64_t blocks = (n + kFusedBlock - 1) / kFusedBlock;
  const bool split = pool && blocks >= 2 * kFusedMinBlocksPerTask;
  const std::size_t tasks =
      split ? static_cast<std::size_t>(pool->num_chunks(blocks, kFusedMinBlocksPerTask)) : 1;
  // Every task's buffers in one piece, taken before the split (see num_chunks).
  const std::size_t scratch_size = static_cast<std::size_t>(num_scratch) * block;
  const std::size_t args_size = std::max<std::size_t>(1, max_args);
  symflow::detail::PooledArray<T> all_scratch(tasks * scratch_size);
  symflow::detail::PooledArray<const T*> all_pointers(tasks * (num_operands + args_size));
  auto run_blocks = [&](std::int64_t task, std::int64_t b0, std::int64_t b1) {
    T* scratch = all_scratch.data() + static_cast<std::size_t>(task) * scratch_size;
    const T** operand =
        all_pointers.data() + static_cast<std::size_t>(task) * (num_operands + args_size);
    const T** args = operand + num_operands;
    auto buffer = [&](int i) { return scratch + static_cast<std::size_t>(i) * block; };
    for (const Source& s : sources)  // a broadcast scalar is the same block every time
      if (s.mode == Mode::constant) std::fill_n(buffer(s.scratch), block, s.data[0]);
    for (std::int64_t b = b0; b < b1; ++b) {
      const std::int64_t start = b * kFusedBlock;
      const std::int64_t len = std::min(kFusedBlock, n - start);
      for (std::size_t e = 0; e < sources.size(); ++e) {
        const Source& s = sources[e];
        if (s.mode == Mode::full) {
          operand[e] = s.data + start;
        } else {
          if (s.mode == Mode::gather) gather_block(s.data, s.run, start, len, buffer(s.scratch));
          operand[e] = buffer(s.scratch);
        }
      }
      for (std::size_t j = 0; j < ops.size(); ++j) {
        const Op& op = ops[j];
        for (std::size_t a = 0; a < op.num_args; ++a) args[a] = operand[arg_ids[op.first_arg + a]];
        T* out = op.out ? op.out + start : buffer(op.scratch);
        op.fn(args, out, len);
        operand[sources.size() + j] = out;
      }
    }
  };
  if (split)
    pool->parallel_for_chunks(blocks, kFusedMinBlocksPerTask, run_blocks);
  else
    run_blocks(0, 0, blocks);
  return true;
}

}  // namespace fused_detail

// The CPU's FusedKernelFn: float32 and float64 programs.
inline bool run_fused(const FusedProgram& program, std::span<const Value> inputs, const Dims& dims,
                      std::span<Value> outputs, ThreadPool* pool = nullptr) {
  if (program.dtype == DType::float32)
    return fused_detail::run_fused_as<float>(program, inputs, dims, outputs, pool);
  if (program.dtype == DType::float64)
    return fused_detail::run_fused_as<double>(program, inputs, dims, outputs, pool);
  return false;
}

}  // namespace cpu
}  // namespace symflow
