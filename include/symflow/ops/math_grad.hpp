#pragma once
// Gradients of the elementwise, matmul, reduction and cast ops built in math_ops.hpp,
// each TensorFlow's math_grad.py formula, and sum_to_shape_of and scalar_like, the
// helpers other areas' gradients share.

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "symflow/ops/array_ops.hpp"
#include "symflow/ops/data_flow_ops.hpp"
#include "symflow/ops/grad_context.hpp"
#include "symflow/ops/logic_ops.hpp"
#include "symflow/ops/math_ops.hpp"
#include "symflow/ops/operators.hpp"
#include "symflow/ops/shape_ops.hpp"
#include "symflow/ops/transform_ops.hpp"

namespace symflow::detail {

// `grad` (the gradient of a broadcasting op's result) summed back to the shape of its
// input `x`. With both static shapes known this is one Sum over constant axes (or
// nothing); otherwise TensorFlow's Shape / BroadcastGradientArgs / Sum / Reshape.
inline Output sum_to_shape_of(const Output& grad, const Output& x) {
  const Shape& gs = grad.get_shape();
  const Shape& xs = x.get_shape();
  if (gs.is_fully_defined() && xs.is_fully_defined()) {
    if (gs.dims() == xs.dims()) return grad;
    auto axes = broadcast_gradient_axes(xs.dims(), gs.dims());
    if (!axes)
      throw ValueError("Gradient of shape " + gs.to_string() + " does not broadcast from " +
                       xs.to_string());
    Output summed = reduce_sum(grad, Axis(axes->first));
    return reshape(summed, xs.dims());
  }
  Output sx = shape(x);
  Output sg = shape(grad);
  auto [rx, unused] = broadcast_gradient_args(sx, sg);
  (void)unused;
  return reshape(reduce_sum(grad, Axis(rx)), sx);
}

// A scalar constant of `like`'s dtype.
inline Output scalar_like(const Output& like, double v) {
  Graph g = like.graph();
  return make_const(
             g,
             visit_dtype(like.dtype(),
                         [&](auto t) { return Value(static_cast<typename decltype(t)::type>(v)); }),
             "Const")
      .output(0);
}

// ---- elementwise binary ops -------------------------------------------------------------
inline std::vector<Output> add_grad(const GradContext& c) {
  return {sum_to_shape_of(c.grad(), c.input(0)), sum_to_shape_of(c.grad(), c.input(1))};
}

inline std::vector<Output> sub_grad(const GradContext& c) {
  return {sum_to_shape_of(c.grad(), c.input(0)), sum_to_shape_of(-c.grad(), c.input(1))};
}

inline std::vector<Output> mul_grad(const GradContext& c) {
  const Output x = c.input(0), y = c.input(1), g = c.grad();
  return {sum_to_shape_of(multiply(g, y), x), sum_to_shape_of(multiply(x, g), y)};
}

// RealDiv and (on floats) Div: d(x/y) = g/y, -g*x/y^2.
inline std::vector<Output> div_grad(const GradContext& c) {
  const Output x = c.input(0), y = c.input(1), g = c.grad();
  if (!is_floating(x.dtype())) return {};
  const OpDef& def = c.op.op_def();
  Output gx = binary(def, g, y, {}, def.type);
  Output gy = multiply(g, binary(def, binary(def, negative(x), y, {}, def.type), y, {}, def.type));
  return {sum_to_shape_of(gx, x), sum_to_shape_of(gy, y)};
}

// x^y: y * x^(y-1) for x; z * log(x) for y, taken as 0 where x <= 0 (as TensorFlow).
inline std::vector<Output> pow_grad(const GradContext& c) {
  const Output x = c.input(0), y = c.input(1), z = c.output(0), g = c.grad();
  if (!is_floating(x.dtype())) return {};
  Output gx = multiply(g, multiply(y, pow(x, subtract(y, scalar_like(y, 1.0)))));
  Output positive = greater(x, scalar_like(x, 0.0));
  Output safe_x = where(positive, x, ones_like(x));
  Output log_x = where(positive, log(safe_x), zeros_like(x));
  Output gy = multiply(g, multiply(z, log_x));
  return {sum_to_shape_of(gx, x), sum_to_shape_of(gy, y)};
}

// Maximum/Minimum: the gradient goes to the side that was chosen (x on ties).
template <bool Max>
std::vector<Output> extremum_grad(const GradContext& c) {
  const Output x = c.input(0), y = c.input(1), g = c.grad();
  Output x_chosen = Max ? Output(greater_equal(x, y)) : Output(less_equal(x, y));
  Output zeros = zeros_like(g);
  return {sum_to_shape_of(where(x_chosen, g, zeros), x),
          sum_to_shape_of(where(x_chosen, zeros, g), y)};
}

// FloorMod: x - floor(x / y) * y, so d/dx = 1 and d/dy = -floor(x / y) (where the
// remainder does not jump). FloorDiv is piecewise constant: TensorFlow returns no
// gradient for it, and Mod has none registered at all.
inline std::vector<Output> floor_mod_grad(const GradContext& c) {
  const Output x = c.input(0), y = c.input(1), g = c.grad();
  Output gy = g * negative(binary(kFloorDivOp, x, y, {}, "FloorDiv"));
  return {sum_to_shape_of(g, x), sum_to_shape_of(gy, y)};
}

// DivNoNan: g / y and -g * x / y^2 as TensorFlow writes them, each division a DivNoNan,
// so that nothing flows back where y == 0. The products are `*` ("mul"), as in TensorFlow.
inline std::vector<Output> div_no_nan_grad(const GradContext& c) {
  const Output x = c.input(0), y = c.input(1), g = c.grad();
  Output gx = div_no_nan(g, y);
  Output gy = g * div_no_nan(div_no_nan(negative(x), y), y);
  return {sum_to_shape_of(gx, x), sum_to_shape_of(gy, y)};
}

// ---- elementwise unary ops --------------------------------------------------------------
inline std::vector<Output> neg_grad(const GradContext& c) { return {negative(c.grad())}; }

inline std::vector<Output> square_grad(const GradContext& c) {
  const Output x = c.input(0);
  return {multiply(c.grad(), multiply(scalar_like(x, 2.0), x))};
}

inline std::vector<Output> abs_grad(const GradContext& c) {
  return {multiply(c.grad(), sign(c.input(0)))};
}

// d sqrt(x) = g * 0.5 / sqrt(x), from the op's output.
inline std::vector<Output> sqrt_grad(const GradContext& c) {
  const Output y = c.output(0);
  return {divide(multiply(c.grad(), scalar_like(y, 0.5)), y)};
}

inline std::vector<Output> exp_grad(const GradContext& c) {
  return {multiply(c.grad(), c.output(0))};
}

inline std::vector<Output> log_grad(const GradContext& c) { return {divide(c.grad(), c.input(0))}; }

inline std::vector<Output> cos_grad(const GradContext& c) {
  Output minus_g = negative(c.grad());
  return {minus_g * sin(c.input(0))};
}

inline std::vector<Output> sin_grad(const GradContext& c) { return {c.grad() * cos(c.input(0))}; }

// ---- MatMul ------------------------------------------------------------------------------
inline std::vector<Output> matmul_grad(const GradContext& c) {
  const Output a = c.input(0), b = c.input(1), g = c.grad();
  const bool ta = c.op.get_attr<bool>("transpose_a");
  const bool tb = c.op.get_attr<bool>("transpose_b");
  if (!ta && !tb) return {matmul(g, b, false, true), matmul(a, g, true, false)};
  if (!ta && tb) return {matmul(g, b, false, false), matmul(g, a, true, false)};
  if (ta && !tb) return {matmul(b, g, false, true), matmul(a, g, false, false)};
  return {matmul(b, g, true, true), matmul(g, a, true, true)};
}

// ---- reductions ---------------------------------------------------------------------------
// The value of a tensor the graph fixes before it runs, as TensorFlow's constant_value
// finds it for reduction axes: a Const, the Rank of an input of known rank, or a Range
// of such integers. nullopt for anything else.
inline std::optional<Value> constant_int_value(const Output& t) {
  const Operation op = t.op();
  if (op.type() == "Const") return op.get_attr<Value>("value");
  if (op.type() == "Rank") {
    const Shape& s = op.inputs()[0].get_shape();
    if (s.has_rank()) return Value(static_cast<std::int32_t>(s.rank()));
    return std::nullopt;
  }
  if (op.type() != "Range" || !is_integer(t.dtype())) return std::nullopt;
  std::vector<std::int64_t> bounds;
  for (const Output& in : op.inputs()) {
    auto v = constant_int_value(in);
    if (!v || v->rank() != 0) return std::nullopt;
    bounds.push_back(shape_argument(*v)[0]);
  }
  const std::int64_t start = bounds[0], limit = bounds[1], delta = bounds[2];
  if (delta == 0) return std::nullopt;
  Dims values;
  // Axes are few: a longer range is left to the graph (reduced_shape below) rather than
  // listed here.
  constexpr std::size_t kMaxListed = 64;
  for (std::int64_t v = start; delta > 0 ? v < limit : v > limit; v += delta) {
    if (values.size() == kMaxListed) return std::nullopt;
    values.push_back(v);
  }
  return int32_vector(values).astype(t.dtype());
}

// The shape of a reduction's result with its reduced axes kept as 1s. With x's rank and
// the axes fixed in the graph: a Const when x's shape is known, else shape(x) * keep +
// reduced. Otherwise TensorFlow's reduced_shape, computed when the graph runs: the axes
// made nonnegative ((axes + rank) % rank) and a DynamicStitch of shape(x) with 1s there.
inline Output kept_dims_shape(const GradContext& c) {
  const Output x = c.input(0);
  const std::optional<Value> axes_value = constant_int_value(c.input(1));
  Graph g = x.graph();
  if (!x.get_shape().has_rank() || !axes_value) {
    Output input_shape = shape(x);
    Output axes = cast(c.input(1), DType::int32);
    Output input_rank = size(input_shape);
    axes = floormod(axes + input_rank, input_rank, "mod");
    Output axes_shape = shape(axes);
    Output one = make_const(g, Value(std::int32_t{1}), "Const").output(0);
    return dynamic_stitch({range(input_rank), axes}, {input_shape, fill(axes_shape, one)},
                          "DynamicStitch");
  }
  std::string error;
  const AxisMask reduced =
      reduction_mask(shape_argument(*axes_value), x.get_shape().rank(), error, false);
  if (!error.empty()) throw ValueError(error);
  Dims kept = x.get_shape().dims();
  bool known = true;
  for (std::size_t i = 0; i < kept.size(); ++i) {
    if (reduced[i]) kept[i] = 1;
    known = known && kept[i] != unknown_dim;
  }
  if (known) return make_const(g, int32_vector(kept), "Const").output(0);
  Dims keep_mask(kept.size()), ones_mask(kept.size());
  for (std::size_t i = 0; i < kept.size(); ++i) {
    keep_mask[i] = reduced[i] ? 0 : 1;
    ones_mask[i] = reduced[i] ? 1 : 0;
  }
  Output keep = make_const(g, int32_vector(keep_mask), "Const").output(0);
  Output ones = make_const(g, int32_vector(ones_mask), "Const").output(0);
  return add(multiply(shape(x), keep), ones);
}

// The incoming gradient broadcast back over the reduced axes.
inline Output broadcast_back(const GradContext& c, const Output& grad) {
  Output kept = reshape(grad, kept_dims_shape(c));
  const Output x = c.input(0);
  if (x.get_shape().is_fully_defined()) return broadcast_to(kept, x.get_shape().dims());
  return broadcast_to(kept, shape(x));
}

inline std::vector<Output> sum_grad(const GradContext& c) {
  return {broadcast_back(c, c.grad()), Output{}};
}

inline std::vector<Output> mean_grad(const GradContext& c) {
  const Output x = c.input(0), y = c.output(0);
  Output count;
  if (x.get_shape().is_fully_defined() && y.get_shape().is_fully_defined()) {
    const std::int64_t ny = y.get_shape().num_elements();
    count = scalar_like(x, ny ? static_cast<double>(x.get_shape().num_elements() / ny) : 0.0);
  } else {
    Graph g = x.graph();
    Output one = make_const(g, Value(std::int32_t{1}), "Const").output(0);
    Output factor = divide(size(x), maximum(size(y), one));
    count = cast(factor, x.dtype());
  }
  return {divide(broadcast_back(c, c.grad()), count), Output{}};
}

// Max/Min: the gradient is shared equally by the elements equal to the result.
inline std::vector<Output> extremum_reduction_grad(const GradContext& c) {
  const Output x = c.input(0);
  Output kept = kept_dims_shape(c);
  Output y = reshape(c.output(0), kept);
  Output g = reshape(c.grad(), kept);
  Output indicators = cast(equal(y, x), x.dtype());
  Output selected = reshape(reduce_sum(indicators, Axis(c.input(1))), kept);
  return {multiply(divide(indicators, selected), g), Output{}};
}

// ---- Cast -------------------------------------------------------------------------------
inline std::vector<Output> cast_grad(const GradContext& c) {
  const DType src = c.op.get_attr<DType>("SrcT"), dst = c.op.get_attr<DType>("DstT");
  if (is_floating(src) && is_floating(dst)) return {cast(c.grad(), src)};
  return {};
}

inline constexpr auto kMathOpEntries = std::to_array<OpEntry>({
    {&kAddOp, add_grad},
    {&kSubOp, sub_grad},
    {&kMulOp, mul_grad},
    {&kRealDivOp, div_grad},
    {&kDivOp, div_grad},
    {&kPowOp, pow_grad},
    {&kMaximumOp, extremum_grad<true>},
    {&kMinimumOp, extremum_grad<false>},
    {&kAddV2Op, add_grad},
    {&kFloorDivOp, not_differentiable},
    {&kFloorModOp, floor_mod_grad},
    {&kModOp, nullptr},
    {&kDivNoNanOp, div_no_nan_grad},
    {&kNegOp, neg_grad},
    {&kSquareOp, square_grad},
    {&kAbsOp, abs_grad},
    {&kSqrtOp, sqrt_grad},
    {&kExpOp, exp_grad},
    {&kLogOp, log_grad},
    {&kSignOp, not_differentiable},
    {&kCosOp, cos_grad},
    {&kSinOp, sin_grad},
    {&kCeilOp, not_differentiable},  // piecewise constant: TensorFlow's gradient is None
    {&kRoundOp, not_differentiable},
    {&kIsNanOp, not_differentiable},  // as TensorFlow: bool outputs
    {&kIsInfOp, not_differentiable},
    {&kIsFiniteOp, not_differentiable},
    {&kMatMulOp, matmul_grad},
    {&kSumOp, sum_grad},
    {&kMeanOp, mean_grad},
    {&kMaxOp, extremum_reduction_grad},
    {&kMinOp, extremum_reduction_grad},
    {&kCastOp, cast_grad},
});

}  // namespace symflow::detail
