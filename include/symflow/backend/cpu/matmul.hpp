#pragma once
// Matrix products on Eigen's GEMM, over row-major host buffers.

#include <Eigen/Core>

#include "symflow/core/value.hpp"

namespace symflow::cpu {

template <class T>
using RowMajorMap =
    Eigen::Map<const Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>;
template <class T>
using MutableRowMajorMap =
    Eigen::Map<Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>;

// out = op(a) * op(b), where op transposes when asked. Shapes are checked by the caller.
template <class T>
void matmul(const Value& a, const Value& b, bool transpose_a, bool transpose_b, Value& out) {
  RowMajorMap<T> ma(a.data<T>(), a.dims()[0], a.dims()[1]);
  RowMajorMap<T> mb(b.data<T>(), b.dims()[0], b.dims()[1]);
  MutableRowMajorMap<T> mo(out.data<T>(), out.dims()[0], out.dims()[1]);
  if (!transpose_a && !transpose_b)
    mo.noalias() = ma * mb;
  else if (transpose_a && !transpose_b)
    mo.noalias() = ma.transpose() * mb;
  else if (!transpose_a && transpose_b)
    mo.noalias() = ma * mb.transpose();
  else
    mo.noalias() = ma.transpose() * mb.transpose();
}

}  // namespace symflow::cpu
