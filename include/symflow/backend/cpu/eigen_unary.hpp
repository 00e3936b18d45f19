#pragma once
// Float Sigmoid and Tanh through Eigen's vectorised rational approximations
// (ArrayBase::logistic() and tanh()), the functions TensorFlow's CPU kernels evaluate.
// libm's scalar expf and tanhf took 45% of a frozen SRU's time at batch 64; these run
// a vector of floats per instruction (4 with SSE2, 8 with AVX). The node-by-node kernels
// (elementwise.hpp) and the fused blocks (fused.hpp) both come here, so a fused graph gives the
// same bits as an unfused one. float64 keeps libm, as TensorFlow's kernels do.

#include <cstdint>
#include <type_traits>

#include <Eigen/Core>

#include "symflow/ops/defs/nn.hpp"

namespace symflow::cpu {

template <class Fn, class T>
inline constexpr bool kEigenUnary = std::is_same_v<T, float> &&
                                    (std::is_same_v<Fn, ::symflow::detail::SigmoidFn> ||
                                     std::is_same_v<Fn, ::symflow::detail::TanhFn>);

// out[k] = Fn{}(in[k]) for k < n; `out` may be `in`.
template <class Fn>
inline void eigen_unary(const float* in, float* out, std::int64_t n) {
  const Eigen::Map<const Eigen::ArrayXf> x(in, static_cast<Eigen::Index>(n));
  Eigen::Map<Eigen::ArrayXf> y(out, static_cast<Eigen::Index>(n));
  if constexpr (std::is_same_v<Fn, ::symflow::detail::SigmoidFn>)
    y = x.logistic();
  else
    y = x.tanh();
}

}  // namespace symflow::cpu
