// Named binary functions take a C++ number on either side, as the operators do:
// maximum(x, 1e-12), add(1, i). Checked against TensorFlow 2.21 (tf.compat.v1).

#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <vector>

#include <symflow/symflow.hpp>

#include "../test_util.hpp"

namespace symflow_test_ops_scalar_operand_test {

using namespace symflow;
using namespace symflow::test;

TEST_CASE("ops/scalar operands: a number on either side becomes '<Op>/y' or '<Op>/x'") {
  Graph g;
  auto guard = g.as_default();
  auto x = placeholder<double>({2}, "x");
  auto i = placeholder<std::int32_t>({2}, "i");

  // TF: Maximum <- [x:0, Maximum/y:0], both float64
  auto a = maximum(x, 1e-12);
  CHECK(input_names(a) == std::vector<std::string>{"x:0", "Maximum/y:0"});
  CHECK(a.op().inputs()[1].dtype() == DType::float64);
  // TF: Add <- [Add/x:0, i:0] (TF 2.21 builds AddV2; TF 1.x's tf.add builds Add)
  auto c = add(1, i);
  CHECK(input_names(c) == std::vector<std::string>{"Add/x:0", "i:0"});
  auto d = pow(x, 2);
  CHECK(input_names(d) == std::vector<std::string>{"x:0", "Pow/y:0"});
  auto e = subtract(3, i);
  CHECK(input_names(e) == std::vector<std::string>{"Sub/x:0", "i:0"});
  Tensor<double> f = multiply(x, 2);
  CHECK(input_names(f) == std::vector<std::string>{"x:0", "Mul/y:0"});
  // TF: Equal <- [Equal/x:0, x:0]; Less <- [Less/x:0, x:0]
  CHECK(input_names(equal(2.0, x)) == std::vector<std::string>{"Equal/x:0", "x:0"});
  CHECK(input_names(less(1.0, x)) == std::vector<std::string>{"Less/x:0", "x:0"});
  // TF: tf.divide(x, 2.0) <- [x:0, truediv/y:0]; tf.divide(2.0, x) <- [Const:0, x:0]
  CHECK(input_names(divide(x, 2.0)) == std::vector<std::string>{"x:0", "truediv/y:0"});
  CHECK(input_names(divide(2.0, x)) == std::vector<std::string>{"Const:0", "x:0"});
  auto m = minimum(0.5f, placeholder<float>({2}, "y"));
  CHECK(input_names(m) == std::vector<std::string>{"Minimum/x:0", "y:0"});

  Session sess(g);
  auto r = sess.run({a, c, e, f}, {{x, {-1.0, 3.0}}, {i, {4, 5}}});
  CHECK(r[0].to_vector<double>() == std::vector<double>{1e-12, 3.0});
  CHECK(r[1].to_vector<std::int32_t>() == std::vector<std::int32_t>{5, 6});
  CHECK(r[2].to_vector<std::int32_t>() == std::vector<std::int32_t>{-1, -2});
  CHECK(r[3].to_vector<double>() == std::vector<double>{-2.0, 6.0});

  // TF: TypeError "Expected int32 passed to parameter 'y' of op 'Maximum', got 1.5 of type
  //     'float' instead. ..."
  CHECK_THROWS_WITH_AS(
      maximum(i, 1.5),
      doctest::Contains(
          "Expected int32 passed to parameter 'y' of op 'Maximum', got 1.5 of type 'float'"),
      TypeError);
}

TEST_CASE("ops/scalar operands: matmul takes a nested list on either side") {
  Graph g;
  auto guard = g.as_default();
  auto x = placeholder<float>({2, 2}, "x");
  // TF: MatMul <- [x, MatMul/b]; MatMul_1 <- [MatMul_1/a, x]
  auto y = matmul(x, {{1.0f, 2.0f}, {3.0f, 4.0f}});
  auto z = matmul({{1, 0}, {0, 1}}, x);
  CHECK(input_names(y) == std::vector<std::string>{"x:0", "MatMul/b:0"});
  CHECK(input_names(z) == std::vector<std::string>{"MatMul_1/a:0", "x:0"});
  CHECK(z.op().inputs()[0].dtype() == DType::float32);
  Session sess(g);
  auto r = sess.run({y, z}, {{x, {{1.0f, 1.0f}, {0.0f, 2.0f}}}});
  CHECK(r[0].to_vector<float>() == std::vector<float>{4, 6, 6, 8});
  CHECK(r[1].to_vector<float>() == std::vector<float>{1, 1, 0, 2});
  // A std::vector feeds a 1-D value.
  auto v = placeholder<float>({3}, "v");
  CHECK(sess.run(v * 2.0f, {{v, std::vector<float>{1, 2, 3}}}).to_vector<float>() ==
        std::vector<float>{2, 4, 6});
  CHECK(sess.run(v * 2.0f, {{v, std::vector<int>{1, 2, 3}}}).to_vector<float>() ==
        std::vector<float>{2, 4, 6});
}

TEST_CASE("core/printing: shapes and dtypes print as Python prints them") {
  auto str = [](const auto& v) {
    std::ostringstream os;
    os << v;
    return os.str();
  };
  // TF: print(x.shape) -> (2, 3), (None, 3), <unknown>, (), (5,); print(tf.float32)
  CHECK(str(Shape({2, 3})) == "(2, 3)");
  CHECK(str(Shape({-1, 3})) == "(None, 3)");
  CHECK(str(Shape::unknown()) == "<unknown>");
  CHECK(str(Shape()) == "()");
  CHECK(str(Shape({5})) == "(5,)");
  CHECK(str(DType::float32) == "<dtype: 'float32'>");
  Graph g;
  auto guard = g.as_default();
  auto p = placeholder<float>({-1, 3});
  CHECK(str(p.get_shape()) == "(None, 3)");
}

}  // namespace symflow_test_ops_scalar_operand_test
