// InteractiveSession, t.eval() / op.run() / v.eval() with the default session, and feeds
// of another numeric dtype, converted as TensorFlow's Python client converts them
// (np.asarray(value, dtype)). Values from TensorFlow 2.21 in tf.compat.v1 graph mode.

#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <vector>

#include <symflow/symflow.hpp>

#include "../test_util.hpp"

namespace symflow_test_runtime_interactive_session_test {

using namespace symflow;

TEST_CASE("runtime/InteractiveSession: eval and run need no session while it is open") {
  Graph g;
  InteractiveSession sess(g);
  // Its graph is the default graph until it closes.
  CHECK(get_default_graph() == g);
  auto x = constant({1.0f, 2.0f});
  CHECK((x * 2.0f).eval().to_vector<float>() == std::vector<float>{2.0f, 4.0f});

  auto v = Variable(constant({3.0f, 4.0f}), {.name = "v"});
  v.initializer().run();
  CHECK(v.eval().to_vector<float>() == std::vector<float>{3.0f, 4.0f});
  v.assign_add(constant({1.0f, 1.0f})).op().run();
  CHECK(v.eval().to_vector<float>() == std::vector<float>{4.0f, 5.0f});

  auto p = placeholder<float>({2});
  CHECK((p + 1.0f).eval({{p, {1.0f, 2.0f}}}).to_vector<float>() == std::vector<float>{2, 3});

  sess.close();
  // TF: ValueError "Cannot evaluate tensor using `eval()`: No default session is
  //     registered. ..." and "Cannot execute operation using `run()`: ..."
  CHECK_THROWS_WITH_AS(x.eval(), doctest::Contains("No default session is registered"), ValueError);
  CHECK_THROWS_WITH_AS(v.initializer().run(),
                       doctest::Contains("Cannot execute operation using `run()`"), ValueError);
  CHECK(get_default_graph() != g);
}

TEST_CASE("runtime/InteractiveSession: it does not nest; an explicit session still works") {
  Graph g;
  auto outer = g.as_default();
  auto c = constant(5);
  {
    InteractiveSession first(g);
    Session other(g);
    CHECK(c.eval(other).to_vector<std::int32_t>() == std::vector<std::int32_t>{5});
    {
      auto guard = other.as_default();
      CHECK(c.eval().to_vector<std::int32_t>() == std::vector<std::int32_t>{5});
    }
    CHECK(c.eval().to_vector<std::int32_t>() == std::vector<std::int32_t>{5});
  }
  CHECK_THROWS_AS(c.eval(), ValueError);
  CHECK(get_default_graph() == g);
}

TEST_CASE("runtime/feeds: numbers of another dtype convert as NumPy's astype converts them") {
  Graph g;
  auto guard = g.as_default();
  auto x = placeholder<float>({-1}, "x");
  auto i = placeholder<std::int32_t>({-1}, "i");
  auto b = placeholder<bool>({-1}, "b");
  auto u = placeholder<std::uint8_t>({-1}, "u");
  auto s = placeholder<std::string>({-1}, "s");
  Session sess(g);
  // TF: x <- [1, 2, 3] gives [1. 2. 3.]; x <- [True, False] gives [1. 0.]
  CHECK(sess.run(x, {{Output(x), Value{1, 2, 3}}}).to_vector<float>() ==
        std::vector<float>{1, 2, 3});
  CHECK(
      sess.run(x, {{Output(x), Value::from_vector<bool>({true, false}, {2})}}).to_vector<float>() ==
      std::vector<float>{1, 0});
  // TF: x <- np.array([1.5, 2.5], float64) gives [1.5 2.5]
  CHECK(sess.run(x, {{Output(x), Value{1.5, 2.5}}}).to_vector<float>() ==
        std::vector<float>{1.5f, 2.5f});
  // TF: i <- [1.7, -1.7, 2.5] gives [1 -1 2]; i <- [3e10] gives [-2147483648]
  CHECK(sess.run(i, {{Output(i), Value{1.7, -1.7, 2.5}}}).to_vector<std::int32_t>() ==
        std::vector<std::int32_t>{1, -1, 2});
  CHECK(sess.run(i, {{Output(i), Value{3e10}}}).to_vector<std::int32_t>() ==
        std::vector<std::int32_t>{-2147483647 - 1});
  // TF: b <- [0.5, 0.0] gives [True False]; u <- [-1, 300] gives [255 44]
  CHECK(sess.run(b, {{Output(b), Value{0.5, 0.0}}}).to_vector<bool>() ==
        std::vector<bool>{true, false});
  CHECK(sess.run(u, {{Output(u), Value{-1, 300}}}).to_vector<std::uint8_t>() ==
        std::vector<std::uint8_t>{255, 44});
  // The same run again takes the cached plan, which converts too.
  CHECK(sess.run(x, {{Output(x), Value{4, 5}}}).to_vector<float>() == std::vector<float>{4, 5});
  // Strings never convert (TensorFlow would parse "1.5"; symflow refuses).
  CHECK_THROWS_WITH_AS(sess.run(x, {{Output(x), Value::from_vector<std::string>({"1.5"}, {1})}}),
                       "Cannot feed value of dtype string for Tensor 'x:0', which has dtype "
                       "float32",
                       TypeError);
  CHECK_THROWS_AS(sess.run(s, {{Output(s), Value{1}}}), TypeError);
  // A converted value still has to fit the shape.
  CHECK_THROWS_WITH_AS(sess.run(x, {{Output(x), Value{{1, 2}, {3, 4}}}}),
                       "Cannot feed value of shape (2, 2) for Tensor 'x:0', which has shape '(?,)'",
                       ValueError);
}

}  // namespace symflow_test_runtime_interactive_session_test
