#pragma once
// symflow::ct::Tensor<T, D0, D1, ...>: a small dense tensor whose shape is part of its type
// and whose values can be built, read and compared in a constant expression.
//
//   constexpr ct::Tensor<float, 2, 3> w{{1, 2, 3}, {4, 5, 6}};
//   static_assert(w(1, 2) == 6);
//
// Needs only the standard library: the graph bridge lives in ct/graph.hpp.

#include <array>
#include <concepts>
#include <cstddef>
#include <stdexcept>
#include <type_traits>
#include <utility>

namespace symflow::ct {

// Element types: arithmetic, not bool (the graph bridge further needs a symflow dtype).
template <class T>
concept Number = std::is_arithmetic_v<T> && !std::is_same_v<T, bool>;

template <std::size_t Rank>
using Shape = std::array<std::size_t, Rank>;

namespace detail {

// T[D0][D1]...: the C array that a nested brace list initializes.
template <class T, std::size_t... Ds>
struct c_array {
  using type = T;
};
template <class T, std::size_t D, std::size_t... Ds>
struct c_array<T, D, Ds...> {
  using type = typename c_array<T, Ds...>::type[D];
};

// Copies a (nested) C array, row-major, into flat storage.
template <class A, class T>
constexpr void flatten_into(const A& a, T* out, std::size_t& pos) {
  if constexpr (std::is_array_v<A>) {
    for (const auto& e : a) flatten_into(e, out, pos);
  } else {
    out[pos++] = static_cast<T>(a);
  }
}

template <std::size_t Rank>
constexpr std::size_t num_elements(const Shape<Rank>& shape) {
  std::size_t n = 1;
  for (std::size_t d : shape) n *= d;
  return n;
}

// Row-major flat index <-> coordinates.
template <std::size_t Rank>
constexpr Shape<Rank> unravel(std::size_t flat, const Shape<Rank>& shape) {
  Shape<Rank> index{};
  for (std::size_t k = Rank; k-- > 0;) {
    index[k] = flat % shape[k];
    flat /= shape[k];
  }
  return index;
}
template <std::size_t Rank>
constexpr std::size_t ravel(const Shape<Rank>& index, const Shape<Rank>& shape) {
  std::size_t flat = 0;
  for (std::size_t k = 0; k < Rank; ++k) flat = flat * shape[k] + index[k];
  return flat;
}

}  // namespace detail

template <Number T, std::size_t... Ds>
class Tensor {
  static_assert(((Ds > 0) && ...), "symflow::ct::Tensor: every dimension must be at least 1");

 public:
  using value_type = T;
  static constexpr bool is_ct_expression = true;
  static constexpr std::size_t rank = sizeof...(Ds);
  static constexpr Shape<rank> shape{Ds...};
  static constexpr std::size_t size = (std::size_t{1} * ... * Ds);

  // Row-major elements; public so that the type stays structural and easy to inspect.
  std::array<T, size> values{};

 private:
  // One row of a rank >= 2 tensor with its first dimension removed, as a C array.
  using row_type = std::remove_extent_t<typename detail::c_array<T, Ds...>::type>;
  // Rows of these lengths fill a rank >= 2 tensor.
  template <std::size_t... N>
  static constexpr bool rows_fit = sizeof...(Ds) >= 2 && sizeof...(N) == shape[0] &&
                                   ((N == shape[1]) && ...);

 public:
  constexpr Tensor() = default;

  // Rank 0: a scalar, `ct::Tensor<float>{2.5f}`.
  template <Number U>
  requires(rank == 0) constexpr Tensor(U v)  // NOLINT: implicit, like a literal
      : values{static_cast<T>(v)} {}

  // Rank 1: one value per element, `ct::Tensor<float, 3>{1, 2, 3}`.
  template <Number... U>
  requires(rank == 1 && sizeof...(U) == size) constexpr Tensor(U... v)
      : values{static_cast<T>(v)...} {}

  // Rank >= 2: one brace list per row, `ct::Tensor<float, 2, 3>{{1, 2, 3}, {4, 5, 6}}`.
  // Each row's length is deduced (N) so that a row of the wrong length is rejected.
  template <std::size_t... N>
  requires rows_fit<N...>
  constexpr Tensor(const std::remove_extent_t<row_type> (&... rows)[N]) {
    std::size_t pos = 0;
    (detail::flatten_into(rows, values.data(), pos), ...);
  }

  // Every element `v`.
  static constexpr Tensor filled(T v) {
    Tensor t;
    for (T& e : t.values) e = v;
    return t;
  }

  // Element access: t(i, j) on a matrix, t() on a scalar. Out of range throws
  // (in a constant expression: a compile error).
  template <std::integral... I>
  requires(sizeof...(I) == rank) constexpr const T& operator()(I... index) const {
    return values[offset(index...)];
  }
  template <std::integral... I>
  requires(sizeof...(I) == rank) constexpr T& operator()(I... index) {
    return values[offset(index...)];
  }

  friend constexpr bool operator==(const Tensor&, const Tensor&) = default;

 private:
  template <class... I>
  static constexpr std::size_t offset(I... index) {
    if ((std::cmp_less(index, 0) || ...))
      throw std::out_of_range("symflow::ct::Tensor: index out of range");
    Shape<rank> at{static_cast<std::size_t>(index)...};
    for (std::size_t k = 0; k < rank; ++k)
      if (at[k] >= shape[k]) throw std::out_of_range("symflow::ct::Tensor: index out of range");
    return detail::ravel(at, shape);
  }
};

template <class T, std::size_t N>
using Vector = Tensor<T, N>;
template <class T, std::size_t Rows, std::size_t Cols>
using Matrix = Tensor<T, Rows, Cols>;

namespace detail {

// Tensor<T, Shape[0], Shape[1], ...> from a shape computed at compile time.
template <class T, auto S, class = std::make_index_sequence<S.size()>>
struct tensor_for;
template <class T, auto S, std::size_t... I>
struct tensor_for<T, S, std::index_sequence<I...>> {
  using type = Tensor<T, S[I]...>;
};

template <class E>
struct is_tensor : std::false_type {};
template <class T, std::size_t... Ds>
struct is_tensor<Tensor<T, Ds...>> : std::true_type {};

}  // namespace detail

template <class T, auto S>
using tensor_t = typename detail::tensor_for<T, S>::type;

}  // namespace symflow::ct
