#pragma once
// The descriptor every node points to: its op type's one registry entry. The graph
// only needs shape inference from it; kernels are looked up by the runtime.

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "symflow/core/attr_value.hpp"
#include "symflow/core/dtype.hpp"
#include "symflow/core/shape.hpp"
#include "symflow/core/value.hpp"

namespace symflow {

// The static type of one tensor: what shape inference knows at build time.
struct TensorSpec {
  DType dtype = DType::invalid;
  Shape shape = Shape::unknown();
  // A reference to a variable's state (TensorFlow's float32_ref): consumers read
  // the variable's value when they run, or write it when they take it by reference.
  bool is_ref = false;
};

// What an op's shape function sees: its inputs' specs, its attrs, and the values of
// inputs that are constants (so Reshape can read its target shape).
struct InferContext {
  std::span<const TensorSpec> inputs;
  const AttrMap& attrs;
  std::span<const Value* const> constant_inputs;  // nullptr where not a Const

  const Shape& shape(std::size_t i) const { return inputs[i].shape; }
  DType dtype(std::size_t i) const { return inputs[i].dtype; }
  const Value* constant(std::size_t i) const { return constant_inputs[i]; }
  template <class T>
  const T& attr(std::string_view name) const {
    return get_attr<T>(attrs, name);
  }
};

class KernelContext;  // backend/kernel_context.hpp

using InferFn = std::vector<TensorSpec> (*)(const InferContext&);
using KernelFn = void (*)(KernelContext&);

// How ops/*.hpp define their CPU kernels: `SYMFLOW_CPU_KERNEL(name) { body }`, or
// `SYMFLOW_CPU_KERNEL_TEMPLATE(name, class Fn) { body }` for a family of them.
//
// By default they are inline, as the rest of the library. Their bodies instantiate
// most of the library's templates (Eigen's products, a lambda per dtype), which costs
// every source file that includes the ops about 15 s of g++ time whether it runs a
// kernel or not. A program can compile them once instead: every source defines
// SYMFLOW_SEPARATE_CPU_KERNELS, and exactly one of them includes
// symflow/backend/cpu/define_kernels.hpp (the CMake targets do both, see
// cmake/SymflowCpuKernels.cmake). The other sources then only declare the kernels;
// each body becomes an uninstantiated template, which g++ parses but never compiles.
#if defined(SYMFLOW_DEFINE_CPU_KERNELS)
#define SYMFLOW_CPU_KERNEL(name) void name(::symflow::KernelContext& ctx)
#define SYMFLOW_CPU_KERNEL_TEMPLATE(name, ...) \
  template <__VA_ARGS__>                       \
  void name(::symflow::KernelContext& ctx)
#elif defined(SYMFLOW_SEPARATE_CPU_KERNELS)
#define SYMFLOW_CPU_KERNEL(name)            \
  void name(::symflow::KernelContext& ctx); \
  template <class>                          \
  [[maybe_unused]] void name##_body_unused_(::symflow::KernelContext& ctx)
#define SYMFLOW_CPU_KERNEL_TEMPLATE(name, ...) \
  template <__VA_ARGS__>                       \
  void name(::symflow::KernelContext& ctx);    \
  template <class, __VA_ARGS__>                \
  [[maybe_unused]] void name##_body_unused_(::symflow::KernelContext& ctx)
#else
#define SYMFLOW_CPU_KERNEL(name) inline void name(::symflow::KernelContext& ctx)
#define SYMFLOW_CPU_KERNEL_TEMPLATE(name, ...) \
  template <__VA_ARGS__>                       \
  void name(::symflow::KernelContext& ctx)
#endif

// How an elementwise op computes a block of elements, for the fused clusters of
// runtime/fusion.hpp: out[k] = op(in[0][k], ..., in[arity - 1][k]) for k < n. `out`
// never aliases an input. An op opts in through OpDef::elementwise.
struct ElementwiseDef {
  int arity = 0;
  // False for ops whose kernel requires equal input shapes (ReluGrad, ...): a cluster
  // then runs them fused only when the shapes are equal, so errors stay the kernel's.
  bool broadcasts = true;
  void (*block_f32)(const float* const* in, float* out, std::int64_t n) = nullptr;
  void (*block_f64)(const double* const* in, double* out, std::int64_t n) = nullptr;
};

struct OpDef {
  std::string_view type;    // "MatMul": the NodeDef's op
  int num_inputs = 0;       // -1 when variadic
  InferFn infer = nullptr;  // build-time shape and dtype inference; throws ValueError
  KernelFn cpu_kernel = nullptr;
  bool stateful = false;  // never pruned by common-subexpression work, never folded
  // Bit i set: input i must be a reference, and the kernel gets the variable itself
  // (Assign writes through it) instead of a snapshot of its value.
  std::uint32_t ref_inputs = 0;
  // Output 0 aliases input 0 when that is a reference (Identity: "X/read"), so its
  // consumers read the variable when they run, as TensorFlow's aliasing buffers do.
  bool forwards_ref = false;
  // Set on elementwise ops whose float nodes may be fused with their neighbours.
  const ElementwiseDef* elementwise = nullptr;

  constexpr bool takes_ref(std::size_t input) const {
    return input < 32 && ((ref_inputs >> input) & 1u) != 0;
  }
};

}  // namespace symflow
