#pragma once
// The descriptor every node points to: what an op type is (name, arity, shape
// function, which inputs are references), with no kernel and no graph. The graph runs
// its shape function; each backend finds its kernel by the descriptor's address
// (backend/cpu/kernel_table.hpp, backend/thrust/).

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "symflow/core/attr_value.hpp"
#include "symflow/core/dtype.hpp"
#include "symflow/core/shape.hpp"
#include "symflow/core/value.hpp"
#include "symflow/detail/config.hpp"

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

using InferFn = std::vector<TensorSpec> (*)(const InferContext&);

struct OpDef {
  std::string_view type;    // "MatMul": the NodeDef's op
  int num_inputs = 0;       // -1 when variadic
  InferFn infer = nullptr;  // build-time shape and dtype inference; throws ValueError
  bool stateful = false;    // never pruned by common-subexpression work, never folded
  // Bit i set: input i must be a reference, and the kernel gets the variable itself
  // (Assign writes through it) instead of a snapshot of its value.
  std::uint32_t ref_inputs = 0;
  // Output 0 aliases input 0 when that is a reference (Identity: "X/read"), so its
  // consumers read the variable when they run, as TensorFlow's aliasing buffers do.
  bool forwards_ref = false;
  // Control flow (docs/control-flow.md). The kernel may leave an output empty: that
  // output is dead in this run (Switch's untaken side), and so is every op that reads
  // it, up to a Merge.
  bool dead_outputs = false;
  // Runs while some inputs are dead (they arrive empty), and is dead only when all of
  // them are: Merge.
  bool reads_dead = false;
  // Runs in every iteration and is never dead, whatever its control inputs are:
  // ControlTrigger, which orders a loop gradient's stack ops across cond branches.
  bool never_dead = false;
  // Takes or makes string tensors. Off by default: a kernel that moves elements as bytes
  // would corrupt std::string objects, so the graph refuses strings for the others.
  bool accepts_strings = false;
  // Takes or makes the storage dtypes (int8 to complex64, core/dtype.hpp): ops that move,
  // cast or save elements without computing in them. The graph refuses them elsewhere.
  bool accepts_storage_dtypes = false;
  // Takes or makes resource handles (TensorArray and stack ops, and the control-flow ops
  // that pass any tensor on); every other op refuses them.
  bool accepts_resources = false;
  // Has no kernel but the CPU's, as TensorFlow's string ops: the placement test expects
  // a GPU kernel for every other op.
  bool host_only = false;

  constexpr bool takes_ref(std::size_t input) const {
    return input < 32 && ((ref_inputs >> input) & 1u) != 0;
  }
};

}  // namespace symflow

// SYMFLOW_OP_DEF(kFooOp, initializer): one OpDef object per program, which backends key
// their kernel tables by. Header-only it is an inline constexpr variable; with
// SYMFLOW_COMPILED (detail/config.hpp) a source only declares it, so that building a
// node compiles none of the op's shape function, and the library defines it.
#if !defined(SYMFLOW_COMPILED)
#define SYMFLOW_OP_DEF(name, ...) inline constexpr OpDef name = __VA_ARGS__
#elif defined(SYMFLOW_DEFINING_COMPILED)
#define SYMFLOW_OP_DEF(name, ...) \
  extern const OpDef name;        \
  constexpr OpDef name = __VA_ARGS__
#else
#define SYMFLOW_OP_DEF(name, ...) extern const OpDef name
#endif
