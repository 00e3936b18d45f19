// Values and Eigen: row-major maps without copies, and copies of any dense expression.
#include <doctest/doctest.h>

#include <Eigen/Core>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "symflow/core/dtype.hpp"
#include "symflow/core/eigen_interop.hpp"
#include "symflow/core/errors.hpp"
#include "symflow/core/value.hpp"

namespace symflow_test_core_eigen_interop_test {

namespace symflow_eigen_interop_test {

using symflow::Dims;
using symflow::DType;
using symflow::Value;

}  // namespace symflow_eigen_interop_test

using namespace symflow_eigen_interop_test;  // NOLINT(google-build-using-namespace)

TEST_CASE("core/eigen_interop: as_eigen_matrix maps a rank-2 value row-major, without copying") {
  Value v{{1.0f, 2.0f, 3.0f}, {4.0f, 5.0f, 6.0f}};
  auto m = symflow::as_eigen_matrix<float>(v);
  CHECK(m.data() == v.raw_data());
  CHECK(m.rows() == 2);
  CHECK(m.cols() == 3);
  CHECK(m(0, 2) == 3.0f);  // row-major: (0, 2) is the third element, not the fifth
  CHECK(m(1, 0) == 4.0f);
  CHECK(m(1, 2) == v.at<float>({1, 2}));
  m(1, 1) = 50.0f;  // a write through the map is a write to the value
  CHECK(v.at<float>({1, 1}) == 50.0f);
  m.row(0) *= 2.0f;
  CHECK(v.to_vector<float>() == std::vector<float>{2, 4, 6, 4, 50, 6});
  Eigen::VectorXf x = Eigen::VectorXf::Ones(3);
  Eigen::VectorXf y = m * x;
  CHECK(y(0) == 12.0f);
  CHECK(y(1) == 60.0f);
}

TEST_CASE("core/eigen_interop: rank 0 is 1 x 1 and rank 1 is a column") {
  Value s(7.0);
  auto ms = symflow::as_eigen_matrix<double>(s);
  CHECK(ms.rows() == 1);
  CHECK(ms.cols() == 1);
  CHECK(ms(0, 0) == 7.0);
  CHECK(ms.data() == s.raw_data());
  Value v{1, 2, 3};
  auto mv = symflow::as_eigen_matrix<std::int32_t>(v);
  CHECK(mv.rows() == 3);
  CHECK(mv.cols() == 1);
  CHECK(mv(2, 0) == 3);
  Value e(DType::float32, {0, 4});
  auto me = symflow::as_eigen_matrix<float>(e);
  CHECK(me.rows() == 0);
  CHECK(me.cols() == 4);
}

TEST_CASE("core/eigen_interop: rank above 2 is a ValueError naming the rank") {
  Value v(DType::float32, {2, 2, 2});
  CHECK_THROWS_WITH_AS(symflow::as_eigen_matrix<float>(v),
                       "as_eigen_matrix needs a value of rank 0, 1 or 2, got rank 3 "
                       "(shape (2, 2, 2))",
                       symflow::ValueError);
  const Value& cv = v;
  CHECK_THROWS_AS(symflow::as_eigen_matrix<float>(cv), symflow::ValueError);
  CHECK_THROWS_WITH_AS(symflow::as_eigen_matrix<double>(Value(DType::float32, {2, 2})),
                       "Value holds float32, not float64", symflow::TypeError);
}

TEST_CASE("core/eigen_interop: the const overload is a read-only map") {
  const Value v{{1, 2}, {3, 4}};
  auto m = symflow::as_eigen_matrix<std::int32_t>(v);
  static_assert(std::is_const_v<std::remove_pointer_t<decltype(m.data())>>);
  CHECK(m.data() == v.raw_data());
  CHECK(m.sum() == 10);
  CHECK(m(0, 1) == 2);
}

TEST_CASE("core/eigen_interop: from_eigen copies in row-major order") {
  Eigen::MatrixXf m(2, 3);  // column-major storage
  m << 1, 2, 3, 4, 5, 6;
  Value v = symflow::from_eigen(m);
  CHECK(v.dtype() == DType::float32);
  CHECK(v.dims() == Dims{2, 3});
  CHECK(v.raw_data() != m.data());
  CHECK(v.to_vector<float>() == std::vector<float>{1, 2, 3, 4, 5, 6});
  m(0, 0) = 100.0f;
  CHECK(v.at<float>({0, 0}) == 1.0f);

  Value t = symflow::from_eigen(m.transpose());
  CHECK(t.dims() == Dims{3, 2});
  CHECK(t.to_vector<float>() == std::vector<float>{100, 4, 2, 5, 3, 6});

  Eigen::Matrix<std::int64_t, 2, 2, Eigen::RowMajor> fixed;
  fixed << 1, 2, 3, 4;
  Value f = symflow::from_eigen(fixed);
  CHECK(f.dtype() == DType::int64);
  CHECK(f.dims() == Dims{2, 2});
  CHECK(f.to_vector<std::int64_t>() == std::vector<std::int64_t>{1, 2, 3, 4});
}

TEST_CASE("core/eigen_interop: vectors at compile time become rank-1 values") {
  Eigen::VectorXd col(3);
  col << 1.5, 2.5, 3.5;
  Value c = symflow::from_eigen(col);
  CHECK(c.dtype() == DType::float64);
  CHECK(c.dims() == Dims{3});
  CHECK(c.to_vector<double>() == std::vector<double>{1.5, 2.5, 3.5});
  Eigen::RowVector3i row(7, 8, 9);
  Value r = symflow::from_eigen(row);
  CHECK(r.dims() == Dims{3});
  CHECK(r.to_vector<std::int32_t>() == std::vector<std::int32_t>{7, 8, 9});
  // A dynamic matrix that happens to have one column stays rank 2.
  Eigen::MatrixXf one_col = Eigen::MatrixXf::Zero(3, 1);
  CHECK(symflow::from_eigen(one_col).dims() == Dims{3, 1});
  // Expressions, including comparisons (bool).
  Value mask = symflow::from_eigen((col.array() > 2.0).matrix());
  CHECK(mask.dtype() == DType::bool_);
  CHECK(mask.to_vector<bool>() == std::vector<bool>{false, true, true});
  Value doubled = symflow::from_eigen(col * 2.0);
  CHECK(doubled.to_vector<double>() == std::vector<double>{3.0, 5.0, 7.0});
}

TEST_CASE("core/eigen_interop: round trips preserve values and shapes") {
  Value v{{1.0f, 2.0f}, {3.0f, 4.0f}, {5.0f, 6.0f}};
  Value back = symflow::from_eigen(symflow::as_eigen_matrix<float>(v));
  CHECK(back == v);
  CHECK_FALSE(back.shares_buffer_with(v));
  Value u8{{std::uint8_t{1}, std::uint8_t{2}}};
  CHECK(symflow::from_eigen(symflow::as_eigen_matrix<std::uint8_t>(u8)) == u8);
  Eigen::MatrixXd m = Eigen::MatrixXd::Random(4, 5);
  Value mv = symflow::from_eigen(m);
  CHECK(symflow::as_eigen_matrix<double>(mv) == m);
  Value empty(DType::float64, {0, 3});
  CHECK(symflow::from_eigen(symflow::as_eigen_matrix<double>(empty)).dims() == Dims{0, 3});
}

}  // namespace symflow_test_core_eigen_interop_test
