#pragma once
// Thrust kernels: elementwise ops. Arithmetic (Add ... SquaredDifference, AddV2, FloorDiv,
// FloorMod, Mod, DivNoNan, with NumPy broadcasting), unary math (IsNan, IsInf and IsFinite among
// them), activations and their "XxxGrad" ops, comparisons, logical ops, Select, SelectV2,
// Cast, AddN, ZerosLike, OnesLike and Fill.
//
// Every element goes through the very functor the CPU kernel calls (ops/defs/*.hpp, marked
// SYMFLOW_HD), so results are the CPU's formulas; the checks before a launch (shapes,
// dtypes, integer division by zero) are the CPU kernel's, with its messages. An op whose
// CPU kernel uses a lambda (LogicalNot, LeakyRelu, LeakyReluGrad) has a functor here with
// the same formula.

#include <algorithm>
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "symflow/backend/cpu/elementwise.hpp"
#include "symflow/backend/cpu/kernel_table.hpp"
#include "symflow/backend/cpu/kernels/array.hpp"
#include "symflow/backend/cpu/kernels/logic.hpp"
#include "symflow/backend/cpu/kernels/math.hpp"
#include "symflow/backend/cpu/kernels/shape.hpp"
#include "symflow/backend/thrust/broadcast.cuh"
#include "symflow/backend/thrust/kernel_util.cuh"
#include "symflow/ops/defs/array.hpp"
#include "symflow/ops/defs/logic.hpp"
#include "symflow/ops/defs/math.hpp"
#include "symflow/ops/defs/nn.hpp"
#include "symflow/ops/defs/shape.hpp"

namespace symflow::thrust_backend {

namespace elementwise_kernels {

namespace sd = symflow::detail;

// ---- per-element functors (device code) ----------------------------------------------

template <class F, class T, class R>
struct UnaryMap {
  F f;
  const T* x;
  R* y;
  SYMFLOW_HD void operator()(std::int64_t i) const { y[i] = f(x[i]); }
};

// Both operands have the output's layout.
template <class F, class T, class R>
struct SameShapeMap {
  F f;
  const T* x;
  const T* y;
  R* z;
  SYMFLOW_HD void operator()(std::int64_t i) const { z[i] = f(x[i], y[i]); }
};
// y is one element.
template <class F, class T, class R>
struct ScalarYMap {
  F f;
  const T* x;
  const T* y;
  R* z;
  SYMFLOW_HD void operator()(std::int64_t i) const { z[i] = f(x[i], y[0]); }
};
// x is one element.
template <class F, class T, class R>
struct ScalarXMap {
  F f;
  const T* x;
  const T* y;
  R* z;
  SYMFLOW_HD void operator()(std::int64_t i) const { z[i] = f(x[0], y[i]); }
};
// General broadcasting, the layout carried by value.
template <class F, class T, class R>
struct BroadcastMap {
  F f;
  const T* x;
  const T* y;
  R* z;
  BroadcastOffsets<2> layout;
  SYMFLOW_HD void operator()(std::int64_t i) const {
    std::int64_t o[2];
    layout.offsets(i, o);
    z[i] = f(x[o[0]], y[o[1]]);
  }
};
// General broadcasting with more than kMaxBroadcastRank axes: the layout (layout_words:
// dims, x's strides, y's strides) in device memory.
template <class F, class T, class R>
struct LongBroadcastMap {
  F f;
  const T* x;
  const T* y;
  R* z;
  const std::int64_t* words;
  int rank;
  SYMFLOW_HD void operator()(std::int64_t i) const {
    z[i] = f(x[broadcast_offset(i, rank, words, words + rank)],
             y[broadcast_offset(i, rank, words, words + 2 * rank)]);
  }
};

// Functors for the ops whose CPU kernel has a lambda: the same formulas.
struct LogicalNotFn {
  SYMFLOW_HD bool operator()(bool a) const { return !a; }
};
template <class T>
struct LeakyReluOp {
  T alpha;
  SYMFLOW_HD T operator()(T x) const { return x > T{0} ? x : alpha * x; }
};
template <class T>
struct LeakyReluGradOp {
  T alpha;
  SYMFLOW_HD T operator()(T g, T x) const { return x > T{0} ? g : alpha * g; }
};
template <class D, class S>
struct CastOp {
  SYMFLOW_HD D operator()(S x) const { return sd::cast_element<D, S>(x); }
};

// Select: o[i] = c[i / inner] ? t[i] : e[i] (inner == 1: the condition has t's shape).
template <class T>
struct SelectMap {
  const bool* c;
  const T* t;
  const T* e;
  T* o;
  std::int64_t inner;
  SYMFLOW_HD void operator()(std::int64_t i) const {
    o[i] = c[inner == 1 ? i : i / inner] ? t[i] : e[i];
  }
};

// SelectV2: condition, t and e broadcast together, the layout carried by value.
template <class T>
struct SelectV2Map {
  const bool* c;
  const T* t;
  const T* e;
  T* o;
  BroadcastOffsets<3> layout;
  SYMFLOW_HD void operator()(std::int64_t i) const {
    std::int64_t at[3];
    layout.offsets(i, at);
    o[i] = c[at[0]] ? t[at[1]] : e[at[2]];
  }
};
// More than kMaxBroadcastRank axes: the layout's words (dims, then the strides of the
// condition, t and e) in device memory.
template <class T>
struct LongSelectV2Map {
  const bool* c;
  const T* t;
  const T* e;
  T* o;
  const std::int64_t* words;
  int rank;
  SYMFLOW_HD void operator()(std::int64_t i) const {
    const std::int64_t* dims = words;
    o[i] = c[broadcast_offset(i, rank, dims, words + rank)]
               ? t[broadcast_offset(i, rank, dims, words + 2 * rank)]
               : e[broadcast_offset(i, rank, dims, words + 3 * rank)];
  }
};

// AddN over up to kAddNChunk inputs at a time: y = x0 + x1 + ... in input order, each
// element summed as the CPU kernel sums it; later chunks add onto y.
inline constexpr int kAddNChunk = 8;
template <class T>
struct AddNMap {
  const T* x[kAddNChunk];
  int count;
  bool onto_y;  // y already holds the sum of the earlier inputs
  T* y;
  SYMFLOW_HD void operator()(std::int64_t i) const {
    T acc = onto_y ? y[i] : x[0][i];
    for (int k = onto_y ? 0 : 1; k < count; ++k) acc = sd::add_wrapping(acc, x[k][i]);
    y[i] = acc;
  }
};

// Every element the first element of `src` (Fill's value, on the device).
template <class T>
struct FillFromMap {
  const T* src;
  T* y;
  SYMFLOW_HD void operator()(std::int64_t i) const { y[i] = src[0]; }
};

// ---- launches (host code) -----------------------------------------------------------------

template <class Map>
void launch(std::int64_t n, const Map& map) {
  if (n <= 0) return;
  thrust::for_each_n(policy(), thrust::counting_iterator<std::int64_t>(0), n, map);
}

// Output 0 of input 0's dims: y = f(x).
template <class T, class R, class F>
void map_unary(KernelContext& ctx, F f) {
  const Value& in = ctx.input(0);
  Value& out = output(ctx, 0, dtype_v<R>, in.dims());
  launch(out.size(), UnaryMap<F, T, R>{f, in_raw<T>(ctx, 0), out.template device_data<R>()});
}

// Output 0 of the broadcast shape: z = f(x, y), as cpu::binary.
template <class T, class R, class F>
void map_binary(KernelContext& ctx, F f) {
  const Value& a = ctx.input(0);
  const Value& b = ctx.input(1);
  const Dims out_dims = cpu::broadcast_out_dims(ctx, a.dims(), b.dims());
  Value& out = output(ctx, 0, dtype_v<R>, out_dims);
  const std::int64_t n = out.size();
  if (n == 0) return;
  const T* x = in_raw<T>(ctx, 0);
  const T* y = in_raw<T>(ctx, 1);
  R* z = out.template device_data<R>();
  if (a.size() == n && b.size() == n) {
    launch(n, SameShapeMap<F, T, R>{f, x, y, z});
  } else if (b.size() == 1 && a.size() == n) {
    launch(n, ScalarYMap<F, T, R>{f, x, y, z});
  } else if (a.size() == 1 && b.size() == n) {
    launch(n, ScalarXMap<F, T, R>{f, x, y, z});
  } else {
    const Dims* shapes[2] = {&a.dims(), &b.dims()};
    auto layout = broadcast_layout(out_dims, shapes);
    if (!layout) cpu::fail_incompatible(ctx, a.dims(), b.dims());
    if (auto offsets = BroadcastOffsets<2>::from(*layout)) {
      launch(n, BroadcastMap<F, T, R>{f, x, y, z, *offsets});
    } else {
      const std::vector<std::int64_t> words = layout_words(*layout);
      const Value meta =
          copy_to_device(Value::from_vector(words, Dims{static_cast<std::int64_t>(words.size())}));
      launch(n, LongBroadcastMap<F, T, R>{f, x, y, z, meta.device_data<std::int64_t>(),
                                          layout->rank()});
    }
  }
}

// Both inputs of one shape (the "XxxGrad" ops), as detail::same_shape_binary.
template <class T, class F>
void map_same_shape(KernelContext& ctx, F f) {
  const Value& a = ctx.input(0);
  const Value& b = ctx.input(1);
  if (a.dims() != b.dims()) cpu::fail_incompatible(ctx, a.dims(), b.dims());
  Value& out = output(ctx, 0, a.dtype(), a.dims());
  launch(out.size(),
         SameShapeMap<F, T, T>{f, in_raw<T>(ctx, 0), in_raw<T>(ctx, 1), out.device_data<T>()});
}

// ---- kernels --------------------------------------------------------------------------------

template <class Fn>
void binary_kernel(KernelContext& ctx) {
  visit_dtype(ctx.input(0).dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (Fn::template accepts<T>) {
      // The CPU kernel's check of y, on a host copy of y (made only where there is one).
      sd::YCheck<Fn, T>::run(ctx, [&] { return host_vector<T>(ctx.input(1)); });
      map_binary<T, T>(ctx, Fn{});
    } else {
      sd::unsupported_dtype(ctx, ctx.input(0).dtype());
    }
  });
}

template <class Fn>
void unary_kernel(KernelContext& ctx) {
  visit_dtype(ctx.input(0).dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (Fn::template accepts<T>)
      map_unary<T, T>(ctx, Fn{});
    else
      sd::unsupported_dtype(ctx, ctx.input(0).dtype());
  });
}

// As detail::nn_unary_kernel: Reciprocal of an integer zero fails.
template <class Fn>
void nn_unary_kernel(KernelContext& ctx) {
  visit_dtype(ctx.input(0).dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (Fn::template accepts<T>) {
      if constexpr (std::is_same_v<Fn, sd::ReciprocalFn> && std::is_integral_v<T>) {
        for (T x : host_vector<T>(ctx.input(0)))
          if (x == T{0}) ctx.fail("Integer division by zero");
      }
      map_unary<T, T>(ctx, Fn{});
    } else {
      sd::unsupported_dtype(ctx, ctx.input(0).dtype());
    }
  });
}

inline void leaky_relu_kernel(KernelContext& ctx) {
  visit_dtype(ctx.input(0).dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (sd::is_float_v<T>)
      map_unary<T, T>(ctx, LeakyReluOp<T>{static_cast<T>(ctx.attr<double>("alpha"))});
    else
      sd::unsupported_dtype(ctx, ctx.input(0).dtype());
  });
}

template <class Fn>
void grad_binary_kernel(KernelContext& ctx) {
  visit_dtype(ctx.input(0).dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (Fn::template accepts<T>)
      map_same_shape<T>(ctx, Fn{});
    else
      sd::unsupported_dtype(ctx, ctx.input(0).dtype());
  });
}

inline void leaky_relu_grad_kernel(KernelContext& ctx) {
  visit_dtype(ctx.input(0).dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (sd::is_float_v<T>)
      map_same_shape<T>(ctx, LeakyReluGradOp<T>{static_cast<T>(ctx.attr<double>("alpha"))});
    else
      sd::unsupported_dtype(ctx, ctx.input(0).dtype());
  });
}

template <class Fn>
void compare_kernel(KernelContext& ctx) {
  visit_dtype(ctx.input(0).dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (Fn::template accepts<T>)
      map_binary<T, bool>(ctx, Fn{});
    else
      sd::unsupported_dtype(ctx, ctx.input(0).dtype());
  });
}

template <class Fn>
void logical_binary_kernel(KernelContext& ctx) {
  map_binary<bool, bool>(ctx, Fn{});
}
inline void logical_not_kernel(KernelContext& ctx) { map_unary<bool, bool>(ctx, LogicalNotFn{}); }

// IsNan, IsInf, IsFinite: float in, bool out.
template <class Fn>
void float_class_kernel(KernelContext& ctx) {
  visit_dtype(ctx.input(0).dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (Fn::template accepts<T>)
      map_unary<T, bool>(ctx, Fn{});
    else
      sd::unsupported_dtype(ctx, ctx.input(0).dtype());
  });
}

inline void cast_kernel(KernelContext& ctx) {
  visit_dtype(ctx.input(0).dtype(), [&](auto from) {
    using S = typename decltype(from)::type;
    visit_dtype(ctx.attr<DType>("DstT"), [&](auto to) {
      using D = typename decltype(to)::type;
      map_unary<S, D>(ctx, CastOp<D, S>{});
    });
  });
}

// As detail::select_kernel.
inline void select_kernel(KernelContext& ctx) {
  const Value& cond = ctx.input(0);
  const Value& t = ctx.input(1);
  const Value& e = ctx.input(2);
  const std::int64_t inner = sd::select_inner(ctx, cond, t, e);
  if (cond.rank() == 0) {
    const bool c = host_vector<bool>(cond).at(0);
    ctx.set_output(0, c ? t : e);
    return;
  }
  Value& out = output(ctx, 0, t.dtype(), t.dims());
  visit_dtype(t.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    launch(out.size(), SelectMap<T>{in_raw<bool>(ctx, 0), in_raw<T>(ctx, 1), in_raw<T>(ctx, 2),
                                    out.device_data<T>(), inner});
  });
}

// As detail::select_v2_kernel.
inline void select_v2_kernel(KernelContext& ctx) {
  const Value& cond = ctx.input(0);
  const Value& t = ctx.input(1);
  const Value& e = ctx.input(2);
  const Dims out_dims = sd::select_v2_dims(ctx, cond.dims(), t.dims(), e.dims());
  if (cond.rank() == 0) {  // a whole branch, forwarded when no broadcasting is needed
    const Value& chosen = host_vector<bool>(cond).at(0) ? t : e;
    if (chosen.dims() == out_dims) {
      ctx.set_output(0, chosen);
      return;
    }
  }
  Value& out = output(ctx, 0, t.dtype(), out_dims);
  const std::int64_t n = out.size();
  if (n == 0) return;
  const Dims* shapes[3] = {&cond.dims(), &t.dims(), &e.dims()};
  const auto layout = broadcast_layout(out_dims, shapes);
  if (!layout) ctx.fail("SelectV2 inputs do not broadcast to " + dims_to_string(out_dims));
  visit_dtype(t.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const bool* c = in_raw<bool>(ctx, 0);
    const T* tv = in_raw<T>(ctx, 1);
    const T* ev = in_raw<T>(ctx, 2);
    T* o = out.device_data<T>();
    if (auto offsets = BroadcastOffsets<3>::from(*layout)) {
      launch(n, SelectV2Map<T>{c, tv, ev, o, *offsets});
    } else {
      const std::vector<std::int64_t> words = layout_words(*layout);
      const Value meta =
          copy_to_device(Value::from_vector(words, Dims{static_cast<std::int64_t>(words.size())}));
      launch(n, LongSelectV2Map<T>{c, tv, ev, o, meta.device_data<std::int64_t>(), layout->rank()});
    }
  });
}

// As detail::add_n_kernel.
inline void add_n_kernel(KernelContext& ctx) {
  const Value& first = ctx.input(0);
  sd::check_add_n(ctx);
  visit_dtype(first.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (sd::is_number_v<T>) {
      Value& out = output(ctx, 0, first.dtype(), first.dims());
      const std::int64_t n = out.size();
      const std::size_t inputs = ctx.num_inputs();
      for (std::size_t start = 0; start < inputs; start += kAddNChunk) {
        AddNMap<T> map{};
        map.count = static_cast<int>(std::min<std::size_t>(kAddNChunk, inputs - start));
        for (int k = 0; k < map.count; ++k)
          map.x[k] = in_raw<T>(ctx, start + static_cast<std::size_t>(k));
        map.onto_y = start > 0;
        map.y = out.device_data<T>();
        launch(n, map);
      }
    } else {
      sd::unsupported_dtype(ctx, first.dtype());
    }
  });
}

// ZerosLike (V = 0) and OnesLike (V = 1).
template <int V>
void filled_like_kernel(KernelContext& ctx) {
  const Value& in = ctx.input(0);
  Value& o = output(ctx, 0, in.dtype(), in.dims());
  visit_dtype(in.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if (o.size() > 0) thrust::fill_n(policy(), out<T>(o), o.size(), static_cast<T>(V));
  });
}

// As detail::fill_kernel: the dims are read on the host and checked as the CPU checks
// them (none negative, an element count within int64, with the CPU's errors), the value
// stays on the device.
inline void fill_kernel(KernelContext& ctx) {
  Dims dims = sd::shape_argument(host_value(ctx.input(0)));
  sd::check_fill_dims(ctx, dims);
  const Value& v = ctx.input(1);
  if (v.rank() != 0) ctx.fail("value must be a scalar, got shape " + dims_to_string(v.dims()));
  Value& out = output(ctx, 0, v.dtype(), std::move(dims));
  visit_dtype(v.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    launch(out.size(), FillFromMap<T>{in_raw<T>(ctx, 1), out.device_data<T>()});
  });
}

}  // namespace elementwise_kernels

// The third field of each op the fused kernel runs (fused.cuh) is the CPU table's
// (backend/cpu/kernels/math.hpp, nn.hpp): the same elementwise_of expression.
inline constexpr auto kElementwiseKernels = std::to_array<KernelEntry>({
    // arithmetic, with broadcasting
    {&symflow::detail::kAddOp, elementwise_kernels::binary_kernel<symflow::detail::AddFn>,
     symflow::detail::elementwise_of<symflow::detail::AddFn, 2>()},
    {&symflow::detail::kSubOp, elementwise_kernels::binary_kernel<symflow::detail::SubFn>,
     symflow::detail::elementwise_of<symflow::detail::SubFn, 2>()},
    {&symflow::detail::kMulOp, elementwise_kernels::binary_kernel<symflow::detail::MulFn>,
     symflow::detail::elementwise_of<symflow::detail::MulFn, 2>()},
    {&symflow::detail::kRealDivOp, elementwise_kernels::binary_kernel<symflow::detail::RealDivFn>,
     symflow::detail::elementwise_of<symflow::detail::RealDivFn, 2>()},
    {&symflow::detail::kDivOp, elementwise_kernels::binary_kernel<symflow::detail::DivFn>,
     symflow::detail::elementwise_of<symflow::detail::DivFn, 2>()},
    {&symflow::detail::kPowOp, elementwise_kernels::binary_kernel<symflow::detail::PowFn>,
     symflow::detail::elementwise_of<symflow::detail::PowFn, 2>()},
    {&symflow::detail::kMaximumOp, elementwise_kernels::binary_kernel<symflow::detail::MaximumFn>,
     symflow::detail::elementwise_of<symflow::detail::MaximumFn, 2>()},
    {&symflow::detail::kMinimumOp, elementwise_kernels::binary_kernel<symflow::detail::MinimumFn>,
     symflow::detail::elementwise_of<symflow::detail::MinimumFn, 2>()},
    {&symflow::detail::kAddV2Op, elementwise_kernels::binary_kernel<symflow::detail::AddV2Fn>,
     symflow::detail::elementwise_of<symflow::detail::AddV2Fn, 2>()},
    {&symflow::detail::kFloorDivOp, elementwise_kernels::binary_kernel<symflow::detail::FloorDivFn>,
     symflow::detail::elementwise_of<symflow::detail::FloorDivFn, 2>()},
    {&symflow::detail::kFloorModOp, elementwise_kernels::binary_kernel<symflow::detail::FloorModFn>,
     symflow::detail::elementwise_of<symflow::detail::FloorModFn, 2>()},
    {&symflow::detail::kModOp, elementwise_kernels::binary_kernel<symflow::detail::ModFn>,
     symflow::detail::elementwise_of<symflow::detail::ModFn, 2>()},
    {&symflow::detail::kDivNoNanOp, elementwise_kernels::binary_kernel<symflow::detail::DivNoNanFn>,
     symflow::detail::elementwise_of<symflow::detail::DivNoNanFn, 2>()},
    {&symflow::detail::kSquaredDifferenceOp,
     elementwise_kernels::binary_kernel<symflow::detail::SquaredDifferenceFn>,
     symflow::detail::elementwise_of<symflow::detail::SquaredDifferenceFn, 2>()},
    // unary math
    {&symflow::detail::kNegOp, elementwise_kernels::unary_kernel<symflow::detail::NegFn>,
     symflow::detail::elementwise_of<symflow::detail::NegFn, 1>()},
    {&symflow::detail::kSquareOp, elementwise_kernels::unary_kernel<symflow::detail::SquareFn>,
     symflow::detail::elementwise_of<symflow::detail::SquareFn, 1>()},
    {&symflow::detail::kAbsOp, elementwise_kernels::unary_kernel<symflow::detail::AbsFn>,
     symflow::detail::elementwise_of<symflow::detail::AbsFn, 1>()},
    {&symflow::detail::kSqrtOp, elementwise_kernels::unary_kernel<symflow::detail::SqrtFn>,
     symflow::detail::elementwise_of<symflow::detail::SqrtFn, 1>()},
    {&symflow::detail::kExpOp, elementwise_kernels::unary_kernel<symflow::detail::ExpFn>,
     symflow::detail::elementwise_of<symflow::detail::ExpFn, 1>()},
    {&symflow::detail::kLogOp, elementwise_kernels::unary_kernel<symflow::detail::LogFn>,
     symflow::detail::elementwise_of<symflow::detail::LogFn, 1>()},
    {&symflow::detail::kSignOp, elementwise_kernels::unary_kernel<symflow::detail::SignFn>,
     symflow::detail::elementwise_of<symflow::detail::SignFn, 1>()},
    {&symflow::detail::kCosOp, elementwise_kernels::unary_kernel<symflow::detail::CosFn>,
     symflow::detail::elementwise_of<symflow::detail::CosFn, 1>()},
    {&symflow::detail::kSinOp, elementwise_kernels::unary_kernel<symflow::detail::SinFn>,
     symflow::detail::elementwise_of<symflow::detail::SinFn, 1>()},
    {&symflow::detail::kCeilOp, elementwise_kernels::unary_kernel<symflow::detail::CeilFn>,
     symflow::detail::elementwise_of<symflow::detail::CeilFn, 1>()},
    {&symflow::detail::kRoundOp, elementwise_kernels::unary_kernel<symflow::detail::RoundFn>,
     symflow::detail::elementwise_of<symflow::detail::RoundFn, 1>()},
    {&symflow::detail::kFloorOp, elementwise_kernels::nn_unary_kernel<symflow::detail::FloorFn>,
     symflow::detail::elementwise_of<symflow::detail::FloorFn, 1>()},
    {&symflow::detail::kLog1pOp, elementwise_kernels::nn_unary_kernel<symflow::detail::Log1pFn>,
     symflow::detail::elementwise_of<symflow::detail::Log1pFn, 1>()},
    {&symflow::detail::kRsqrtOp, elementwise_kernels::nn_unary_kernel<symflow::detail::RsqrtFn>,
     symflow::detail::elementwise_of<symflow::detail::RsqrtFn, 1>()},
    {&symflow::detail::kReciprocalOp,
     elementwise_kernels::nn_unary_kernel<symflow::detail::ReciprocalFn>,
     symflow::detail::elementwise_of<symflow::detail::ReciprocalFn, 1>()},
    // activations
    {&symflow::detail::kReluOp, elementwise_kernels::nn_unary_kernel<symflow::detail::ReluFn>,
     symflow::detail::elementwise_of<symflow::detail::ReluFn, 1>()},
    {&symflow::detail::kRelu6Op, elementwise_kernels::nn_unary_kernel<symflow::detail::Relu6Fn>,
     symflow::detail::elementwise_of<symflow::detail::Relu6Fn, 1>()},
    {&symflow::detail::kEluOp, elementwise_kernels::nn_unary_kernel<symflow::detail::EluFn>,
     symflow::detail::elementwise_of<symflow::detail::EluFn, 1>()},
    {&symflow::detail::kSigmoidOp, elementwise_kernels::nn_unary_kernel<symflow::detail::SigmoidFn>,
     symflow::detail::elementwise_of<symflow::detail::SigmoidFn, 1>()},
    {&symflow::detail::kTanhOp, elementwise_kernels::nn_unary_kernel<symflow::detail::TanhFn>,
     symflow::detail::elementwise_of<symflow::detail::TanhFn, 1>()},
    {&symflow::detail::kLeakyReluOp, elementwise_kernels::leaky_relu_kernel},
    // their gradients: two inputs of one shape
    {&symflow::detail::kReluGradOp,
     elementwise_kernels::grad_binary_kernel<symflow::detail::ReluGradFn>,
     symflow::detail::elementwise_of<symflow::detail::ReluGradFn, 2, false>()},
    {&symflow::detail::kRelu6GradOp,
     elementwise_kernels::grad_binary_kernel<symflow::detail::Relu6GradFn>,
     symflow::detail::elementwise_of<symflow::detail::Relu6GradFn, 2, false>()},
    {&symflow::detail::kEluGradOp,
     elementwise_kernels::grad_binary_kernel<symflow::detail::EluGradFn>,
     symflow::detail::elementwise_of<symflow::detail::EluGradFn, 2, false>()},
    {&symflow::detail::kSigmoidGradOp,
     elementwise_kernels::grad_binary_kernel<symflow::detail::SigmoidGradFn>,
     symflow::detail::elementwise_of<symflow::detail::SigmoidGradFn, 2, false>()},
    {&symflow::detail::kTanhGradOp,
     elementwise_kernels::grad_binary_kernel<symflow::detail::TanhGradFn>,
     symflow::detail::elementwise_of<symflow::detail::TanhGradFn, 2, false>()},
    {&symflow::detail::kRsqrtGradOp,
     elementwise_kernels::grad_binary_kernel<symflow::detail::RsqrtGradFn>,
     symflow::detail::elementwise_of<symflow::detail::RsqrtGradFn, 2, false>()},
    {&symflow::detail::kReciprocalGradOp,
     elementwise_kernels::grad_binary_kernel<symflow::detail::ReciprocalGradFn>,
     symflow::detail::elementwise_of<symflow::detail::ReciprocalGradFn, 2, false>()},
    {&symflow::detail::kLeakyReluGradOp, elementwise_kernels::leaky_relu_grad_kernel},
    // comparisons and logic
    {&symflow::detail::kEqualOp, elementwise_kernels::compare_kernel<symflow::detail::EqualFn>},
    {&symflow::detail::kNotEqualOp,
     elementwise_kernels::compare_kernel<symflow::detail::NotEqualFn>},
    {&symflow::detail::kLessOp, elementwise_kernels::compare_kernel<symflow::detail::LessFn>},
    {&symflow::detail::kLessEqualOp,
     elementwise_kernels::compare_kernel<symflow::detail::LessEqualFn>},
    {&symflow::detail::kGreaterOp, elementwise_kernels::compare_kernel<symflow::detail::GreaterFn>},
    {&symflow::detail::kGreaterEqualOp,
     elementwise_kernels::compare_kernel<symflow::detail::GreaterEqualFn>},
    {&symflow::detail::kLogicalAndOp,
     elementwise_kernels::logical_binary_kernel<symflow::detail::LogicalAndFn>},
    {&symflow::detail::kLogicalOrOp,
     elementwise_kernels::logical_binary_kernel<symflow::detail::LogicalOrFn>},
    {&symflow::detail::kLogicalNotOp, elementwise_kernels::logical_not_kernel},
    {&symflow::detail::kIsNanOp, elementwise_kernels::float_class_kernel<symflow::detail::IsNanFn>},
    {&symflow::detail::kIsInfOp, elementwise_kernels::float_class_kernel<symflow::detail::IsInfFn>},
    {&symflow::detail::kIsFiniteOp,
     elementwise_kernels::float_class_kernel<symflow::detail::IsFiniteFn>},
    {&symflow::detail::kSelectOp, elementwise_kernels::select_kernel},
    {&symflow::detail::kSelectV2Op, elementwise_kernels::select_v2_kernel},
    // conversions and fills
    {&symflow::detail::kCastOp, elementwise_kernels::cast_kernel},
    {&symflow::detail::kAddNOp, elementwise_kernels::add_n_kernel},
    {&symflow::detail::kZerosLikeOp, elementwise_kernels::filled_like_kernel<0>},
    {&symflow::detail::kOnesLikeOp, elementwise_kernels::filled_like_kernel<1>},
    {&symflow::detail::kFillOp, elementwise_kernels::fill_kernel},
});

}  // namespace symflow::thrust_backend
