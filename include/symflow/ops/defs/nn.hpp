#pragma once
// The neural-network ops' descriptions (symflow::nn: the ops that are one node each,
// activations and their "XxxGrad" ops, softmax, log-softmax, the cross-entropy ops,
// L2Loss, BiasAdd, TopKV2 and InTopKV2, and the small elementwise ops the composite
// functions of nn_impl.hpp are built from: Floor, Log1p, Rsqrt, Reciprocal,
// SquaredDifference), and the fused batch normalisation ops (FusedBatchNorm, V2, V3 and
// their gradient ops): their functors
// and dtype predicates, shape functions and OpDefs. No kernel and no graph: the CPU
// kernels are in backend/cpu/kernels/nn.hpp, the graph-building functions in
// ops/nn_ops.hpp.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "symflow/core/attr_value.hpp"
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

// ---- BiasAdd and BiasAddGrad ---------------------------------------------------------------
// data_format "NHWC": the bias runs along the last axis; "NCHW": along axis 1, of a tensor
// of rank 3 or more (TensorFlow's rule for any rank).
struct BiasAddTypes {
  template <class T>
  static constexpr bool accepts = is_number_v<T>;
};

// Whether data_format is "NCHW" (else "NHWC"); TensorFlow's attr message for another.
inline bool bias_nchw(std::string_view op, const std::string& format) {
  if (format == "NHWC") return false;
  if (format == "NCHW") return true;
  throw ValueError("Attr 'data_format' of '" + std::string(op) + "' Op passed string '" + format +
                   "' not in: \"NHWC\", \"NCHW\".");
}

// The axis BiasAdd adds along in a tensor of rank `rank`.
inline std::size_t bias_axis(bool nchw, std::size_t rank) { return nchw ? 1 : rank - 1; }

inline std::vector<TensorSpec> infer_bias_add(const InferContext& c) {
  const bool nchw = bias_nchw("BiasAdd", c.attr<std::string>("data_format"));
  check_same_dtype(c, "BiasAdd", {"value", "bias"});
  check_allowed(c, 0, "value", fn_accepts<BiasAddTypes>);
  require_rank_at_least(c.shape(0), nchw ? 3 : 2);
  require_rank(c.shape(1), 1);
  if (!c.shape(0).has_rank()) return {{c.dtype(0), Shape::unknown()}};
  Dims d = c.shape(0).dims();
  const std::size_t axis = bias_axis(nchw, d.size());
  if (c.shape(1).has_rank()) d[axis] = merge_dim(d[axis], c.shape(1).dims()[0]);
  return {{c.dtype(0), Shape(d)}};
}

inline std::vector<TensorSpec> infer_bias_add_grad(const InferContext& c) {
  const bool nchw = bias_nchw("BiasAddGrad", c.attr<std::string>("data_format"));
  check_allowed(c, 0, "out_backprop", fn_accepts<BiasAddTypes>);
  require_rank_at_least(c.shape(0), nchw ? 3 : 2);
  if (!c.shape(0).has_rank()) return {{c.dtype(0), Shape::unknown_dims(1)}};
  const Dims& d = c.shape(0).dims();
  return {{c.dtype(0), Shape{d[bias_axis(nchw, d.size())]}}};
}

SYMFLOW_OP_DEF(kBiasAddOp, OpDef{.type = "BiasAdd", .num_inputs = 2, .infer = infer_bias_add});
SYMFLOW_OP_DEF(kBiasAddGradOp,
               OpDef{.type = "BiasAddGrad", .num_inputs = 1, .infer = infer_bias_add_grad});

// ---- TopKV2 and InTopKV2 -------------------------------------------------------------------

// TopKV2's input: TensorFlow's real number types (symflow has no int8, int16, half).
constexpr bool is_top_k_dtype(DType d) {
  return d != DType::bool_ && d != DType::string && d != DType::invalid;
}
inline bool is_top_k_count_dtype(DType d) { return d == DType::int32 || d == DType::int64; }

// The integer elements of a constant input, widened (k, targets).
inline std::vector<std::int64_t> constant_int_elements(const Value& v) {
  std::vector<std::int64_t> out;
  if (v.dtype() == DType::int32)
    for (std::int32_t x : v.flat<std::int32_t>()) out.push_back(x);
  else if (v.dtype() == DType::int64)
    for (std::int64_t x : v.flat<std::int64_t>()) out.push_back(x);
  return out;
}

// (input [..., n], k) -> (values [..., k], indices [..., k]); k, when constant, must be a
// non-negative scalar no larger than a known n (TensorFlow's messages).
inline std::vector<TensorSpec> infer_top_k(const InferContext& c) {
  if (!is_top_k_dtype(c.dtype(0)))
    throw TypeError("Value passed to parameter 'input' has DataType " +
                    std::string(dtype_name(c.dtype(0))) +
                    " not in list of allowed values: float32, float64, int32, uint8, int16, int8, "
                    "int64, bfloat16, uint16, float16, uint32, uint64");
  if (!is_top_k_count_dtype(c.dtype(1)))
    throw TypeError("Value passed to parameter 'k' has DataType " +
                    std::string(dtype_name(c.dtype(1))) +
                    " not in list of allowed values: int16, int32, int64");
  const Shape& input = c.shape(0);
  require_rank_at_least(input, 1);
  std::int64_t k = unknown_dim;
  if (const Value* k_value = c.constant(1)) {
    if (k_value->rank() != 0)
      throw ValueError("Input must be scalar but has rank " + std::to_string(k_value->rank()));
    k = constant_int_elements(*k_value).at(0);
    if (k < 0)
      throw ValueError("Dimension size, given by scalar input 1, must be non-negative but is " +
                       std::to_string(k));
  }
  const DType index_type = c.attr<DType>("index_type");
  if (!input.has_rank()) return {{c.dtype(0), Shape::unknown()}, {index_type, Shape::unknown()}};
  Dims dims = input.dims();
  if (dims.back() >= 0 && k >= 0 && dims.back() < k)
    throw ValueError("input must have last dimension >= k = " + std::to_string(k) + " but is " +
                     std::to_string(dims.back()));
  dims.back() = k;
  return {{c.dtype(0), Shape(dims)}, {index_type, Shape(dims)}};
}

SYMFLOW_OP_DEF(kTopKV2Op, OpDef{.type = "TopKV2", .num_inputs = 2, .infer = infer_top_k});

// (predictions [batch, classes] float32, targets [batch], k) -> bool [batch]. TensorFlow
// checks k's rank only when the op runs.
inline std::vector<TensorSpec> infer_in_top_k(const InferContext& c) {
  if (c.dtype(0) != DType::float32)
    throw TypeError("Input 'predictions' of 'InTopKV2' Op has type " +
                    std::string(dtype_name(c.dtype(0))) +
                    " that does not match expected type of float32.");
  if (!is_top_k_count_dtype(c.dtype(1)))
    throw TypeError("Value passed to parameter 'targets' has DataType " +
                    std::string(dtype_name(c.dtype(1))) +
                    " not in list of allowed values: int32, int64");
  if (c.dtype(2) != c.dtype(1))
    throw TypeError("Input 'k' of 'InTopKV2' Op has type " + std::string(dtype_name(c.dtype(2))) +
                    " that does not match type " + std::string(dtype_name(c.dtype(1))) +
                    " of argument 'targets'.");
  require_rank(c.shape(0), 2);
  require_rank(c.shape(1), 1);
  std::int64_t batch = c.shape(0).has_rank() ? c.shape(0).dim(0) : unknown_dim;
  if (c.shape(1).has_rank()) batch = merge_dim(batch, c.shape(1).dim(0));
  return {{DType::bool_, Shape{batch}}};
}

SYMFLOW_OP_DEF(kInTopKV2Op, OpDef{.type = "InTopKV2", .num_inputs = 3, .infer = infer_in_top_k});

// One row of InTopKV2 (the CPU and Thrust kernels share it): whether class `target` is
// among the k largest of the row's `classes` predictions. Ties count for the target
// (only strictly larger predictions push it out); a target outside [0, classes) or a
// row with a non-finite prediction anywhere gives false, as TensorFlow's kernel.
// Whether x is finite: x - x is exactly 0 for a finite x and NaN for an infinity or a NaN
// (a test device code can run without the host's libm).
template <class T>
SYMFLOW_HD bool is_finite_number(T x) {
  return x - x == T{0};
}

template <class T, class I>
SYMFLOW_HD bool in_top_k_row(const T* predictions, std::int64_t classes, I target, I k) {
  if (target < 0 || static_cast<std::int64_t>(target) >= classes) return false;
  const T target_prediction = predictions[target];
  if (!is_finite_number(target_prediction)) return false;
  std::int64_t larger = 0;
  for (std::int64_t i = 0; i < classes; ++i) {
    const T p = predictions[i];
    if (!is_finite_number(p)) return false;
    if (p > target_prediction) ++larger;
  }
  return larger < static_cast<std::int64_t>(k);
}

// ---- FusedBatchNorm, FusedBatchNormV2, FusedBatchNormV3 and their gradient ops ------------
// x is normalised per channel: the channel axis is the last (NHWC, and NDHWC for the V3
// ops) or axis 1 (NCHW, NCDHW). Of TensorFlow's T (half, bfloat16, float) and U (float;
// V3 also bfloat16) symflow has float32 only; the messages list TensorFlow's sets.

namespace batch_norm {

// Where a data format puts the channels, and the rank it needs.
struct Format {
  int rank = 4;               // 4: NHWC, NCHW; 5: NDHWC, NCDHW
  bool channels_last = true;  // NHWC, NDHWC
  int channel_axis() const { return channels_last ? rank - 1 : 1; }
};

// The format `data_format` names; nullopt when the op does not take it (`five_d`: the V3
// ops, which also take NDHWC and NCDHW).
inline std::optional<Format> format_of(std::string_view data_format, bool five_d) {
  if (data_format == "NHWC") return Format{4, true};
  if (data_format == "NCHW") return Format{4, false};
  if (five_d && data_format == "NDHWC") return Format{5, true};
  if (five_d && data_format == "NCDHW") return Format{5, false};
  return std::nullopt;
}

// TensorFlow's op_def_library message for a data_format outside the op's list.
inline std::string format_error(std::string_view op, std::string_view data_format, bool five_d) {
  return "Attr 'data_format' of '" + std::string(op) + "' Op passed string '" +
         std::string(data_format) + "' not in: \"NHWC\", \"NCHW\"" +
         (five_d ? ", \"NDHWC\", \"NCDHW\"" : "") + ".";
}

// What differs between the versions of one family of ops.
struct OpVersion {
  std::string_view type;       // "FusedBatchNormV2"
  std::string_view t_allowed;  // TensorFlow's allowed T, for the messages
  std::string_view u_allowed;  // TensorFlow's allowed U; empty: every input is T (V1)
  bool five_d = false;         // takes NDHWC and NCDHW (V3)
};

inline constexpr OpVersion kForwardVersions[] = {
    {"FusedBatchNorm", "float32", "", false},
    {"FusedBatchNormV2", "float16, bfloat16, float32", "float32", false},
    {"FusedBatchNormV3", "float16, bfloat16, float32", "bfloat16, float32", true},
};
inline constexpr OpVersion kGradVersions[] = {
    {"FusedBatchNormGrad", "float32", "", false},
    {"FusedBatchNormGradV2", "float16, bfloat16, float32", "float32", false},
    {"FusedBatchNormGradV3", "float16, bfloat16, float32", "float32", true},
};

// TensorFlow's op_def_library checks an op's inputs in order: the first input of a type
// attr sets it and must have an allowed dtype (float32, the only one symflow has), each
// later one must have the dtype it set, and a fixed-type input its own type.
inline void require_float32(const InferContext& c, std::size_t i, std::string_view param,
                            std::string_view allowed) {
  if (c.dtype(i) != DType::float32)
    throw TypeError("Value passed to parameter '" + std::string(param) + "' has DataType " +
                    std::string(dtype_name(c.dtype(i))) +
                    " not in list of allowed values: " + std::string(allowed));
}
inline void require_dtype_of(const InferContext& c, std::string_view op, std::size_t i,
                             std::string_view param, std::size_t first,
                             std::string_view first_param) {
  if (c.dtype(i) != c.dtype(first))
    throw TypeError("Input '" + std::string(param) + "' of '" + std::string(op) + "' Op has type " +
                    std::string(dtype_name(c.dtype(i))) + " that does not match type " +
                    std::string(dtype_name(c.dtype(first))) + " of argument '" +
                    std::string(first_param) + "'.");
}
inline void require_fixed_float32(const InferContext& c, std::string_view op, std::size_t i,
                                  std::string_view param) {
  if (c.dtype(i) != DType::float32)
    throw TypeError("Input '" + std::string(param) + "' of '" + std::string(op) + "' Op has type " +
                    std::string(dtype_name(c.dtype(i))) +
                    " that does not match expected type of float32.");
}

inline Format format_attr(const InferContext& c, const OpVersion& v) {
  const auto& name = c.attr<std::string>("data_format");
  const std::optional<Format> f = format_of(name, v.five_d);
  if (!f) throw ValueError(format_error(v.type, name, v.five_d));
  return *f;
}

// A rank-`f.rank` shape with its channel dim `channels`: `s` (checked to have that rank)
// or, when its rank is unknown, unknown dims around the channels.
inline Shape with_channels(const Shape& s, const Format& f, std::int64_t channels) {
  Dims d = s.has_rank() ? s.dims() : Dims(static_cast<std::size_t>(f.rank), unknown_dim);
  d[static_cast<std::size_t>(f.channel_axis())] = channels;
  return Shape(d);
}

// Merges the length of the vector input `i` (checked rank 1) into `channels`.
inline std::int64_t merge_channels(const InferContext& c, std::size_t i, std::int64_t channels) {
  require_rank(c.shape(i), 1);
  return c.shape(i).has_rank() ? merge_dim(channels, c.shape(i).dim(0)) : channels;
}

inline std::int64_t channel_dim(const Shape& s, const Format& f) {
  return s.has_rank() ? s.dim(f.channel_axis()) : unknown_dim;
}

// (x, scale, offset, mean, variance) -> (y, batch_mean, batch_variance, reserve_space_1,
// reserve_space_2[, reserve_space_3]), TensorFlow's FusedBatchNormShape: mean and variance
// count only where they are read, in inference or with exponential_avg_factor != 1.
template <int Version>
std::vector<TensorSpec> infer_forward(const InferContext& c) {
  const OpVersion& v = kForwardVersions[Version - 1];
  require_float32(c, 0, "x", v.t_allowed);
  if (v.u_allowed.empty()) {
    constexpr std::string_view kParams[] = {"x", "scale", "offset", "mean", "variance"};
    for (std::size_t i = 1; i < 5; ++i) require_dtype_of(c, v.type, i, kParams[i], 0, "x");
  } else {
    require_float32(c, 1, "scale", v.u_allowed);
    require_dtype_of(c, v.type, 2, "offset", 1, "scale");
    require_dtype_of(c, v.type, 3, "mean", 1, "scale");
    require_dtype_of(c, v.type, 4, "variance", 1, "scale");
  }
  const Format f = format_attr(c, v);
  require_rank(c.shape(0), f.rank);
  const bool reads_running_stats =
      !c.attr<bool>("is_training") || c.attr<double>("exponential_avg_factor") != 1.0;
  std::int64_t channels = channel_dim(c.shape(0), f);
  for (std::size_t i = 1; i < (reads_running_stats ? 5u : 3u); ++i)
    channels = merge_channels(c, i, channels);
  const TensorSpec vector{c.dtype(1), Shape{channels}};
  std::vector<TensorSpec> out{
      {c.dtype(0), with_channels(c.shape(0), f, channels)}, vector, vector, vector, vector};
  if constexpr (Version == 3) out.push_back({c.dtype(1), Shape::unknown()});
  return out;
}

// (y_backprop, x, scale, reserve_space_1, reserve_space_2[, reserve_space_3]) ->
// (x_backprop, scale_backprop, offset_backprop, and two empty vectors), TensorFlow's
// FusedBatchNormGradShape.
template <int Version>
std::vector<TensorSpec> infer_grad(const InferContext& c) {
  const OpVersion& v = kGradVersions[Version - 1];
  require_float32(c, 0, "y_backprop", v.t_allowed);
  require_dtype_of(c, v.type, 1, "x", 0, "y_backprop");
  if (v.u_allowed.empty()) {
    require_dtype_of(c, v.type, 2, "scale", 0, "y_backprop");
    require_dtype_of(c, v.type, 3, "reserve_space_1", 0, "y_backprop");
    require_dtype_of(c, v.type, 4, "reserve_space_2", 0, "y_backprop");
  } else {
    require_fixed_float32(c, v.type, 2, "scale");
    require_float32(c, 3, "reserve_space_1", v.u_allowed);
    require_dtype_of(c, v.type, 4, "reserve_space_2", 3, "reserve_space_1");
    if constexpr (Version == 3)
      require_dtype_of(c, v.type, 5, "reserve_space_3", 3, "reserve_space_1");
  }
  const Format f = format_attr(c, v);
  require_rank(c.shape(0), f.rank);
  require_rank(c.shape(1), f.rank);
  std::int64_t channels = merge_dim(channel_dim(c.shape(0), f), channel_dim(c.shape(1), f));
  for (std::size_t i = 2; i < 5; ++i) channels = merge_channels(c, i, channels);
  const DType u = c.dtype(3);
  return {{c.dtype(0), with_channels(c.shape(0), f, channels)},
          {u, Shape{channels}},
          {u, Shape{channels}},
          {u, Shape{0}},
          {u, Shape{0}}};
}

}  // namespace batch_norm

SYMFLOW_OP_DEF(kFusedBatchNormOp, OpDef{.type = "FusedBatchNorm",
                                        .num_inputs = 5,
                                        .infer = batch_norm::infer_forward<1>});
SYMFLOW_OP_DEF(kFusedBatchNormV2Op, OpDef{.type = "FusedBatchNormV2",
                                          .num_inputs = 5,
                                          .infer = batch_norm::infer_forward<2>});
SYMFLOW_OP_DEF(kFusedBatchNormV3Op, OpDef{.type = "FusedBatchNormV3",
                                          .num_inputs = 5,
                                          .infer = batch_norm::infer_forward<3>});
SYMFLOW_OP_DEF(kFusedBatchNormGradOp, OpDef{.type = "FusedBatchNormGrad",
                                            .num_inputs = 5,
                                            .infer = batch_norm::infer_grad<1>});
SYMFLOW_OP_DEF(kFusedBatchNormGradV2Op, OpDef{.type = "FusedBatchNormGradV2",
                                              .num_inputs = 5,
                                              .infer = batch_norm::infer_grad<2>});
SYMFLOW_OP_DEF(kFusedBatchNormGradV3Op, OpDef{.type = "FusedBatchNormGradV3",
                                              .num_inputs = 6,
                                              .infer = batch_norm::infer_grad<3>});

}  // namespace detail
}  // namespace symflow
