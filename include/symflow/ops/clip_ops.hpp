#pragma once
// Clipping by norm, as TensorFlow 1.x composes it (clip_ops.py): clip_by_norm,
// global_norm, clip_by_global_norm and clip_by_average_norm, each in its own name scope
// with TensorFlow's node names ("clip_by_norm/Select_1", "global_norm/L2Loss", ...), `+`
// built as Add (docs/decisions.md). clip_by_value is in ops/logic_ops.hpp.
//
// An invalid (empty) Output in a list is TensorFlow's None, the gradient of a variable
// the loss does not reach: global_norm skips it and clip_by_global_norm passes it through.

#include <concepts>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "symflow/graph/scopes.hpp"
#include "symflow/ops/array_ops.hpp"
#include "symflow/ops/colocation.hpp"
#include "symflow/ops/const_op.hpp"
#include "symflow/ops/indexed_slices.hpp"
#include "symflow/ops/logic_ops.hpp"
#include "symflow/ops/math_ops.hpp"
#include "symflow/ops/nn_ops.hpp"
#include "symflow/ops/operators.hpp"
#include "symflow/ops/shape_ops.hpp"
#include "symflow/ops/transform_ops.hpp"

namespace symflow {

// A clip norm: a number (a Python scalar in TensorFlow, converted to the clipped
// tensor's dtype where it is used) or a scalar tensor.
class ClipNorm {
 public:
  template <class N>
  requires(std::is_arithmetic_v<N> && !std::same_as<N, bool>) ClipNorm(N number)  // NOLINT
      : number_(static_cast<double>(number)) {}
  ClipNorm(const Output& tensor) : tensor_(tensor) {}  // NOLINT: implicit
  template <class T>
  requires(std::convertible_to<T, Output> && !std::same_as<T, Output> && !std::is_arithmetic_v<T>)
      ClipNorm(const T& tensor)  // NOLINT: a Variable or Tensor<T>
      : tensor_(static_cast<Output>(tensor)) {}

  bool is_tensor() const { return tensor_.valid(); }
  const Output& tensor() const { return tensor_; }
  double number() const { return number_; }

 private:
  double number_ = 0.0;
  Output tensor_;
};

namespace detail {

// TensorFlow's ones_like(x): Fill in the scope "ones_like", its dims a Const when x's
// shape is fully known, else a Shape of x.
inline Output ones_like_fill(const Output& x) {
  Graph g = x.graph();
  name_scope scope(g, "ones_like");
  Output dims;
  const Shape& s = x.get_shape();
  if (s.is_fully_defined()) {
    name_scope shape_scope(g, "Shape");
    dims = make_const(g, int32_vector(s.dims()), "shape_as_tensor").output(0);
  } else {
    dims = shape(x);
  }
  Output one = make_const(g, scalar_as(x.dtype(), 1, "value", "Fill"), "Const").output(0);
  return symflow::fill(dims, one, scope.name());
}

// Maximum(x, number), the number a Const "Maximum/y" of x's dtype.
inline Output maximum_with(const Output& x, double number) {
  return build_with_scalar(kMaximumOp, x, number, false, true, {}, "Maximum");
}

}  // namespace detail

// tf.clip_by_norm(t, clip_norm, axes): t * clip_norm / max(l2norm(t), clip_norm), the L2
// norm taken over `axes` (all by default) and kept broadcastable; a zero norm leaves t
// unchanged (its gradient stays finite). A negative number is clipped to 0; a tensor
// clip norm becomes Maximum(clip_norm, 0) cast to t's dtype. A clip norm that does not
// broadcast with t is the ValueError of the Mul that scales t.
inline Output clip_by_norm(const Output& t, const ClipNorm& clip_norm, const Axis& axes = {},
                           std::string_view name = {}) {
  if (!t.valid()) throw ValueError("clip_by_norm: t is an empty tensor handle");
  Graph g = t.graph();
  name_scope scope(name, "clip_by_norm", {t});
  std::optional<Output> norm_tensor;
  double norm_number = clip_norm.number() < 0 ? 0.0 : clip_norm.number();
  if (clip_norm.is_tensor())
    norm_tensor = cast(detail::maximum_with(clip_norm.tensor(), 0.0), t.dtype());
  Output l2sum = reduce_sum(t * t, axes, true);
  Output positive = l2sum > 0;
  Output l2sum_safe = where(positive, l2sum, detail::ones_like_fill(l2sum));
  Output root = sqrt(l2sum_safe);
  Output l2norm = where(positive, root, l2sum);
  Output scaled = norm_tensor ? t * *norm_tensor : t * norm_number;
  (void)t.get_shape().merge_with(scaled.get_shape());
  Output divisor =
      norm_tensor ? maximum(l2norm, *norm_tensor) : detail::maximum_with(l2norm, norm_number);
  return identity(scaled / divisor, scope.name());
}

// tf.global_norm(t_list): sqrt(sum of the squared L2 norms of the tensors), as the
// scalar "global_norm/global_norm". Invalid entries (None) are skipped; each L2Loss is
// colocated with its tensor. The tensors share one dtype (else the Pack's TypeError); an
// empty list gives 0.
inline Output global_norm(const std::vector<Output>& t_list, std::string_view name = {}) {
  std::vector<Output> present;
  for (const Output& t : t_list)
    if (t.valid()) present.push_back(t);
  Graph g = present.empty() ? get_default_graph() : graph_of(present);
  name_scope scope(g, name.empty() ? std::string_view("global_norm") : name);
  std::vector<Output> half_squared_norms;
  for (const Output& t : present)
    half_squared_norms.push_back(detail::colocated_with(t, [&] { return nn::l2_loss(t); }));
  Output stacked;
  if (half_squared_norms.empty()) {
    // TensorFlow stacks an empty list into an empty float32 Const.
    stacked =
        detail::make_const(g, Value::from_vector(std::vector<float>{}, Dims{0}), "stack").output(0);
  } else {
    stacked = stack(half_squared_norms);
  }
  Output half_squared_norm = reduce_sum(stacked);
  Output two = detail::make_const(
                   g, detail::scalar_as(half_squared_norm.dtype(), 2.0, "value", "Const"), "Const")
                   .output(0);
  return sqrt(half_squared_norm * two, "global_norm");
}

// tf.clip_by_global_norm(t_list, clip_norm, use_norm): every tensor scaled by
// clip_norm / max(global_norm, clip_norm), returned with the global norm (use_norm when
// given, else global_norm(t_list), built first in its own scope). Each clipped tensor is
// "clip_by_global_norm/clip_by_global_norm/_<i>", colocated with its input; invalid
// entries stay invalid. An infinite or NaN global norm makes every output NaN, as in
// TensorFlow (the scale adds use_norm - use_norm).
inline std::pair<std::vector<Output>, Output> clip_by_global_norm(
    const std::vector<Output>& t_list, const ClipNorm& clip_norm,
    const std::optional<Output>& use_norm = std::nullopt, std::string_view name = {}) {
  Output norm = use_norm ? *use_norm : global_norm(t_list, name);
  if (!norm.valid()) throw ValueError("clip_by_global_norm: use_norm is an empty tensor handle");
  Graph g = norm.graph();
  name_scope scope(g, name.empty() ? std::string_view("clip_by_global_norm") : name);
  // clip_norm * min(1 / norm, 1 / clip_norm), one node per statement in TensorFlow's order.
  Output inverse_norm = 1.0 / norm;
  Output one =
      detail::make_const(g, detail::scalar_as(norm.dtype(), 1.0, "value", "Const"), "Const")
          .output(0);
  Output inverse_clip = clip_norm.is_tensor() ? one / clip_norm.tensor() : one / clip_norm.number();
  Output smaller = minimum(inverse_norm, inverse_clip);
  Output scale_for_finite =
      clip_norm.is_tensor() ? clip_norm.tensor() * smaller : clip_norm.number() * smaller;
  Output nan_if_not_finite = norm - norm;
  Output scale = scale_for_finite + nan_if_not_finite;
  std::vector<Output> clipped;
  for (std::size_t i = 0; i < t_list.size(); ++i) {
    const Output& t = t_list[i];
    if (!t.valid()) {
      clipped.emplace_back();
      continue;
    }
    clipped.push_back(detail::colocated_with(t, [&] {
      Output product = t * cast(scale, t.dtype());
      return identity(product, scope.name() + "_" + std::to_string(i));
    }));
  }
  return {std::move(clipped), norm};
}

namespace detail {
// The tensors clipping works on: a tensor itself, the values of slices.
inline std::vector<Output> clip_values(const std::vector<Gradient>& grads) {
  std::vector<Output> values;
  for (const Gradient& grad : grads)
    values.push_back(!grad.valid()      ? Output{}
                     : grad.is_sparse() ? grad.sparse().values
                                        : grad.dense());
  return values;
}
}  // namespace detail

// global_norm of gradients as compute_gradients returns them: slices count by their values.
// (A template, so that a braced list of tensors still picks the overload for tensors.)
template <std::same_as<Gradient> G>
Output global_norm(const std::vector<G>& t_list, std::string_view name = {}) {
  return global_norm(detail::clip_values(t_list), name);
}

// clip_by_global_norm of gradients as compute_gradients returns them, as TensorFlow clips
// a list with IndexedSlices: their values are scaled and keep their indices.
template <std::same_as<Gradient> G>
std::pair<std::vector<Gradient>, Output> clip_by_global_norm(
    const std::vector<G>& t_list, const ClipNorm& clip_norm,
    const std::optional<Output>& use_norm = std::nullopt, std::string_view name = {}) {
  auto [clipped, norm] =
      clip_by_global_norm(detail::clip_values(t_list), clip_norm, use_norm, name);
  std::vector<Gradient> out;
  for (std::size_t i = 0; i < t_list.size(); ++i) {
    if (t_list[i].is_sparse()) {
      IndexedSlices slices = t_list[i].sparse();
      slices.values = clipped[i];
      out.emplace_back(std::move(slices));
    } else {
      out.emplace_back(clipped[i]);
    }
  }
  return {std::move(out), norm};
}

// tf.clip_by_average_norm(t, clip_norm) (TF 1.x only): t * clip_norm / max(l2norm(t) /
// size(t), clip_norm), computed in float32 as TensorFlow does (a float64 t is the Mul's
// TypeError). Size and Rank are Consts when t's shape is known, as TensorFlow folds them.
inline Output clip_by_average_norm(const Output& t, const ClipNorm& clip_norm,
                                   std::string_view name = {}) {
  if (!t.valid()) throw ValueError("clip_by_average_norm: t is an empty tensor handle");
  Graph g = t.graph();
  name_scope scope(name, "clip_by_average_norm", {t});
  const Shape& s = t.get_shape();
  Output count;
  if (s.is_fully_defined()) {
    name_scope size_scope(g, "Size");
    count =
        detail::make_const(
            g, Value(symflow::detail::checked_int32(s.num_elements(), "the number of elements")),
            size_scope.name())
            .output(0);
  } else {
    count = size(t);
  }
  Output n_element = cast(count, DType::float32);
  Output squares = t * t;
  Output rank_t;
  if (s.has_rank()) {
    name_scope rank_scope(g, "Rank");
    rank_t = detail::make_const(g, Value(static_cast<std::int32_t>(s.rank())), rank_scope.name())
                 .output(0);
  } else {
    rank_t = rank(t);
  }
  Output all_axes = range(rank_t);
  Output l2norm_inv = rsqrt(reduce_sum(squares, Axis(all_axes)));
  Output scaled = clip_norm.is_tensor() ? t * clip_norm.tensor() : t * clip_norm.number();
  Output per_element = l2norm_inv * n_element;
  Output one = detail::make_const(g, Value(1.0f), "Const").output(0);
  Output inverse_clip = clip_norm.is_tensor() ? one / clip_norm.tensor() : one / clip_norm.number();
  Output factor = minimum(per_element, inverse_clip);
  return identity(scaled * factor, scope.name());
}

}  // namespace symflow
