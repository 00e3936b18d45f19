#pragma once
// What the convolution tests share: the integer patterns their TensorFlow values were
// computed from (element i of a pattern is (i * a + b) % m - off), seeded uniform values in
// [-1, 1), and the readers of a node's int-list attrs and of an error's message.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include <doctest/doctest.h>

#include <symflow/core/value.hpp>
#include <symflow/graph/graph.hpp>

#include "../test_util.hpp"

namespace symflow::test::conv_values {

template <class T = float>
Value pattern(const Dims& dims, int a, int b, int m, int off) {
  std::vector<T> v(static_cast<std::size_t>(num_elements(dims)));
  for (std::size_t i = 0; i < v.size(); ++i)
    v[i] = static_cast<T>(
        static_cast<int>((i * static_cast<std::size_t>(a) + static_cast<std::size_t>(b)) %
                         static_cast<std::size_t>(m)) -
        off);
  return Value::from_vector(v, dims);
}
template <class T = float>
Value xpat(const Dims& dims) {
  return pattern<T>(dims, 7, 3, 11, 5);
}
template <class T = float>
Value wpat(const Dims& dims) {
  return pattern<T>(dims, 5, 1, 7, 3);
}
// The pattern of the gradients fed to the backprop ops.
inline Value gpat(const Dims& dims) { return pattern<float>(dims, 3, 2, 5, 2); }

// The int-list attr `attr` of t's op (strides, explicit_paddings, ...).
inline std::vector<std::int64_t> ints(const Output& t, std::string_view attr) {
  return t.op().get_attr<IntList>(attr).items;
}

// The message of the E that f throws; fails the test when f throws none.
template <class E, class F>
std::string error_of(F&& f) {
  auto e = symflow::test::thrown<E>(f);
  REQUIRE(e);
  return std::string(e->message());
}

template <class T>
std::vector<T> as(const std::vector<double>& v) {
  return std::vector<T>(v.begin(), v.end());
}

template <class T>
Value random_value(const Dims& dims, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> dist(-1.0, 1.0);
  std::vector<T> v(static_cast<std::size_t>(num_elements(dims)));
  for (auto& x : v) x = static_cast<T>(dist(gen));
  return Value::from_vector(v, dims);
}

// One spatial dim of a reference convolution, from TensorFlow's SAME/VALID rules: the
// output size and the padding before the first element.
inline void reference_window(std::int64_t in, std::int64_t k, std::int64_t stride,
                             std::int64_t dilation, bool same, std::int64_t& out,
                             std::int64_t& pad) {
  const std::int64_t effective = (k - 1) * dilation + 1;
  if (same) {
    out = (in + stride - 1) / stride;
    pad = std::max<std::int64_t>(0, (out - 1) * stride + effective - in) / 2;
  } else {
    out = (in - effective) / stride + 1;
    pad = 0;
  }
}

}  // namespace symflow::test::conv_values
