#pragma once
// Fused elementwise clusters on the device: one pass over the output.
//
// A FusedProgram (backend/fused_program.hpp) names each step's op by its ElementwiseDef,
// a host table: the one this backend's kernel table gives the op (Backend::elementwise),
// which is the CPU's (detail::elementwise_of, backend/cpu/kernel_table.hpp: one object
// per functor in a program). Here each step becomes a small op code (the X-macro list
// below), and the whole program (codes, operands, output pointers, each input's pointer
// and broadcast strides) goes to the device as one buffer of words. One thrust::for_each
// over the output then evaluates, per element, every step in order into a local array
// and stores the materialised ones: no intermediate is ever written to memory.
//
// Each step calls the very functor the node kernels call (ops/defs/*.hpp), on the same
// operand values in the same precision, so fused results equal the node-by-node ones
// bit for bit.

#include <cstdint>
#include <cstring>
#include <span>
#include <vector>

#include "symflow/backend/cpu/kernel_table.hpp"
#include "symflow/backend/fused_program.hpp"
#include "symflow/backend/thrust/broadcast.cuh"
#include "symflow/backend/thrust/kernel_util.cuh"
#include "symflow/ops/defs/math.hpp"
#include "symflow/ops/defs/nn.hpp"

namespace symflow::thrust_backend {

namespace fused_detail {

// A program runs fused when it has at most this many inputs and this many steps (each
// element keeps all their values in a local array).
inline constexpr int kMaxFusedInputs = 32;
inline constexpr int kMaxFusedSteps = 32;

// The ops a fused step may apply: X(code name, functor, arity, broadcasts). A step's op
// is recognised by its ElementwiseDef, elementwise_of<functor, arity, broadcasts>(): the
// kernel tables (kernels_elementwise.cuh) give each of these ops exactly that one, and
// no other op one (thrust_backend.cuh checks both), so an op missing here never fuses.
#define SYMFLOW_THRUST_FUSED_OPS(X)                  \
  X(Add, AddFn, 2, true)                             \
  X(Sub, SubFn, 2, true)                             \
  X(Mul, MulFn, 2, true)                             \
  X(RealDiv, RealDivFn, 2, true)                     \
  X(Div, DivFn, 2, true)                             \
  X(Pow, PowFn, 2, true)                             \
  X(Maximum, MaximumFn, 2, true)                     \
  X(Minimum, MinimumFn, 2, true)                     \
  X(SquaredDifference, SquaredDifferenceFn, 2, true) \
  X(AddV2, AddV2Fn, 2, true)                         \
  X(FloorDiv, FloorDivFn, 2, true)                   \
  X(FloorMod, FloorModFn, 2, true)                   \
  X(Mod, ModFn, 2, true)                             \
  X(DivNoNan, DivNoNanFn, 2, true)                   \
  X(Neg, NegFn, 1, true)                             \
  X(Square, SquareFn, 1, true)                       \
  X(Abs, AbsFn, 1, true)                             \
  X(Sqrt, SqrtFn, 1, true)                           \
  X(Exp, ExpFn, 1, true)                             \
  X(Log, LogFn, 1, true)                             \
  X(Sign, SignFn, 1, true)                           \
  X(Cos, CosFn, 1, true)                             \
  X(Sin, SinFn, 1, true)                             \
  X(Ceil, CeilFn, 1, true)                           \
  X(Round, RoundFn, 1, true)                         \
  X(Floor, FloorFn, 1, true)                         \
  X(Log1p, Log1pFn, 1, true)                         \
  X(Rsqrt, RsqrtFn, 1, true)                         \
  X(Reciprocal, ReciprocalFn, 1, true)               \
  X(Relu, ReluFn, 1, true)                           \
  X(Relu6, Relu6Fn, 1, true)                         \
  X(Elu, EluFn, 1, true)                             \
  X(Sigmoid, SigmoidFn, 1, true)                     \
  X(Tanh, TanhFn, 1, true)                           \
  X(ReluGrad, ReluGradFn, 2, false)                  \
  X(Relu6Grad, Relu6GradFn, 2, false)                \
  X(EluGrad, EluGradFn, 2, false)                    \
  X(SigmoidGrad, SigmoidGradFn, 2, false)            \
  X(TanhGrad, TanhGradFn, 2, false)                  \
  X(RsqrtGrad, RsqrtGradFn, 2, false)                \
  X(ReciprocalGrad, ReciprocalGradFn, 2, false)

enum class OpCode : std::int64_t {
#define SYMFLOW_X(name, fn, arity, broadcasts) name,
  SYMFLOW_THRUST_FUSED_OPS(SYMFLOW_X)
#undef SYMFLOW_X
};

// How many ops the list has.
constexpr int num_fused_ops() {
  int n = 0;
#define SYMFLOW_X(name, fn, arity, broadcasts) ++n;
  SYMFLOW_THRUST_FUSED_OPS(SYMFLOW_X)
#undef SYMFLOW_X
  return n;
}

// Fn applied to one operand or two.
template <int Arity>
struct Apply;
template <>
struct Apply<1> {
  template <class Fn, class T>
  SYMFLOW_HD static T run(T a, T) {
    return Fn{}(a);
  }
};
template <>
struct Apply<2> {
  template <class Fn, class T>
  SYMFLOW_HD static T run(T a, T b) {
    return Fn{}(a, b);
  }
};

template <class T>
SYMFLOW_HD inline T apply_op(std::int64_t code, T a, T b) {
  switch (static_cast<OpCode>(code)) {
#define SYMFLOW_X(name, fn, arity, broadcasts) \
  case OpCode::name:                           \
    return Apply<arity>::template run<symflow::detail::fn>(a, b);
    SYMFLOW_THRUST_FUSED_OPS(SYMFLOW_X)
#undef SYMFLOW_X
  }
  return T{};
}

// A step's op code and arity, or false for an op with no code here.
struct OpInfo {
  OpCode code;
  int arity;
};
constexpr bool op_info(const ElementwiseDef* def, OpInfo& info) {
  if (!def) return false;
#define SYMFLOW_X(name, fn, a, broadcasts)                                            \
  if (def == symflow::detail::elementwise_of<symflow::detail::fn, a, broadcasts>()) { \
    info = {OpCode::name, a};                                                         \
    return true;                                                                      \
  }
  SYMFLOW_THRUST_FUSED_OPS(SYMFLOW_X)
#undef SYMFLOW_X
  return false;
}

// How an input is read at output index i.
enum Mode : std::int64_t {
  kFull = 0,     // element i (the output's shape)
  kScalar = 1,   // element 0
  kStrided = 2,  // broadcast_offset(i) with its strides
};

// The program as words (one device buffer), all offsets in words:
//   [0] num_inputs  [1] num_steps  [2] rank
//   dims[rank]
//   per input:  mode, pointer, strides[rank]
//   per step:   code, arg0, arg1, output pointer (0: not materialised)
// Operand k < num_inputs is input k; operand num_inputs + j is step j's result.
inline constexpr std::int64_t kHeaderWords = 3;
inline constexpr std::int64_t kStepWords = 4;

inline std::int64_t pointer_word(const void* p) {
  std::int64_t w = 0;
  static_assert(sizeof(p) <= sizeof(w));
  std::memcpy(&w, &p, sizeof(p));
  return w;
}

template <class T>
struct FusedMap {
  const std::int64_t* words;  // the program, on the device

  SYMFLOW_HD void operator()(std::int64_t i) const {
    const int num_inputs = static_cast<int>(words[0]);
    const int num_steps = static_cast<int>(words[1]);
    const int rank = static_cast<int>(words[2]);
    const std::int64_t* dims = words + kHeaderWords;
    const std::int64_t* w = dims + rank;
    T value[kMaxFusedInputs + kMaxFusedSteps];
    for (int k = 0; k < num_inputs; ++k, w += 2 + rank) {
      const T* data = reinterpret_cast<const T*>(static_cast<std::intptr_t>(w[1]));
      const std::int64_t mode = w[0];
      const std::int64_t at = mode == kFull     ? i
                              : mode == kScalar ? 0
                                                : broadcast_offset(i, rank, dims, w + 2);
      value[k] = data[at];
    }
    for (int j = 0; j < num_steps; ++j, w += kStepWords) {
      const T a = value[w[1]];
      const T b = value[w[2] < 0 ? w[1] : w[2]];
      const T r = apply_op<T>(w[0], a, b);
      value[num_inputs + j] = r;
      if (w[3] != 0) reinterpret_cast<T*>(static_cast<std::intptr_t>(w[3]))[i] = r;
    }
  }
};

template <class T>
bool run_fused_as(const FusedProgram& p, std::span<const Value> inputs, const Dims& dims,
                  std::span<Value> outputs) {
  const int num_inputs = p.num_inputs;
  const int num_steps = static_cast<int>(p.steps.size());
  if (num_inputs > kMaxFusedInputs || num_steps > kMaxFusedSteps) return false;
  if (inputs.size() != static_cast<std::size_t>(num_inputs)) return false;
  if (outputs.size() < static_cast<std::size_t>(p.num_outputs)) return false;

  // Each step's code and operands; every check before anything is allocated.
  std::vector<OpInfo> info(static_cast<std::size_t>(num_steps));
  for (int j = 0; j < num_steps; ++j) {
    const FusedStep& step = p.steps[static_cast<std::size_t>(j)];
    OpInfo& op = info[static_cast<std::size_t>(j)];
    if (!op_info(step.def, op) || static_cast<int>(step.args.size()) != op.arity) return false;
    for (int a : step.args)
      if (a < 0 || a >= num_inputs + j) return false;  // an input or an earlier step
    if (step.output >= p.num_outputs) return false;
  }
  std::vector<const Dims*> shapes;
  for (const Value& v : inputs) {
    if (v.dtype() != p.dtype || !v.on_device()) return false;
    shapes.push_back(&v.dims());
  }
  auto layout = broadcast_layout(dims, shapes);
  if (!layout) return false;

  for (int o = 0; o < p.num_outputs; ++o)
    outputs[static_cast<std::size_t>(o)] = empty_device_value(p.dtype, dims);
  const std::int64_t n = num_elements(dims);
  if (n == 0) return true;

  const std::int64_t rank = layout->rank();
  std::vector<std::int64_t> words{num_inputs, num_steps, rank};
  words.insert(words.end(), layout->dims.begin(), layout->dims.end());
  for (int k = 0; k < num_inputs; ++k) {
    const Value& v = inputs[static_cast<std::size_t>(k)];
    const Mode mode = v.size() == n ? kFull : v.size() == 1 ? kScalar : kStrided;
    words.push_back(mode);
    words.push_back(pointer_word(v.device_data<T>()));
    const auto& s = layout->strides[static_cast<std::size_t>(k)];
    words.insert(words.end(), s.begin(), s.end());
  }
  for (int j = 0; j < num_steps; ++j) {
    const FusedStep& step = p.steps[static_cast<std::size_t>(j)];
    words.push_back(static_cast<std::int64_t>(info[static_cast<std::size_t>(j)].code));
    words.push_back(step.args[0]);
    words.push_back(step.args.size() > 1 ? step.args[1] : -1);
    words.push_back(
        step.output >= 0
            ? pointer_word(outputs[static_cast<std::size_t>(step.output)].template device_data<T>())
            : 0);
  }
  const Value program =
      copy_to_device(Value::from_vector(words, Dims{static_cast<std::int64_t>(words.size())}));
  thrust::for_each_n(policy(), thrust::counting_iterator<std::int64_t>(0), n,
                     FusedMap<T>{program.device_data<std::int64_t>()});
  return true;
}

}  // namespace fused_detail

#undef SYMFLOW_THRUST_FUSED_OPS

// The GPU's FusedKernelFn: float32 and float64 programs of at most kMaxFusedInputs
// inputs and kMaxFusedSteps steps; others run node by node.
inline bool run_fused(const FusedProgram& program, std::span<const Value> inputs, const Dims& dims,
                      std::span<Value> outputs, ThreadPool* = nullptr) {
  if (program.dtype == DType::float32)
    return fused_detail::run_fused_as<float>(program, inputs, dims, outputs);
  if (program.dtype == DType::float64)
    return fused_detail::run_fused_as<double>(program, inputs, dims, outputs);
  return false;
}

}  // namespace symflow::thrust_backend
