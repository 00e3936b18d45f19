#pragma once
// The neural-network ops' descriptions (symflow::nn: the ops that are one node each,
// activations and their "XxxGrad" ops, softmax, log-softmax, the cross-entropy ops,
// L2Loss, BiasAdd, and the small elementwise ops the composite functions of nn_impl.hpp
// are built from: Floor, Log1p, Rsqrt, Reciprocal, SquaredDifference): their functors
// and dtype predicates, shape functions and OpDefs. No kernel and no graph: the CPU
// kernels are in backend/cpu/kernels/nn.hpp, the graph-building functions in
// ops/nn_ops.hpp.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "symflow/core/dtype.hpp"
#include "symflow/core/errors.hpp"
#include "symflow/core/host_device.hpp"
#include "symflow/core/shape.hpp"
#include "symflow/ops/defs/math.hpp"
#include "symflow/ops/defs/op_def.hpp"
#include "symflow/ops/defs/shape_fn.hpp"

namespace symflow {

namespace detail {

// ---- shape-function helpers ---------------------------------------------------------

// Two dims that must agree: the known one wins; "Dimensions must be equal" otherwise.
inline std::int64_t merge_dim(std::int64_t a, std::int64_t b) {
  if (a >= 0 && b >= 0 && a != b)
    throw ValueError("Dimensions must be equal, but are " + std::to_string(a) + " and " +
                     std::to_string(b));
  return a >= 0 ? a : b;
}
inline Shape merge_same_shape(const Shape& a, const Shape& b) {
  if (!a.has_rank()) return b;
  if (!b.has_rank()) return a;
  if (a.rank() != b.rank())
    throw ValueError("Shapes must be equal rank, but are " + std::to_string(a.rank()) + " and " +
                     std::to_string(b.rank()));
  Dims d(a.dims().size());
  for (std::size_t i = 0; i < d.size(); ++i) d[i] = merge_dim(a.dims()[i], b.dims()[i]);
  return Shape(d);
}

template <class T>
inline constexpr bool is_float_v = std::is_floating_point_v<T>;

// ---- elementwise unary ops ------------------------------------------------------------
// Each functor names its op, its input parameter (as TensorFlow's TypeError says it),
// the element types it accepts, and its arithmetic.

struct ReluFn {
  static constexpr std::string_view type = "Relu";
  static constexpr std::string_view param = "features";
  template <class T>
  static constexpr bool accepts = is_number_v<T>;
  template <class T>
  SYMFLOW_HD T operator()(T x) const {
    return x > T{0} ? x : T{0};
  }
};
struct Relu6Fn {
  static constexpr std::string_view type = "Relu6";
  static constexpr std::string_view param = "features";
  template <class T>
  static constexpr bool accepts = is_number_v<T>;
  template <class T>
  SYMFLOW_HD T operator()(T x) const {
    return std::min(std::max(x, T{0}), T{6});
  }
};
struct EluFn {
  static constexpr std::string_view type = "Elu";
  static constexpr std::string_view param = "features";
  template <class T>
  static constexpr bool accepts = is_float_v<T>;
  template <class T>
  SYMFLOW_HD T operator()(T x) const {
    return x < T{0} ? std::expm1(x) : x;
  }
};
struct SigmoidFn {
  static constexpr std::string_view type = "Sigmoid";
  static constexpr std::string_view param = "x";
  template <class T>
  static constexpr bool accepts = is_float_v<T>;
  template <class T>
  SYMFLOW_HD T operator()(T x) const {
    return T{1} / (T{1} + std::exp(-x));
  }
};
struct TanhFn {
  static constexpr std::string_view type = "Tanh";
  static constexpr std::string_view param = "x";
  template <class T>
  static constexpr bool accepts = is_float_v<T>;
  template <class T>
  SYMFLOW_HD T operator()(T x) const {
    return std::tanh(x);
  }
};
struct FloorFn {
  static constexpr std::string_view type = "Floor";
  static constexpr std::string_view param = "x";
  template <class T>
  static constexpr bool accepts = is_float_v<T>;
  template <class T>
  SYMFLOW_HD T operator()(T x) const {
    return std::floor(x);
  }
};
struct Log1pFn {
  static constexpr std::string_view type = "Log1p";
  static constexpr std::string_view param = "x";
  template <class T>
  static constexpr bool accepts = is_float_v<T>;
  template <class T>
  SYMFLOW_HD T operator()(T x) const {
    return std::log1p(x);
  }
};
struct RsqrtFn {
  static constexpr std::string_view type = "Rsqrt";
  static constexpr std::string_view param = "x";
  template <class T>
  static constexpr bool accepts = is_float_v<T>;
  template <class T>
  SYMFLOW_HD T operator()(T x) const {
    return T{1} / std::sqrt(x);
  }
};
// Reciprocal of an integer is integer division 1 / x; zero is rejected by the kernel.
struct ReciprocalFn {
  static constexpr std::string_view type = "Reciprocal";
  static constexpr std::string_view param = "x";
  template <class T>
  static constexpr bool accepts =
      is_float_v<T> || std::is_same_v<T, std::int32_t> || std::is_same_v<T, std::int64_t>;
  template <class T>
  SYMFLOW_HD T operator()(T x) const {
    return static_cast<T>(T{1} / x);
  }
};

template <class Fn>
std::vector<TensorSpec> infer_nn_unary(const InferContext& c) {
  check_allowed(c, 0, Fn::param, fn_accepts<Fn>);
  return {c.inputs[0]};
}

template <class Fn>
constexpr OpDef nn_unary_op_def() {
  return OpDef{.type = Fn::type, .num_inputs = 1, .infer = infer_nn_unary<Fn>};
}

SYMFLOW_OP_DEF(kReluOp, nn_unary_op_def<ReluFn>());
SYMFLOW_OP_DEF(kRelu6Op, nn_unary_op_def<Relu6Fn>());
SYMFLOW_OP_DEF(kEluOp, nn_unary_op_def<EluFn>());
SYMFLOW_OP_DEF(kSigmoidOp, nn_unary_op_def<SigmoidFn>());
SYMFLOW_OP_DEF(kTanhOp, nn_unary_op_def<TanhFn>());
SYMFLOW_OP_DEF(kFloorOp, nn_unary_op_def<FloorFn>());
SYMFLOW_OP_DEF(kLog1pOp, nn_unary_op_def<Log1pFn>());
SYMFLOW_OP_DEF(kRsqrtOp, nn_unary_op_def<RsqrtFn>());
SYMFLOW_OP_DEF(kReciprocalOp, nn_unary_op_def<ReciprocalFn>());

// LeakyRelu: max(x, alpha * x) for alpha <= 1, with `alpha` a float attr.
struct FloatTypes {
  template <class T>
  static constexpr bool accepts = is_float_v<T>;
};

inline std::vector<TensorSpec> infer_leaky_relu(const InferContext& c) {
  check_allowed(c, 0, "features", fn_accepts<FloatTypes>);
  return {c.inputs[0]};
}

SYMFLOW_OP_DEF(kLeakyReluOp,
               OpDef{.type = "LeakyRelu", .num_inputs = 1, .infer = infer_leaky_relu});

// ---- the "XxxGrad" ops: two inputs of one shape, elementwise -----------------------------
// `first`/`second` name the inputs; operator()(a, b) computes one output element.

struct ReluGradFn {  // (gradients, features)
  static constexpr std::string_view type = "ReluGrad";
  static constexpr std::string_view first = "gradients", second = "features";
  template <class T>
  static constexpr bool accepts = is_number_v<T>;
  template <class T>
  SYMFLOW_HD T operator()(T g, T x) const {
    return x > T{0} ? g : T{0};
  }
};
struct Relu6GradFn {  // (gradients, features)
  static constexpr std::string_view type = "Relu6Grad";
  static constexpr std::string_view first = "gradients", second = "features";
  template <class T>
  static constexpr bool accepts = is_number_v<T>;
  template <class T>
  SYMFLOW_HD T operator()(T g, T x) const {
    return x > T{0} && x < T{6} ? g : T{0};
  }
};
struct EluGradFn {  // (gradients, outputs)
  static constexpr std::string_view type = "EluGrad";
  static constexpr std::string_view first = "gradients", second = "outputs";
  template <class T>
  static constexpr bool accepts = is_float_v<T>;
  template <class T>
  SYMFLOW_HD T operator()(T g, T y) const {
    return y < T{0} ? g * (y + T{1}) : g;
  }
};
struct SigmoidGradFn {  // (y, dy)
  static constexpr std::string_view type = "SigmoidGrad";
  static constexpr std::string_view first = "y", second = "dy";
  template <class T>
  static constexpr bool accepts = is_float_v<T>;
  template <class T>
  SYMFLOW_HD T operator()(T y, T dy) const {
    return dy * y * (T{1} - y);
  }
};
struct TanhGradFn {  // (y, dy)
  static constexpr std::string_view type = "TanhGrad";
  static constexpr std::string_view first = "y", second = "dy";
  template <class T>
  static constexpr bool accepts = is_float_v<T>;
  template <class T>
  SYMFLOW_HD T operator()(T y, T dy) const {
    return dy * (T{1} - y * y);
  }
};
struct RsqrtGradFn {  // (y, dy): d/dx x^(-1/2) = -y^3 / 2
  static constexpr std::string_view type = "RsqrtGrad";
  static constexpr std::string_view first = "y", second = "dy";
  template <class T>
  static constexpr bool accepts = is_float_v<T>;
  template <class T>
  SYMFLOW_HD T operator()(T y, T dy) const {
    return T{-0.5} * dy * y * y * y;
  }
};
struct ReciprocalGradFn {  // (y, dy): d/dx 1/x = -y^2
  static constexpr std::string_view type = "ReciprocalGrad";
  static constexpr std::string_view first = "y", second = "dy";
  template <class T>
  static constexpr bool accepts = is_float_v<T>;
  template <class T>
  SYMFLOW_HD T operator()(T y, T dy) const {
    return -dy * y * y;
  }
};

template <class Fn>
std::vector<TensorSpec> infer_grad_binary(const InferContext& c) {
  check_same_dtype(c, Fn::type, {Fn::first, Fn::second});
  check_allowed(c, 0, Fn::first, fn_accepts<Fn>);
  return {{c.dtype(0), merge_same_shape(c.shape(0), c.shape(1))}};
}

template <class Fn>
constexpr OpDef grad_binary_op_def() {
  return OpDef{.type = Fn::type, .num_inputs = 2, .infer = infer_grad_binary<Fn>};
}

SYMFLOW_OP_DEF(kReluGradOp, grad_binary_op_def<ReluGradFn>());
SYMFLOW_OP_DEF(kRelu6GradOp, grad_binary_op_def<Relu6GradFn>());
SYMFLOW_OP_DEF(kEluGradOp, grad_binary_op_def<EluGradFn>());
SYMFLOW_OP_DEF(kSigmoidGradOp, grad_binary_op_def<SigmoidGradFn>());
SYMFLOW_OP_DEF(kTanhGradOp, grad_binary_op_def<TanhGradFn>());
SYMFLOW_OP_DEF(kRsqrtGradOp, grad_binary_op_def<RsqrtGradFn>());
SYMFLOW_OP_DEF(kReciprocalGradOp, grad_binary_op_def<ReciprocalGradFn>());

struct LeakyReluGradFn {
  static constexpr std::string_view type = "LeakyReluGrad";
  static constexpr std::string_view first = "gradients", second = "features";
  template <class T>
  static constexpr bool accepts = is_float_v<T>;
};

SYMFLOW_OP_DEF(kLeakyReluGradOp, OpDef{.type = "LeakyReluGrad",
                                       .num_inputs = 2,
                                       .infer = infer_grad_binary<LeakyReluGradFn>});

// ---- SquaredDifference: (x - y)^2 with broadcasting ------------------------------------
struct SquaredDifferenceFn {
  static constexpr std::string_view type = "SquaredDifference";
  template <class T>
  static constexpr bool accepts =
      is_float_v<T> || std::is_same_v<T, std::int32_t> || std::is_same_v<T, std::int64_t>;
  template <class T>
  SYMFLOW_HD T operator()(T a, T b) const {
    const T d = sub_wrapping(a, b);
    return mul_wrapping(d, d);
  }
};
SYMFLOW_OP_DEF(kSquaredDifferenceOp, binary_op_def<SquaredDifferenceFn>());

// ---- softmax family ---------------------------------------------------------------------

// The rows of the softmax family's kernels: the arithmetic the CPU kernels
// (backend/cpu/kernels/nn.hpp) and the Thrust kernels (backend/thrust/kernels_nn.cuh)
// share, step for step, so that Thrust's host systems give the CPU's bits. A row is
// `cols` >= 1 contiguous elements.

// The row's largest element, as std::max_element finds it (the first of the largest;
// a NaN is kept only when it comes first).
template <class T>
SYMFLOW_HD T row_max(const T* x, std::int64_t cols) {
  T m = x[0];
  for (std::int64_t j = 1; j < cols; ++j)
    if (m < x[j]) m = x[j];
  return m;
}

// y = softmax(x), shifted by the row maximum m for stability; returns the sum of the
// exponentials (for a log-sum-exp).
template <class T>
SYMFLOW_HD T softmax_row(const T* x, T m, T* y, std::int64_t cols) {
  T sum = 0;
  for (std::int64_t j = 0; j < cols; ++j) sum += (y[j] = std::exp(x[j] - m));
  const T inv = T{1} / sum;
  for (std::int64_t j = 0; j < cols; ++j) y[j] *= inv;
  return sum;
}

// log(softmax(x)) = (x - max) - log(sum(exp(x - max))).
template <class T>
SYMFLOW_HD void log_softmax_row(const T* x, T* y, std::int64_t cols) {
  const T m = row_max(x, cols);
  T sum = 0;
  for (std::int64_t j = 0; j < cols; ++j) sum += std::exp(x[j] - m);
  const T lse = std::log(sum);
  for (std::int64_t j = 0; j < cols; ++j) y[j] = x[j] - m - lse;
}

// SoftmaxCrossEntropyWithLogits of one row of logits x and labels p (any `cols`, 0
// included): b = softmax(x) - p; returns the loss, sum(p * -log(softmax(x))).
template <class T>
SYMFLOW_HD T softmax_xent_row(const T* x, const T* p, T* b, std::int64_t cols) {
  if (cols == 0) return T{0};
  const T m = row_max(x, cols);
  T sum = 0;
  for (std::int64_t j = 0; j < cols; ++j) sum += (b[j] = std::exp(x[j] - m));
  const T lse = std::log(sum), inv = T{1} / sum;
  T acc = 0;
  for (std::int64_t j = 0; j < cols; ++j) {
    acc += p[j] * (lse - (x[j] - m));
    b[j] = b[j] * inv - p[j];
  }
  return acc;
}

// SparseSoftmaxCrossEntropyWithLogits of one row of logits x with the class `label`
// (checked in [0, cols) before): b = softmax(x) - one_hot(label); returns the loss,
// -log(softmax(x)[label]).
template <class T>
SYMFLOW_HD T sparse_softmax_xent_row(const T* x, std::int64_t label, T* b, std::int64_t cols) {
  const T m = row_max(x, cols);
  const T lse = std::log(softmax_row(x, m, b, cols));
  b[label] -= T{1};
  return lse - (x[label] - m);
}

inline std::vector<TensorSpec> infer_softmax(const InferContext& c) {
  check_allowed(c, 0, "logits", fn_accepts<FloatTypes>);
  require_rank_at_least(c.shape(0), 1);
  return {c.inputs[0]};
}

SYMFLOW_OP_DEF(kSoftmaxOp, OpDef{.type = "Softmax", .num_inputs = 1, .infer = infer_softmax});
SYMFLOW_OP_DEF(kLogSoftmaxOp, OpDef{.type = "LogSoftmax", .num_inputs = 1, .infer = infer_softmax});

// ---- cross entropy ------------------------------------------------------------------------
// Both ops take (features [batch, classes], labels) and give (loss [batch],
// backprop [batch, classes]) where backprop = softmax(features) - labels, the gradient
// of the loss with respect to the features.

inline std::vector<TensorSpec> infer_softmax_xent(const InferContext& c) {
  check_same_dtype(c, "SoftmaxCrossEntropyWithLogits", {"features", "labels"});
  check_allowed(c, 0, "features", fn_accepts<FloatTypes>);
  require_rank(c.shape(0), 2);
  require_rank(c.shape(1), 2);
  Shape both = merge_same_shape(c.shape(0), c.shape(1));
  Shape batch = both.has_rank() ? Shape{both.dims()[0]} : Shape::unknown_dims(1);
  if (!both.has_rank()) both = Shape::unknown_dims(2);
  return {{c.dtype(0), batch}, {c.dtype(0), both}};
}

SYMFLOW_OP_DEF(kSoftmaxCrossEntropyWithLogitsOp, OpDef{.type = "SoftmaxCrossEntropyWithLogits",
                                                       .num_inputs = 2,
                                                       .infer = infer_softmax_xent});

inline std::vector<TensorSpec> infer_sparse_softmax_xent(const InferContext& c) {
  check_allowed(c, 0, "features", fn_accepts<FloatTypes>);
  if (c.dtype(1) != DType::int32 && c.dtype(1) != DType::int64)
    throw TypeError("Value passed to parameter 'labels' has DataType " +
                    std::string(dtype_name(c.dtype(1))) +
                    " not in list of allowed values: int32, int64");
  require_rank(c.shape(0), 2);
  require_rank(c.shape(1), 1);
  std::int64_t batch = unknown_dim, classes = unknown_dim;
  if (c.shape(0).has_rank()) {
    batch = c.shape(0).dims()[0];
    classes = c.shape(0).dims()[1];
  }
  if (c.shape(1).has_rank()) batch = merge_dim(batch, c.shape(1).dims()[0]);
  return {{c.dtype(0), Shape{batch}}, {c.dtype(0), Shape{batch, classes}}};
}

SYMFLOW_OP_DEF(kSparseSoftmaxCrossEntropyWithLogitsOp,
               OpDef{.type = "SparseSoftmaxCrossEntropyWithLogits",
                     .num_inputs = 2,
                     .infer = infer_sparse_softmax_xent});

// ---- L2Loss: sum(t^2) / 2 --------------------------------------------------------------
inline std::vector<TensorSpec> infer_l2_loss(const InferContext& c) {
  check_allowed(c, 0, "t", fn_accepts<FloatTypes>);
  return {{c.dtype(0), Shape{}}};
}

SYMFLOW_OP_DEF(kL2LossOp, OpDef{.type = "L2Loss", .num_inputs = 1, .infer = infer_l2_loss});

// ---- BiasAdd and BiasAddGrad (data_format NHWC: the bias runs along the last axis) ----------
struct BiasAddTypes {
  template <class T>
  static constexpr bool accepts = is_number_v<T>;
};

inline void check_nhwc(const std::string& format) {
  if (format != "NHWC")
    throw ValueError("symflow supports data_format \"NHWC\" only, got \"" + format + "\"");
}

inline std::vector<TensorSpec> infer_bias_add(const InferContext& c) {
  check_nhwc(c.attr<std::string>("data_format"));
  check_same_dtype(c, "BiasAdd", {"value", "bias"});
  check_allowed(c, 0, "value", fn_accepts<BiasAddTypes>);
  require_rank_at_least(c.shape(0), 2);
  require_rank(c.shape(1), 1);
  if (!c.shape(0).has_rank()) return {{c.dtype(0), Shape::unknown()}};
  Dims d = c.shape(0).dims();
  if (c.shape(1).has_rank()) d.back() = merge_dim(d.back(), c.shape(1).dims()[0]);
  return {{c.dtype(0), Shape(d)}};
}

inline std::vector<TensorSpec> infer_bias_add_grad(const InferContext& c) {
  check_nhwc(c.attr<std::string>("data_format"));
  check_allowed(c, 0, "out_backprop", fn_accepts<BiasAddTypes>);
  require_rank_at_least(c.shape(0), 2);
  if (!c.shape(0).has_rank()) return {{c.dtype(0), Shape::unknown_dims(1)}};
  return {{c.dtype(0), Shape{c.shape(0).dims().back()}}};
}

SYMFLOW_OP_DEF(kBiasAddOp, OpDef{.type = "BiasAdd", .num_inputs = 2, .infer = infer_bias_add});
SYMFLOW_OP_DEF(kBiasAddGradOp,
               OpDef{.type = "BiasAddGrad", .num_inputs = 1, .infer = infer_bias_add_grad});

}  // namespace detail
}  // namespace symflow
