// SmallVector (Dims, AxisMask): a std::vector look-alike that keeps small sizes inline.
// Each operation is checked against std::vector across the inline/heap boundary.
#include <doctest/doctest.h>

#include <cstdint>
#include <numeric>
#include <utility>
#include <vector>

#include "symflow/core/buffer_pool.hpp"
#include "symflow/core/shape.hpp"

namespace symflow_test_core_small_vector_test {

using symflow::AxisMask;
using symflow::Dims;
using Vec = std::vector<std::int64_t>;

namespace {

Vec iota(std::size_t n, std::int64_t start) {
  Vec v(n);
  std::iota(v.begin(), v.end(), start);
  return v;
}

}  // namespace

TEST_CASE("core/small_vector: construction and conversion match std::vector") {
  CHECK(Dims().empty());
  CHECK(Dims(3) == Vec{0, 0, 0});
  CHECK(Dims(2, -1) == Vec{-1, -1});
  CHECK(Dims{4, 5} == Vec{4, 5});
  for (std::size_t n : {0u, 1u, 6u, 7u, 20u}) {
    CAPTURE(n);
    const Vec v = iota(n, 10);
    const Dims d(v);  // implicit from std::vector
    CHECK(d.size() == n);
    const Vec back = d;  // implicit to std::vector
    CHECK(back == v);
    CHECK(Dims(v.begin(), v.end()) == d);
  }
}

TEST_CASE("core/small_vector: copies and moves keep the elements, inline and on the heap") {
  for (std::size_t n : {3u, 6u, 9u}) {
    CAPTURE(n);
    Dims a(iota(n, 1));
    Dims b = a;
    CHECK(b == a);
    b[0] = 100;
    CHECK(a[0] == 1);  // a deep copy
    Dims c = std::move(b);
    CHECK(c[0] == 100);
    CHECK(c.size() == n);
    CHECK(b.empty());  // NOLINT: a moved-from SmallVector is empty
    Dims d;
    d = c;
    const Dims& same = d;  // through a reference: clang warns on a literal `d = d`
    d = same;              // self-assignment keeps the elements
    CHECK(d == c);
    Dims e(iota(12, 0));
    e = std::move(d);
    CHECK(e == c);
    e.swap(a);
    CHECK(e == Dims(iota(n, 1)));
    CHECK(a == c);
  }
}

TEST_CASE("core/small_vector: push_back, insert and erase across the inline capacity") {
  Dims d;
  Vec v;
  for (std::int64_t i = 0; i < 15; ++i) {
    d.push_back(i);
    v.push_back(i);
    CHECK(d == v);
  }
  d.insert(d.begin() + 2, 42);
  v.insert(v.begin() + 2, 42);
  CHECK(d == v);
  d.insert(d.begin(), 3, 7);
  v.insert(v.begin(), 3, 7);
  CHECK(d == v);
  d.insert(d.end(), {8, 9});
  v.insert(v.end(), {8, 9});
  CHECK(d == v);
  d.insert(d.begin() + 1, d.begin() + 4, d.begin() + 8);  // a range of itself
  const Vec part(v.begin() + 4, v.begin() + 8);
  v.insert(v.begin() + 1, part.begin(), part.end());
  CHECK(d == v);
  d.erase(d.begin() + 3);
  v.erase(v.begin() + 3);
  CHECK(d == v);
  d.erase(d.begin(), d.begin() + 5);
  v.erase(v.begin(), v.begin() + 5);
  CHECK(d == v);
  d.pop_back();
  v.pop_back();
  CHECK(d == v);
  CHECK(d.back() == v.back());
  CHECK(d.front() == v.front());
  d.resize(2);
  CHECK(d == Vec(v.begin(), v.begin() + 2));
  d.resize(9, 5);
  CHECK(d.size() == 9);
  CHECK(d[8] == 5);
  d.assign({1, 2});
  CHECK(d == Vec{1, 2});
  CHECK_THROWS_AS(d.at(2), std::out_of_range);
}

TEST_CASE("core/small_vector: ordering is lexicographic, as std::vector's") {
  CHECK(Dims{1, 2} < Dims{1, 3});
  CHECK(Dims{1, 2} < Dims{1, 2, 0});
  CHECK(Dims{2} > Dims{1, 9, 9});
  CHECK(Dims{1, 2} != Dims{2, 1});
  AxisMask mask(3, false);
  mask[1] = true;
  CHECK(mask == AxisMask{false, true, false});
}

TEST_CASE("core/buffer_pool: size classes, and a freed block serves the next request") {
  using symflow::detail::BufferPool;
  CHECK(BufferPool::capacity(1) == 64);
  CHECK(BufferPool::capacity(65) == 128);
  CHECK(BufferPool::capacity(65536) == 65536);
  CHECK(BufferPool::capacity(65537) == 65536 + 8192);  // eighths of a power of two above
  CHECK(BufferPool::capacity(std::size_t{3} << 20) == std::size_t{3} << 20);
  for (std::size_t bytes : {std::size_t{100}, std::size_t{1} << 20, (std::size_t{5} << 20) + 3}) {
    CAPTURE(bytes);
    BufferPool& pool = BufferPool::instance();
    void* first = pool.allocate(bytes);
    pool.deallocate(first, bytes);
    void* second = pool.allocate(bytes);
    if (BufferPool::kEnabled) CHECK(second == first);
    pool.deallocate(second, bytes);
  }
}

}  // namespace symflow_test_core_small_vector_test
