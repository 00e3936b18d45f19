// Tile and BroadcastTo on the CPU: every output element against the input element it
// repeats, found by index arithmetic, over ranks 0 to 4, axes repeated inside, outside and
// between others, and element sizes 1 to 8.

#include <doctest/doctest.h>

#include <cstdint>
#include <vector>

#include <symflow/symflow.hpp>

namespace symflow_test_ops_tile_broadcast_test {

namespace tf = symflow;
using tf::Dims;
using tf::DType;
using tf::Value;

namespace {

// The input element that output element o repeats: index (i mod in dim) along each axis,
// with `in` aligned to the output's rank.
std::int64_t source_of(std::int64_t o, const Dims& in, const Dims& out) {
  const std::size_t rank = out.size();
  Dims aligned(rank, 1);
  for (std::size_t k = 0; k < in.size(); ++k) aligned[rank - in.size() + k] = in[k];
  std::int64_t source = 0, stride = 1;
  for (std::size_t a = rank; a-- > 0;) {
    const std::int64_t index = o % out[a];
    o /= out[a];
    source += (index % aligned[a]) * stride;
    stride *= aligned[a];
  }
  return source;
}

template <class T>
Value counting(DType dtype, const Dims& dims) {
  Value v(dtype, dims);
  for (std::int64_t i = 0; i < v.size(); ++i) v.data<T>()[i] = static_cast<T>(i % 100 + 1);
  return v;
}

template <class T>
void check_repeats(const Value& in, const Value& out) {
  for (std::int64_t o = 0; o < out.size(); ++o) {
    CAPTURE(o);
    REQUIRE(out.data<T>()[o] == in.data<T>()[source_of(o, in.dims(), out.dims())]);
  }
}

// Runs `build` (Tile or BroadcastTo) on a fed input of in_dims; the output must have dims
// `want` and repeat the input.
template <class T, class Build>
void check_repeating_op(DType dtype, const Dims& in_dims, const Dims& want, Build build) {
  CAPTURE(tf::dims_to_string(in_dims));
  CAPTURE(tf::dims_to_string(want));
  tf::Graph g;
  auto guard = g.as_default();
  auto x = tf::placeholder(dtype, tf::Shape(in_dims), "x");
  auto y = build(x);
  tf::Session s(g);
  const Value in = counting<T>(dtype, in_dims);
  const Value out = s.run(y, {{x, in}});
  REQUIRE(out.dims() == want);
  check_repeats<T>(in, out);
}

template <class T>
void check_tile(DType dtype, const Dims& in_dims, const Dims& multiples) {
  Dims want(in_dims.size());
  for (std::size_t a = 0; a < in_dims.size(); ++a) want[a] = in_dims[a] * multiples[a];
  check_repeating_op<T>(dtype, in_dims, want,
                        [&](const tf::Output& x) { return tf::tile(x, multiples); });
}

template <class T>
void check_broadcast(DType dtype, const Dims& in_dims, const Dims& target) {
  check_repeating_op<T>(dtype, in_dims, target,
                        [&](const tf::Output& x) { return tf::broadcast_to(x, target); });
}

}  // namespace

TEST_CASE("ops/tile: each output element repeats the input element it should") {
  check_tile<float>(DType::float32, {}, {});
  check_tile<float>(DType::float32, {64, 1}, {1, 128});  // an RNN's zero state
  check_tile<float>(DType::float32, {3}, {4});
  check_tile<float>(DType::float32, {2, 3}, {3, 2});
  check_tile<double>(DType::float64, {2, 1, 3}, {2, 5, 1});
  check_tile<std::int32_t>(DType::int32, {1, 2, 1, 3}, {3, 1, 4, 2});
  check_tile<std::int64_t>(DType::int64, {2, 3, 4}, {1, 1, 1});
  check_tile<std::uint8_t>(DType::uint8, {5, 1, 7}, {2, 3, 2});
  check_tile<bool>(DType::bool_, {2, 2}, {2, 3});
  check_tile<float>(DType::float32, {2, 3}, {0, 2});  // nothing to copy
  check_tile<float>(DType::float32, {2, 0}, {3, 2});
}

TEST_CASE("ops/broadcast_to: each output element repeats the input element it should") {
  check_broadcast<float>(DType::float32, {}, {2, 3});
  check_broadcast<float>(DType::float32, {3}, {4, 2, 3});
  check_broadcast<float>(DType::float32, {4, 1}, {4, 5});
  check_broadcast<double>(DType::float64, {1, 3, 1}, {2, 3, 4});
  check_broadcast<std::int32_t>(DType::int32, {2, 1, 3, 1}, {2, 4, 3, 5});
  check_broadcast<std::int64_t>(DType::int64, {2, 3}, {2, 3});
  check_broadcast<bool>(DType::bool_, {1, 2}, {3, 2});
  check_broadcast<float>(DType::float32, {1, 2}, {0, 2});
}

}  // namespace symflow_test_ops_tile_broadcast_test
