#pragma once
// Python's t[...] on tensors: x[0], x[{1, slice(2, 5)}], x[{ellipsis, newaxis, -1}],
// x[i] with a scalar integer tensor i. Each builds one StridedSlice as TensorFlow's
// tensor.__getitem__ does: its masks, and its begin/end/strides in Consts
// "strided_slice/stack", "stack_1", "stack_2" (a Pack when a tensor index is among them,
// its end `i + 1` built before the slice's name scope, as TensorFlow builds it).
//
//   Python           symflow
//   x[0]             x[0]
//   x[1:3]           x[slice(1, 3)]
//   x[:, 2]          x[{slice(), 2}]
//   x[..., -2:]      x[{ellipsis, slice(-2, {})}]
//   x[tf.newaxis]    x[newaxis]
//   x[::2]           x[slice({}, {}, 2)]

#include <concepts>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <optional>
#include <string>
#include <type_traits>
#include <variant>
#include <vector>

#include "symflow/ops/operators.hpp"
#include "symflow/ops/transform_ops.hpp"

namespace symflow {

// Python's `start:stop:step`; an empty bound is Python's omitted one.
struct Slice {
  std::optional<std::int64_t> start;
  std::optional<std::int64_t> stop;
  std::optional<std::int64_t> step;
};
inline Slice slice(std::optional<std::int64_t> start = {}, std::optional<std::int64_t> stop = {},
                   std::optional<std::int64_t> step = {}) {
  return Slice{start, stop, step};
}

// tf.newaxis and Python's `...`.
struct NewAxis {};
struct Ellipsis {};
inline constexpr NewAxis newaxis{};
inline constexpr Ellipsis ellipsis{};

// One entry of an index: an integer (the axis is removed), a slice, newaxis, ellipsis,
// or a scalar int32/int64 tensor.
class Index {
 public:
  template <std::integral I>
  requires(!std::same_as<I, bool>) Index(I i) : entry_(static_cast<std::int64_t>(i)) {}  // NOLINT
  template <std::floating_point F>
  Index(F) {  // NOLINT
    static_assert(!std::is_floating_point_v<F>,
                  "symflow: an index must be an integer, a slice(), newaxis, ellipsis or a "
                  "scalar integer tensor, not a floating-point number");
  }
  Index(const Output& t) : entry_(t) {}    // NOLINT
  Index(Slice s) : entry_(s) {}            // NOLINT
  Index(NewAxis) : entry_(NewAxis{}) {}    // NOLINT
  Index(Ellipsis) : entry_(Ellipsis{}) {}  // NOLINT

  const std::variant<std::int64_t, Output, Slice, NewAxis, Ellipsis>& entry() const {
    return entry_;
  }

 private:
  std::variant<std::int64_t, Output, Slice, NewAxis, Ellipsis> entry_;
};

namespace detail {

// One of begin, end and strides: plain numbers, or numbers and tensors.
using IndexPart = std::variant<std::int64_t, Output>;

// A part as TensorFlow's stack() makes it: one Const of the numbers, or a Pack whose
// numbers are Consts named by their position ("stack/1").
inline Output pack_index_part(Graph& g, const std::vector<IndexPart>& part, DType dtype,
                              std::string_view name) {
  bool all_numbers = true;
  for (const IndexPart& p : part) all_numbers = all_numbers && !std::holds_alternative<Output>(p);
  if (all_numbers) {
    Value v(dtype, Dims{static_cast<std::int64_t>(part.size())});
    for (std::size_t k = 0; k < part.size(); ++k) {
      const std::int64_t n = std::get<std::int64_t>(part[k]);
      if (dtype == DType::int64)
        v.data<std::int64_t>()[k] = n;
      else
        v.data<std::int32_t>()[k] = static_cast<std::int32_t>(n);
    }
    return make_const(g, std::move(v), name).output(0);
  }
  OpBuilder b(g, name, name);
  std::vector<Output> values;
  for (std::size_t k = 0; k < part.size(); ++k) {
    if (const Output* t = std::get_if<Output>(&part[k])) {
      values.push_back(*t);
    } else {
      const std::int64_t n = std::get<std::int64_t>(part[k]);
      Value v = dtype == DType::int64 ? Value(n) : Value(static_cast<std::int32_t>(n));
      values.push_back(b.constant_arg(std::move(v), std::to_string(k)));
    }
  }
  return b
      .build(transform::kPackOp, values,
             {{"N", static_cast<std::int64_t>(values.size())}, {"T", dtype}, {"axis", 0}})
      .output(0);
}

inline Output index_tensor(const Output& x, std::initializer_list<Index> spec);

}  // namespace detail

inline Output Output::operator[](const Index& index) const {
  return detail::index_tensor(*this, {index});
}
inline Output Output::operator[](std::initializer_list<Index> spec) const {
  return detail::index_tensor(*this, spec);
}
template <Element T>
Tensor<T> Tensor<T>::operator[](const Index& index) const {
  return Tensor<T>(detail::index_tensor(*this, {index}));
}
template <Element T>
Tensor<T> Tensor<T>::operator[](std::initializer_list<Index> spec) const {
  return Tensor<T>(detail::index_tensor(*this, spec));
}

inline Output detail::index_tensor(const Output& x, std::initializer_list<Index> spec) {
  std::vector<IndexPart> begin, end, strides;
  std::int64_t begin_mask = 0, end_mask = 0, ellipsis_mask = 0, new_axis_mask = 0,
               shrink_axis_mask = 0;
  DType dtype = DType::int32;
  auto widen = [&](std::int64_t n) {
    if (n < std::numeric_limits<std::int32_t>::min() ||
        n > std::numeric_limits<std::int32_t>::max())
      dtype = DType::int64;
  };
  std::int64_t bit = 1;
  for (const Index& index : spec) {
    const auto& e = index.entry();
    if (const auto* n = std::get_if<std::int64_t>(&e)) {
      begin.emplace_back(*n);
      end.emplace_back(*n + 1);
      strides.emplace_back(std::int64_t{1});
      widen(*n);
      widen(*n + 1);
      shrink_axis_mask |= bit;
    } else if (const auto* t = std::get_if<Output>(&e)) {
      if (t->dtype() != DType::int32 && t->dtype() != DType::int64)
        throw TypeError(
            "Only integers, slices (`:`), ellipsis (`...`), tf.newaxis (`None`) and scalar "
            "tf.int32/tf.int64 tensors are valid indices, got " +
            t->name() + " of dtype " + std::string(dtype_name(t->dtype())));
      if (t->get_shape().has_rank() && t->get_shape().rank() != 0)
        throw TypeError(
            "Only integers, slices (`:`), ellipsis (`...`), tf.newaxis (`None`) and scalar "
            "tf.int32/tf.int64 tensors are valid indices, got " +
            t->name() + " of shape " + t->get_shape().to_string());
      if (t->dtype() == DType::int64) dtype = DType::int64;
      begin.emplace_back(*t);
      end.emplace_back(*t + 1);  // in the caller's scope, before the slice's own
      strides.emplace_back(std::int64_t{1});
      shrink_axis_mask |= bit;
    } else if (const auto* s = std::get_if<Slice>(&e)) {
      begin.emplace_back(s->start.value_or(0));
      if (!s->start) begin_mask |= bit;
      end.emplace_back(s->stop.value_or(0));
      if (!s->stop) end_mask |= bit;
      if (s->step == 0) throw ValueError("slice step cannot be zero");
      strides.emplace_back(s->step.value_or(1));
      widen(s->start.value_or(0));
      widen(s->stop.value_or(0));
      widen(s->step.value_or(1));
    } else {
      begin.emplace_back(std::int64_t{0});
      end.emplace_back(std::int64_t{0});
      strides.emplace_back(std::int64_t{1});
      (std::holds_alternative<NewAxis>(e) ? new_axis_mask : ellipsis_mask) |= bit;
    }
    bit <<= 1;
  }
  OpBuilder builder(graph_of({x}), {}, "strided_slice");
  Graph& g = builder.graph();
  Output b, e, s;
  if (begin.empty()) {
    b = e = s = builder.constant_arg(Value(DType::int32, Dims{0}), "Const");
  } else {
    b = pack_index_part(g, begin, dtype, "stack");
    e = pack_index_part(g, end, dtype, "stack_1");
    s = pack_index_part(g, strides, dtype, "stack_2");
  }
  return builder
      .build(transform::kStridedSliceOp, {x, b, e, s},
             {{"T", x.dtype()},
              {"Index", dtype},
              {"begin_mask", begin_mask},
              {"end_mask", end_mask},
              {"ellipsis_mask", ellipsis_mask},
              {"new_axis_mask", new_axis_mask},
              {"shrink_axis_mask", shrink_axis_mask}})
      .output(0);
}

}  // namespace symflow
