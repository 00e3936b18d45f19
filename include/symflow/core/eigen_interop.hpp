#pragma once
// Values and Eigen matrices. A value's elements are row-major, so the views are row-major
// Eigen::Maps:
//   as_eigen_matrix<T>(v)  a rows x cols view (no copy) of a value of rank 0 (1 x 1),
//                          1 (n x 1: a column, as Eigen's vectors) or 2 (rows x cols)
//   from_eigen(m)          a copy of any dense Eigen expression: dims {n} for a type that
//                          is a vector at compile time (VectorXf, RowVectorXf), else
//                          {rows, cols}; the elements are stored row-major whatever m's
//                          storage order
// A wrong T is a TypeError naming both dtypes, as for Value::data<T>().

#include <Eigen/Core>
#include <cstdint>
#include <string>
#include <utility>

#include "symflow/core/dtype.hpp"
#include "symflow/core/errors.hpp"
#include "symflow/core/shape.hpp"
#include "symflow/core/value.hpp"

namespace symflow {

template <Element T>
using RowMajorMatrix = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

namespace detail {

// Rows and columns of a value of rank 0, 1 or 2 seen as a matrix.
inline std::pair<Eigen::Index, Eigen::Index> matrix_extent(const Value& v) {
  switch (v.rank()) {
    case 0:
      return {1, 1};
    case 1:
      return {v.dims()[0], 1};
    case 2:
      return {v.dims()[0], v.dims()[1]};
    default:
      throw ValueError("as_eigen_matrix needs a value of rank 0, 1 or 2, got rank " +
                       std::to_string(v.rank()) + " (shape " + v.shape().to_string() + ")");
  }
}

}  // namespace detail

// A row-major Eigen view of the value's elements (no copy; the value must outlive it).
template <Element T>
Eigen::Map<RowMajorMatrix<T>> as_eigen_matrix(Value& v) {
  auto [rows, cols] = detail::matrix_extent(v);
  return {v.data<T>(), rows, cols};
}

// A read-only row-major Eigen view of the value's elements (no copy).
template <Element T>
Eigen::Map<const RowMajorMatrix<T>> as_eigen_matrix(const Value& v) {
  auto [rows, cols] = detail::matrix_extent(v);
  return {v.data<T>(), rows, cols};
}

// A value holding a copy of the Eigen expression `m`, in row-major order.
template <class D>
requires Element<typename D::Scalar> Value from_eigen(const Eigen::DenseBase<D>& m) {
  using T = typename D::Scalar;
  Dims dims = D::IsVectorAtCompileTime
                  ? Dims{static_cast<std::int64_t>(m.size())}
                  : Dims{static_cast<std::int64_t>(m.rows()), static_cast<std::int64_t>(m.cols())};
  Value v(dtype_v<T>, std::move(dims));
  Eigen::Map<RowMajorMatrix<T>>(v.data<T>(), m.rows(), m.cols()) = m.derived();
  return v;
}

}  // namespace symflow
