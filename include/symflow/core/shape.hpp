#pragma once
// Static shapes as TensorFlow infers them: a known or unknown rank, and each
// dimension known or unknown (-1). Concrete shapes of values are plain Dims.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "symflow/core/errors.hpp"
#include "symflow/core/small_vector.hpp"

namespace symflow {

// A concrete shape. Up to six dimensions live inside the object (no heap block).
using Dims = SmallVector<std::int64_t, 6>;
// Which axes of a shape an op reduces (true: reduced).
using AxisMask = SmallVector<bool, 8>;

inline constexpr std::int64_t unknown_dim = -1;

// The element count of dims that are known to be valid: a Value's own dims (its
// constructors check them with checked_num_elements). Unchecked, for hot paths.
inline std::int64_t num_elements(const Dims& dims) {
  std::int64_t n = 1;
  for (auto d : dims) n *= d;
  return n;
}

// The element count of `dims`, or nullopt when a dim is negative or the running
// product passes int64's maximum. Multiplied left to right as TensorFlow's
// TensorShape does, so [0, 2^40, 2^40] has 0 elements and [2^40, 2^40, 0] overflows.
inline std::optional<std::int64_t> checked_num_elements(const Dims& dims) noexcept {
  std::int64_t n = 1;
  for (auto d : dims)
    if (d < 0 || __builtin_mul_overflow(n, d, &n)) return std::nullopt;
  return n;
}

// The bytes of `count` elements of `element_size` bytes, or nullopt past int64's maximum.
inline std::optional<std::int64_t> checked_nbytes(std::int64_t count,
                                                  std::size_t element_size) noexcept {
  std::int64_t bytes = 0;
  if (count < 0 || __builtin_mul_overflow(count, static_cast<std::int64_t>(element_size), &bytes))
    return std::nullopt;
  return bytes;
}

// "[2,3]": the form the runtime uses in messages.
inline std::string dims_to_string(const Dims& dims) {
  std::string s = "[";
  for (std::size_t i = 0; i < dims.size(); ++i) {
    if (i) s += ",";
    s += dims[i] < 0 ? "?" : std::to_string(dims[i]);
  }
  return s + "]";
}

// TensorFlow's words for dims whose element count passes int64's maximum.
inline std::string too_many_elements_message(const Dims& dims) {
  return "Shape " + dims_to_string(dims) + " would have more than 2**63 - 1 elements";
}

class Shape {
 public:
  // A scalar: known rank 0.
  Shape() = default;
  Shape(std::initializer_list<std::int64_t> dims) : dims_(dims) {}
  explicit Shape(Dims dims) : dims_(std::move(dims)) {}

  static Shape unknown() {
    Shape s;
    s.known_rank_ = false;
    return s;
  }
  static Shape unknown_dims(int rank) { return Shape(Dims(static_cast<std::size_t>(rank), -1)); }

  bool has_rank() const { return known_rank_; }
  int rank() const {
    if (!known_rank_) throw ValueError("Shape " + to_string() + " has unknown rank");
    return static_cast<int>(dims_.size());
  }
  const Dims& dims() const { return dims_; }
  std::int64_t dim(int i) const { return dims_.at(static_cast<std::size_t>(i)); }
  std::int64_t operator[](int i) const { return dim(i); }

  bool is_fully_defined() const {
    if (!known_rank_) return false;
    for (auto d : dims_)
      if (d < 0) return false;
    return true;
  }
  // -1 when not fully defined, or when the count passes int64's maximum (no tensor can
  // have such a shape; building or running one fails where its value is made).
  std::int64_t num_elements() const {
    return is_fully_defined() ? checked_num_elements(dims_).value_or(unknown_dim) : unknown_dim;
  }

  // Could a value of shape `other` (possibly partial) have this shape too?
  bool is_compatible_with(const Shape& other) const {
    if (!known_rank_ || !other.known_rank_) return true;
    if (dims_.size() != other.dims_.size()) return false;
    for (std::size_t i = 0; i < dims_.size(); ++i)
      if (dims_[i] >= 0 && other.dims_[i] >= 0 && dims_[i] != other.dims_[i]) return false;
    return true;
  }
  bool is_compatible_with(const Dims& concrete) const {
    return is_compatible_with(Shape(concrete));
  }

  // The most specific shape compatible with both; ValueError when there is none.
  Shape merge_with(const Shape& other) const {
    if (!known_rank_) return other;
    if (!other.known_rank_) return *this;
    if (!is_compatible_with(other))
      throw ValueError("Shapes " + to_string() + " and " + other.to_string() +
                       " are not compatible");
    Shape merged = *this;
    for (std::size_t i = 0; i < dims_.size(); ++i)
      if (merged.dims_[i] < 0) merged.dims_[i] = other.dims_[i];
    return merged;
  }

  // TensorFlow's TensorShape repr: "()", "(3,)", "(2, 2)", "(?, 3)", "<unknown>".
  std::string to_string() const {
    if (!known_rank_) return "<unknown>";
    std::string s = "(";
    for (std::size_t i = 0; i < dims_.size(); ++i) {
      if (i) s += ", ";
      s += dims_[i] < 0 ? "?" : std::to_string(dims_[i]);
    }
    if (dims_.size() == 1) s += ",";
    return s + ")";
  }

  friend bool operator==(const Shape& a, const Shape& b) {
    return a.known_rank_ == b.known_rank_ && a.dims_ == b.dims_;
  }

 private:
  bool known_rank_ = true;
  Dims dims_;
};

// NumPy broadcasting of two static shapes, as TensorFlow's shape inference does it;
// nullopt when they cannot broadcast. An unknown dim broadcast with a known one is that
// known dim when it is > 1 (the program is assumed correct), and unknown otherwise: with 1
// it could be anything, with 0 it could be 0 or an error.
inline std::optional<Shape> broadcast_shapes(const Shape& a, const Shape& b) {
  if (!a.has_rank() || !b.has_rank()) return Shape::unknown();
  const Dims& x = a.dims();
  const Dims& y = b.dims();
  std::size_t n = std::max(x.size(), y.size());
  Dims out(n);
  for (std::size_t i = 0; i < n; ++i) {
    std::int64_t dx = i < n - x.size() ? 1 : x[i - (n - x.size())];
    std::int64_t dy = i < n - y.size() ? 1 : y[i - (n - y.size())];
    if (dx == 1) {
      out[i] = dy;
    } else if (dy == 1) {
      out[i] = dx;
    } else if (dx < 0 || dy < 0) {
      std::int64_t known = std::max(dx, dy);
      out[i] = known > 1 ? known : unknown_dim;
    } else if (dx == dy) {
      out[i] = dx;
    } else {
      return std::nullopt;
    }
  }
  return Shape(std::move(out));
}

// NumPy broadcasting of two concrete shapes; nullopt when they cannot broadcast.
inline std::optional<Dims> broadcast_dims(const Dims& x, const Dims& y) {
  std::size_t n = std::max(x.size(), y.size());
  Dims out(n);
  for (std::size_t i = 0; i < n; ++i) {
    std::int64_t dx = i < n - x.size() ? 1 : x[i - (n - x.size())];
    std::int64_t dy = i < n - y.size() ? 1 : y[i - (n - y.size())];
    if (dx != dy && dx != 1 && dy != 1) return std::nullopt;
    out[i] = dx == 1 ? dy : dx;
  }
  return out;
}

namespace detail {
// A static shape as Python prints a TensorShape: "(2, 3)", "(3,)", "(None, 3)".
inline std::string python_shape(const Shape& s) {
  if (!s.has_rank()) return "<unknown>";
  std::string out = "(";
  const Dims& d = s.dims();
  for (std::size_t i = 0; i < d.size(); ++i) {
    if (i) out += ", ";
    out += d[i] < 0 ? "None" : std::to_string(d[i]);
  }
  return out + (d.size() == 1 ? ",)" : ")");
}
}  // namespace detail

// std::cout << x.get_shape() prints what Python's print(x.shape) prints: "(2, 3)",
// "(None, 3)", "()", "<unknown>".
inline std::ostream& operator<<(std::ostream& os, const Shape& s) {
  return os << detail::python_shape(s);
}

}  // namespace symflow
