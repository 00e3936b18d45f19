#pragma once
// symflow::nn: the neural-network ops that are one node each (activations and their
// "XxxGrad" ops, softmax, log-softmax, the cross-entropy ops, L2Loss, BiasAdd), and
// small elementwise ops the composite functions of nn_impl.hpp are built from (Floor,
// Log1p, Rsqrt, Reciprocal, SquaredDifference).
//
// Kernels are tight loops over contiguous buffers, float32 and float64 (and the integer
// types where TensorFlow registers them: Relu, Relu6, BiasAdd, SquaredDifference).

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "symflow/backend/cpu/reduce.hpp"
#include "symflow/core/host_device.hpp"
#include "symflow/ops/math_ops.hpp"
#include "symflow/ops/op_builder.hpp"

namespace symflow {

namespace detail {

// ---- shape-function helpers ---------------------------------------------------------

inline void require_rank(const Shape& s, std::int64_t rank) {
  if (s.has_rank() && s.rank() != rank)
    throw ValueError("Shape must be rank " + std::to_string(rank) + " but is rank " +
                     std::to_string(s.rank()));
}
inline void require_rank_at_least(const Shape& s, std::int64_t rank) {
  if (s.has_rank() && s.rank() < rank)
    throw ValueError("Shape must be at least rank " + std::to_string(rank) + " but is rank " +
                     std::to_string(s.rank()));
}
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

SYMFLOW_CPU_KERNEL_TEMPLATE(nn_unary_kernel, class Fn) {
  visit_dtype(ctx.input(0).dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (Fn::template accepts<T>) {
      if constexpr (std::is_same_v<Fn, ReciprocalFn> && std::is_integral_v<T>) {
        for (T x : ctx.input(0).flat<T>())
          if (x == T{0}) ctx.fail("Integer division by zero");
      }
      cpu::unary<T, T>(ctx, Fn{});
    } else {
      unsupported_dtype(ctx, ctx.input(0).dtype());
    }
  });
}

template <class Fn>
constexpr OpDef nn_unary_op_def() {
  return OpDef{.type = Fn::type,
               .num_inputs = 1,
               .infer = infer_nn_unary<Fn>,
               .cpu_kernel = nn_unary_kernel<Fn>,
               .elementwise = elementwise_of<Fn, 1>()};
}

inline constexpr OpDef kReluOp = nn_unary_op_def<ReluFn>();
inline constexpr OpDef kRelu6Op = nn_unary_op_def<Relu6Fn>();
inline constexpr OpDef kEluOp = nn_unary_op_def<EluFn>();
inline constexpr OpDef kSigmoidOp = nn_unary_op_def<SigmoidFn>();
inline constexpr OpDef kTanhOp = nn_unary_op_def<TanhFn>();
inline constexpr OpDef kFloorOp = nn_unary_op_def<FloorFn>();
inline constexpr OpDef kLog1pOp = nn_unary_op_def<Log1pFn>();
inline constexpr OpDef kRsqrtOp = nn_unary_op_def<RsqrtFn>();
inline constexpr OpDef kReciprocalOp = nn_unary_op_def<ReciprocalFn>();

// LeakyRelu: max(x, alpha * x) for alpha <= 1, with `alpha` a float attr.
struct FloatTypes {
  template <class T>
  static constexpr bool accepts = is_float_v<T>;
};

inline std::vector<TensorSpec> infer_leaky_relu(const InferContext& c) {
  check_allowed(c, 0, "features", fn_accepts<FloatTypes>);
  return {c.inputs[0]};
}

SYMFLOW_CPU_KERNEL(leaky_relu_kernel) {
  const Value& in = ctx.input(0);
  visit_dtype(in.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (is_float_v<T>) {
      const auto alpha = static_cast<T>(ctx.attr<double>("alpha"));
      cpu::unary<T, T>(ctx, [alpha](T x) { return x > T{0} ? x : alpha * x; });
    } else {
      unsupported_dtype(ctx, in.dtype());
    }
  });
}

inline constexpr OpDef kLeakyReluOp{.type = "LeakyRelu",
                                    .num_inputs = 1,
                                    .infer = infer_leaky_relu,
                                    .cpu_kernel = leaky_relu_kernel};

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

// Both inputs have one shape: z[i] = f(x[i], y[i]).
template <class T, class F>
void same_shape_binary(KernelContext& ctx, F f) {
  const Value& a = ctx.input(0);
  const Value& b = ctx.input(1);
  if (a.dims() != b.dims()) cpu::fail_incompatible(ctx, a.dims(), b.dims());
  Value& out = ctx.allocate_output(0, a.dtype(), a.dims());
  const T* x = a.data<T>();
  const T* y = b.data<T>();
  T* z = out.data<T>();
  const std::int64_t n = a.size();
  for (std::int64_t i = 0; i < n; ++i) z[i] = f(x[i], y[i]);
}

SYMFLOW_CPU_KERNEL_TEMPLATE(grad_binary_kernel, class Fn) {
  visit_dtype(ctx.input(0).dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (Fn::template accepts<T>)
      same_shape_binary<T>(ctx, Fn{});
    else
      unsupported_dtype(ctx, ctx.input(0).dtype());
  });
}

template <class Fn>
constexpr OpDef grad_binary_op_def() {
  return OpDef{.type = Fn::type,
               .num_inputs = 2,
               .infer = infer_grad_binary<Fn>,
               .cpu_kernel = grad_binary_kernel<Fn>,
               .elementwise = elementwise_of<Fn, 2, false>()};
}

inline constexpr OpDef kReluGradOp = grad_binary_op_def<ReluGradFn>();
inline constexpr OpDef kRelu6GradOp = grad_binary_op_def<Relu6GradFn>();
inline constexpr OpDef kEluGradOp = grad_binary_op_def<EluGradFn>();
inline constexpr OpDef kSigmoidGradOp = grad_binary_op_def<SigmoidGradFn>();
inline constexpr OpDef kTanhGradOp = grad_binary_op_def<TanhGradFn>();
inline constexpr OpDef kRsqrtGradOp = grad_binary_op_def<RsqrtGradFn>();
inline constexpr OpDef kReciprocalGradOp = grad_binary_op_def<ReciprocalGradFn>();

struct LeakyReluGradFn {
  static constexpr std::string_view type = "LeakyReluGrad";
  static constexpr std::string_view first = "gradients", second = "features";
  template <class T>
  static constexpr bool accepts = is_float_v<T>;
};

SYMFLOW_CPU_KERNEL(leaky_relu_grad_kernel) {
  visit_dtype(ctx.input(0).dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (is_float_v<T>) {
      const auto alpha = static_cast<T>(ctx.attr<double>("alpha"));
      same_shape_binary<T>(ctx, [alpha](T g, T x) { return x > T{0} ? g : alpha * g; });
    } else {
      unsupported_dtype(ctx, ctx.input(0).dtype());
    }
  });
}

inline constexpr OpDef kLeakyReluGradOp{.type = "LeakyReluGrad",
                                        .num_inputs = 2,
                                        .infer = infer_grad_binary<LeakyReluGradFn>,
                                        .cpu_kernel = leaky_relu_grad_kernel};

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
inline constexpr OpDef kSquaredDifferenceOp = binary_op_def<SquaredDifferenceFn>();

// ---- softmax family ---------------------------------------------------------------------

inline std::vector<TensorSpec> infer_softmax(const InferContext& c) {
  check_allowed(c, 0, "logits", fn_accepts<FloatTypes>);
  require_rank_at_least(c.shape(0), 1);
  return {c.inputs[0]};
}

// Elements per intra-op chunk for the row-wise kernels below: rows are independent, so
// each is computed the same way whichever thread takes it.
inline constexpr std::int64_t kRowKernelChunk = 8192;
inline std::int64_t min_rows_per_chunk(std::int64_t cols) {
  return std::max<std::int64_t>(1, kRowKernelChunk / std::max<std::int64_t>(1, cols));
}

// Calls row(x_row, y_row, cols) for every row of the last axis.
template <class Row>
void softmax_like_kernel(KernelContext& ctx, Row row) {
  const Value& in = ctx.input(0);
  if (in.rank() < 1) ctx.fail("logits must have >= 1 dimension, got " + dims_to_string(in.dims()));
  visit_dtype(in.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (is_float_v<T>) {
      Value& out = ctx.allocate_output(0, in.dtype(), in.dims());
      const std::int64_t cols = in.dims().back();
      const std::int64_t rows = cols ? in.size() / cols : 0;
      const T* x = in.data<T>();
      T* y = out.data<T>();
      ctx.parallel_for(rows, min_rows_per_chunk(cols), [&](std::int64_t r0, std::int64_t r1) {
        for (std::int64_t r = r0; r < r1; ++r) row(x + r * cols, y + r * cols, cols);
      });
    } else {
      unsupported_dtype(ctx, in.dtype());
    }
  });
}

// Softmax over the last axis, shifted by the row maximum for stability.
SYMFLOW_CPU_KERNEL(softmax_kernel) {
  softmax_like_kernel(ctx, [](const auto* x, auto* y, std::int64_t cols) {
    using T = std::remove_cvref_t<decltype(*x)>;
    const T m = *std::max_element(x, x + cols);
    T sum = 0;
    for (std::int64_t j = 0; j < cols; ++j) sum += (y[j] = std::exp(x[j] - m));
    const T inv = T{1} / sum;
    for (std::int64_t j = 0; j < cols; ++j) y[j] *= inv;
  });
}

// log(softmax(x)) = (x - max) - log(sum(exp(x - max))).
SYMFLOW_CPU_KERNEL(log_softmax_kernel) {
  softmax_like_kernel(ctx, [](const auto* x, auto* y, std::int64_t cols) {
    using T = std::remove_cvref_t<decltype(*x)>;
    const T m = *std::max_element(x, x + cols);
    T sum = 0;
    for (std::int64_t j = 0; j < cols; ++j) sum += std::exp(x[j] - m);
    const T lse = std::log(sum);
    for (std::int64_t j = 0; j < cols; ++j) y[j] = x[j] - m - lse;
  });
}

inline constexpr OpDef kSoftmaxOp{
    .type = "Softmax", .num_inputs = 1, .infer = infer_softmax, .cpu_kernel = softmax_kernel};
inline constexpr OpDef kLogSoftmaxOp{.type = "LogSoftmax",
                                     .num_inputs = 1,
                                     .infer = infer_softmax,
                                     .cpu_kernel = log_softmax_kernel};

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

// SoftmaxCrossEntropyWithLogits' shapes, as TensorFlow's kernel checks them (the CPU and
// GPU kernels share it).
inline void check_softmax_xent(const KernelContext& ctx, const Value& logits, const Value& labels) {
  if (logits.rank() != 2)
    ctx.fail("logits must be 2-dimensional, got shape " + dims_to_string(logits.dims()));
  if (logits.dims() != labels.dims())
    ctx.fail("logits and labels must be broadcastable: logits_size=" +
             dims_to_string(logits.dims()) + " labels_size=" + dims_to_string(labels.dims()));
}

SYMFLOW_CPU_KERNEL(softmax_xent_kernel) {
  const Value& logits = ctx.input(0);
  const Value& labels = ctx.input(1);
  check_softmax_xent(ctx, logits, labels);
  visit_dtype(logits.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (is_float_v<T>) {
      const std::int64_t rows = logits.dims()[0], cols = logits.dims()[1];
      Value& loss = ctx.allocate_output(0, logits.dtype(), {rows});
      Value& back = ctx.allocate_output(1, logits.dtype(), {rows, cols});
      const T* x = logits.data<T>();
      const T* p = labels.data<T>();
      T* l = loss.data<T>();
      T* b = back.data<T>();
      ctx.parallel_for(rows, min_rows_per_chunk(cols), [&](std::int64_t r0, std::int64_t r1) {
        for (std::int64_t r = r0; r < r1; ++r) {
          const T* xr = x + r * cols;
          const T* pr = p + r * cols;
          T* br = b + r * cols;
          if (cols == 0) {
            l[r] = 0;
            continue;
          }
          const T m = *std::max_element(xr, xr + cols);
          T sum = 0;
          for (std::int64_t j = 0; j < cols; ++j) sum += (br[j] = std::exp(xr[j] - m));
          const T lse = std::log(sum), inv = T{1} / sum;
          T acc = 0;
          for (std::int64_t j = 0; j < cols; ++j) {
            acc += pr[j] * (lse - (xr[j] - m));
            br[j] = br[j] * inv - pr[j];
          }
          l[r] = acc;
        }
      });
    } else {
      unsupported_dtype(ctx, logits.dtype());
    }
  });
}

inline constexpr OpDef kSoftmaxCrossEntropyWithLogitsOp{.type = "SoftmaxCrossEntropyWithLogits",
                                                        .num_inputs = 2,
                                                        .infer = infer_softmax_xent,
                                                        .cpu_kernel = softmax_xent_kernel};

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

// SparseSoftmaxCrossEntropyWithLogits' shapes, checked before its labels are read (the CPU
// and GPU kernels share it). Returns {rows, cols} of the logits.
inline std::pair<std::int64_t, std::int64_t> check_sparse_xent_shapes(const KernelContext& ctx,
                                                                      const Value& logits,
                                                                      const Value& labels) {
  if (logits.rank() != 2)
    ctx.fail("logits must be 2-D, but got shape " + dims_to_string(logits.dims()));
  if (labels.rank() != 1)
    ctx.fail("labels must be 1-D, but got shape " + dims_to_string(labels.dims()));
  if (logits.dims()[0] != labels.dims()[0])
    ctx.fail("logits and labels must have the same first dimension, got logits shape " +
             dims_to_string(logits.dims()) + " and labels shape " + dims_to_string(labels.dims()));
  const std::int64_t rows = logits.dims()[0], cols = logits.dims()[1];
  if (cols == 0)
    ctx.fail("Must have at least one class, but got logits shape " + dims_to_string(logits.dims()));
  return {rows, cols};
}

// Labels out of range are an error, reported with every label as TensorFlow does.
// label_at(r) reads label r on the host (the CPU reads its buffer, the GPU a host copy).
template <class LabelAt>
void check_sparse_labels(const KernelContext& ctx, std::int64_t rows, std::int64_t cols,
                         LabelAt label_at) {
  for (std::int64_t r = 0; r < rows; ++r) {
    const std::int64_t y = label_at(r);
    if (y < 0 || y >= cols) {
      std::string all;
      for (std::int64_t i = 0; i < rows; ++i) all += (i ? " " : "") + std::to_string(label_at(i));
      ctx.fail("Received a label value of " + std::to_string(y) +
               " which is outside the valid range of [0, " + std::to_string(cols) +
               ").  Label values: " + all);
    }
  }
}

SYMFLOW_CPU_KERNEL(sparse_softmax_xent_kernel) {
  const Value& logits = ctx.input(0);
  const Value& labels = ctx.input(1);
  const auto shape = check_sparse_xent_shapes(ctx, logits, labels);
  const std::int64_t rows = shape.first, cols = shape.second;
  auto label_at = [&](std::int64_t r) -> std::int64_t {
    if (labels.dtype() == DType::int32) return labels.data<std::int32_t>()[r];
    return labels.data<std::int64_t>()[r];
  };
  check_sparse_labels(ctx, rows, cols, label_at);
  visit_dtype(logits.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (is_float_v<T>) {
      Value& loss = ctx.allocate_output(0, logits.dtype(), {rows});
      Value& back = ctx.allocate_output(1, logits.dtype(), {rows, cols});
      const T* x = logits.data<T>();
      T* l = loss.data<T>();
      T* b = back.data<T>();
      ctx.parallel_for(rows, min_rows_per_chunk(cols), [&](std::int64_t r0, std::int64_t r1) {
        for (std::int64_t r = r0; r < r1; ++r) {
          const T* xr = x + r * cols;
          T* br = b + r * cols;
          const T m = *std::max_element(xr, xr + cols);
          T sum = 0;
          for (std::int64_t j = 0; j < cols; ++j) sum += (br[j] = std::exp(xr[j] - m));
          const T lse = std::log(sum), inv = T{1} / sum;
          for (std::int64_t j = 0; j < cols; ++j) br[j] *= inv;
          const std::int64_t y = label_at(r);
          l[r] = lse - (xr[y] - m);
          br[y] -= T{1};
        }
      });
    } else {
      unsupported_dtype(ctx, logits.dtype());
    }
  });
}

inline constexpr OpDef kSparseSoftmaxCrossEntropyWithLogitsOp{
    .type = "SparseSoftmaxCrossEntropyWithLogits",
    .num_inputs = 2,
    .infer = infer_sparse_softmax_xent,
    .cpu_kernel = sparse_softmax_xent_kernel};

// ---- L2Loss: sum(t^2) / 2 --------------------------------------------------------------
inline std::vector<TensorSpec> infer_l2_loss(const InferContext& c) {
  check_allowed(c, 0, "t", fn_accepts<FloatTypes>);
  return {{c.dtype(0), Shape{}}};
}

SYMFLOW_CPU_KERNEL(l2_loss_kernel) {
  const Value& in = ctx.input(0);
  visit_dtype(in.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (is_float_v<T>) {
      const T* x = in.data<T>();
      double sum = 0;  // float32 sums in double: a long sum keeps its precision
      for (std::int64_t i = 0, n = in.size(); i < n; ++i)
        sum += static_cast<double>(x[i]) * static_cast<double>(x[i]);
      ctx.set_output(0, Value(static_cast<T>(sum / 2)));
    } else {
      unsupported_dtype(ctx, in.dtype());
    }
  });
}

inline constexpr OpDef kL2LossOp{
    .type = "L2Loss", .num_inputs = 1, .infer = infer_l2_loss, .cpu_kernel = l2_loss_kernel};

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

// BiasAdd's shapes (the CPU and GPU kernels share it). Returns the channels.
inline std::int64_t check_bias_add(const KernelContext& ctx, const Value& value,
                                   const Value& bias) {
  if (value.rank() < 2)
    ctx.fail("Input tensor must be at least 2D: " + dims_to_string(value.dims()));
  if (bias.rank() != 1) ctx.fail("Biases must be 1D: " + dims_to_string(bias.dims()));
  const std::int64_t channels = value.dims().back();
  if (bias.dims()[0] != channels)
    ctx.fail("Must provide as many biases as the last dimension of the input tensor: " +
             dims_to_string(bias.dims()) + " vs. " + dims_to_string(value.dims()));
  return channels;
}

SYMFLOW_CPU_KERNEL(bias_add_kernel) {
  const Value& value = ctx.input(0);
  const Value& bias = ctx.input(1);
  const std::int64_t channels = check_bias_add(ctx, value, bias);
  visit_dtype(value.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (BiasAddTypes::accepts<T>) {
      Value& out = ctx.allocate_output(0, value.dtype(), value.dims());
      const T* x = value.data<T>();
      const T* b = bias.data<T>();
      T* y = out.data<T>();
      const std::int64_t rows = channels ? value.size() / channels : 0;
      ctx.parallel_for(rows, cpu::kReduceMinChunk / std::max<std::int64_t>(1, channels),
                       [&](std::int64_t r0, std::int64_t r1) {
                         for (std::int64_t r = r0; r < r1; ++r)
                           for (std::int64_t j = 0; j < channels; ++j)
                             y[r * channels + j] = add_wrapping(x[r * channels + j], b[j]);
                       });
    } else {
      unsupported_dtype(ctx, value.dtype());
    }
  });
}

inline std::vector<TensorSpec> infer_bias_add_grad(const InferContext& c) {
  check_nhwc(c.attr<std::string>("data_format"));
  check_allowed(c, 0, "out_backprop", fn_accepts<BiasAddTypes>);
  require_rank_at_least(c.shape(0), 2);
  if (!c.shape(0).has_rank()) return {{c.dtype(0), Shape::unknown_dims(1)}};
  return {{c.dtype(0), Shape{c.shape(0).dims().back()}}};
}

SYMFLOW_CPU_KERNEL(bias_add_grad_kernel) {
  const Value& g = ctx.input(0);
  if (g.rank() < 2) ctx.fail("Input tensor must be at least 2D: " + dims_to_string(g.dims()));
  visit_dtype(g.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (BiasAddTypes::accepts<T>) {
      // The sum over every axis but the last: cpu::reduce adds each channel's values in
      // row order, split over threads by channels (bit-identical to one thread).
      AxisMask mask(static_cast<std::size_t>(g.rank()), true);
      mask.back() = false;
      ctx.set_output(0, cpu::reduce<T>(ctx, g, mask, false, T{0}, AddWrappingFn{}));
    } else {
      unsupported_dtype(ctx, g.dtype());
    }
  });
}

inline constexpr OpDef kBiasAddOp{
    .type = "BiasAdd", .num_inputs = 2, .infer = infer_bias_add, .cpu_kernel = bias_add_kernel};
inline constexpr OpDef kBiasAddGradOp{.type = "BiasAddGrad",
                                      .num_inputs = 1,
                                      .infer = infer_bias_add_grad,
                                      .cpu_kernel = bias_add_grad_kernel};

}  // namespace detail

// ---- the functions ------------------------------------------------------------------------

#define SYMFLOW_NN_UNARY_FUNCTION(fn, op_def, default_name)         \
  inline Output fn(const Output& x, std::string_view name = {}) {   \
    return detail::unary(op_def, x, name, default_name);            \
  }                                                                 \
  template <Element T>                                              \
  Tensor<T> fn(const Tensor<T>& x, std::string_view name = {}) {    \
    return Tensor<T>(detail::unary(op_def, x, name, default_name)); \
  }

// tf.sigmoid, tf.tanh, tf.floor, tf.log1p, tf.rsqrt, tf.reciprocal.
SYMFLOW_NN_UNARY_FUNCTION(sigmoid, detail::kSigmoidOp, "Sigmoid")
SYMFLOW_NN_UNARY_FUNCTION(tanh, detail::kTanhOp, "Tanh")
SYMFLOW_NN_UNARY_FUNCTION(floor, detail::kFloorOp, "Floor")
SYMFLOW_NN_UNARY_FUNCTION(log1p, detail::kLog1pOp, "Log1p")
SYMFLOW_NN_UNARY_FUNCTION(rsqrt, detail::kRsqrtOp, "Rsqrt")
SYMFLOW_NN_UNARY_FUNCTION(reciprocal, detail::kReciprocalOp, "Reciprocal")

// tf.squared_difference(x, y): (x - y)^2 with broadcasting.
inline Output squared_difference(const Output& x, const Output& y, std::string_view name = {}) {
  return detail::binary(detail::kSquaredDifferenceOp, x, y, name, "SquaredDifference");
}
template <Element T>
Tensor<T> squared_difference(const Tensor<T>& x, const Tensor<T>& y, std::string_view name = {}) {
  return Tensor<T>(squared_difference(Output(x), Output(y), name));
}

namespace nn {

// tf.nn.relu, tf.nn.relu6, tf.nn.elu, tf.nn.sigmoid, tf.nn.tanh.
SYMFLOW_NN_UNARY_FUNCTION(relu, detail::kReluOp, "Relu")
SYMFLOW_NN_UNARY_FUNCTION(relu6, detail::kRelu6Op, "Relu6")
SYMFLOW_NN_UNARY_FUNCTION(elu, detail::kEluOp, "Elu")
using symflow::sigmoid;
using symflow::tanh;

// tf.nn.softmax(logits) and tf.nn.log_softmax(logits): over the last axis.
SYMFLOW_NN_UNARY_FUNCTION(softmax, detail::kSoftmaxOp, "Softmax")
SYMFLOW_NN_UNARY_FUNCTION(log_softmax, detail::kLogSoftmaxOp, "LogSoftmax")

// tf.nn.l2_loss(t): sum(t ** 2) / 2, a scalar.
SYMFLOW_NN_UNARY_FUNCTION(l2_loss, detail::kL2LossOp, "L2Loss")

// tf.nn.leaky_relu(features, alpha=0.2). Integer features are cast to float32 first, as
// TensorFlow does. The attr holds alpha rounded to float, as TensorFlow's float attrs.
inline Output leaky_relu(const Output& features, double alpha = 0.2, std::string_view name = {}) {
  detail::OpBuilder b(graph_of({features}), name, "LeakyRelu");
  Output x = features;
  if (x.dtype() == DType::int32 || x.dtype() == DType::int64 || x.dtype() == DType::uint8)
    x = cast(x, DType::float32);
  return b
      .build(detail::kLeakyReluOp, {x},
             {{"T", x.dtype()}, {"alpha", static_cast<double>(static_cast<float>(alpha))}})
      .output(0);
}
template <std::floating_point T>
Tensor<T> leaky_relu(const Tensor<T>& features, double alpha = 0.2, std::string_view name = {}) {
  return Tensor<T>(leaky_relu(Output(features), alpha, name));
}

// tf.nn.bias_add(value, bias, data_format="NHWC"): value + bias along the last axis.
// A bias of another dtype is a ValueError, as TensorFlow's conversion of it.
inline Output bias_add(const Output& value, const Output& bias, std::string_view name = {}) {
  if (bias.dtype() != value.dtype())
    throw ValueError("bias: Tensor conversion requested dtype " +
                     std::string(dtype_name(value.dtype())) + " for Tensor with dtype " +
                     std::string(dtype_name(bias.dtype())) + ": " + to_string(bias));
  detail::OpBuilder b(graph_of({value, bias}), name, "BiasAdd");
  return b
      .build(detail::kBiasAddOp, {value, bias},
             {{"T", value.dtype()}, {"data_format", std::string("NHWC")}})
      .output(0);
}
template <Element T>
Tensor<T> bias_add(const Tensor<T>& value, const Tensor<T>& bias, std::string_view name = {}) {
  return Tensor<T>(bias_add(Output(value), Output(bias), name));
}

}  // namespace nn

#undef SYMFLOW_NN_UNARY_FUNCTION

namespace detail {

// Builders of the gradient ops (TensorFlow's gen_nn_ops / gen_math_ops wrappers), used by
// the gradient functions in nn_grad.hpp.
inline Output grad_op(const OpDef& def, const Output& a, const Output& b,
                      std::string_view name = {}) {
  return binary(def, a, b, name, def.type);
}
inline Output leaky_relu_grad(const Output& gradients, const Output& features, double alpha,
                              std::string_view name = {}) {
  OpBuilder b(graph_of({gradients, features}), name, "LeakyReluGrad");
  return b
      .build(kLeakyReluGradOp, {gradients, features},
             {{"T", gradients.dtype()}, {"alpha", static_cast<double>(static_cast<float>(alpha))}})
      .output(0);
}
inline Output bias_add_grad(const Output& out_backprop, std::string_view name = {}) {
  OpBuilder b(graph_of({out_backprop}), name, "BiasAddGrad");
  return b
      .build(kBiasAddGradOp, {out_backprop},
             {{"T", out_backprop.dtype()}, {"data_format", std::string("NHWC")}})
      .output(0);
}

}  // namespace detail
}  // namespace symflow
