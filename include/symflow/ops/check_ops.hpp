#pragma once
// TensorFlow 1.x's assertions (tf.debugging.assert_equal, assert_less, assert_positive,
// ...: check_ops) and tf.add_check_numerics_ops. Each assertion is built as TensorFlow
// builds it, under its name scope: the comparison, an All over every axis, and an Assert
// (ops/logging_ops.hpp) whose data say what failed. When every input is a constant the
// check happens at once and fails with InvalidArgumentError; assert_rank checks a known
// rank at once with ValueError, and returns a NoOp when it holds.

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "symflow/ops/array_ops.hpp"
#include "symflow/ops/const_op.hpp"
#include "symflow/ops/control_ops.hpp"
#include "symflow/ops/logging_ops.hpp"
#include "symflow/ops/logic_ops.hpp"
#include "symflow/ops/reduction_ops.hpp"
#include "symflow/ops/shape_ops.hpp"
#include "symflow/ops/tensor_arg.hpp"

namespace symflow {

namespace debugging {

// The keyword arguments the assertions share (TensorFlow's defaults: all absent).
// `data` replaces the default failure data (and then `message` is not used by the
// one-operand assertions, as in TensorFlow); `summarize` is how many elements of each
// tensor the failure shows (3 when absent).
struct AssertOptions {
  std::optional<std::vector<DataArg>> data{};
  std::optional<std::int64_t> summarize{};
  std::optional<std::string> message{};
  std::string name{};
};

}  // namespace debugging

namespace detail {

// The value of a tensor made by a Const, or nullopt (TensorFlow's constant_value, which
// also folds a few other ops; here only Consts count).
inline std::optional<Value> constant_value_of(const Output& t) {
  if (t.op().type() != "Const") return std::nullopt;
  return t.op().get_attr<Value>("value");
}

// A static shape as TensorFlow 2 prints one: "(None, 2)", "(3,)", "()".
inline std::string shape_for_message(const Shape& shape) {
  if (!shape.has_rank()) return "<unknown>";
  std::string s = "(";
  for (std::size_t i = 0; i < shape.dims().size(); ++i) {
    if (i > 0) s += ", ";
    s += shape.dims()[i] < 0 ? "None" : std::to_string(shape.dims()[i]);
  }
  if (shape.dims().size() == 1) s += ",";
  return s + ")";
}

// One element as NumPy's str() writes it when alone: shortest round-trip digits, with
// ".0" on a whole float and True/False for bools. The float form has no exponent.
template <class T>
std::string numpy_element(T x) {
  if constexpr (std::is_same_v<T, bool>) {
    return x ? "True" : "False";
  } else if constexpr (std::is_floating_point_v<T>) {
    char buffer[64];
    auto end = std::to_chars(buffer, buffer + sizeof buffer, x, std::chars_format::fixed).ptr;
    std::string s(buffer, end);
    if (s.find('.') == std::string::npos) s += ".";
    return s;
  } else {
    return std::to_string(static_cast<std::int64_t>(x));
  }
}

// A constant as NumPy's str() writes it ("[ 1 10]", "[[1.5 2. ]\n [3.  4. ]]", "True"),
// for numbers and bools printed without an exponent, on lines NumPy would not wrap;
// nullopt for the rest (strings, floats NumPy prints in scientific notation, long lines).
inline std::optional<std::string> numpy_str(const Value& v) {
  if (v.dtype() == DType::string || v.size() > 1000) return std::nullopt;
  std::optional<std::string> result;
  visit_dtype(v.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (!std::is_same_v<T, std::string>) {
      const auto elements = v.flat<T>();
      if constexpr (std::is_floating_point_v<T>) {
        double smallest = 0, largest = 0;
        for (T x : elements) {
          if (!std::isfinite(x)) return;
          const double a = std::fabs(static_cast<double>(x));
          if (a == 0) continue;
          smallest = smallest == 0 ? a : std::min(smallest, a);
          largest = std::max(largest, a);
        }
        if (largest >= 1e8 || (smallest > 0 && (smallest < 1e-4 || largest / smallest > 1e3)))
          return;  // NumPy would switch to scientific notation
      }
      if (v.rank() == 0) {
        result = numpy_element(elements[0]);
        if constexpr (std::is_floating_point_v<T>)
          if (result->back() == '.') *result += '0';
        return;
      }
      // Every element padded to a common width: integers (and bools) to the right, floats
      // around their decimal point.
      std::vector<std::string> texts;
      std::size_t left = 0, right = 0;
      for (T x : elements) {
        texts.push_back(numpy_element(x));
        const std::size_t dot =
            std::is_floating_point_v<T> ? texts.back().find('.') : texts.back().size();
        left = std::max(left, dot);
        right = std::max(right, texts.back().size() - dot);
      }
      for (std::string& t : texts) {
        const std::size_t dot = std::is_floating_point_v<T> ? t.find('.') : t.size();
        t = std::string(left - dot, ' ') + t + std::string(right - (t.size() - dot), ' ');
      }
      const Dims& dims = v.dims();
      std::string out;
      std::size_t next = 0;
      std::function<void(std::size_t)> write = [&](std::size_t axis) {
        out += '[';
        for (std::int64_t i = 0; i < dims[axis]; ++i) {
          if (axis + 1 == dims.size()) {
            if (i > 0) out += ' ';
            out += texts[next++];
          } else {
            if (i > 0)
              out += std::string(dims.size() - axis - 1, '\n') + std::string(axis + 1, ' ');
            write(axis + 1);
          }
        }
        out += ']';
      };
      write(0);
      std::size_t line_start = 0;
      for (std::size_t at = 0; at <= out.size(); ++at)
        if (at == out.size() || out[at] == '\n') {
          if (at - line_start > 75) return;  // NumPy would wrap this line
          line_start = at + 1;
        }
      result = out;
    }
  });
  return result;
}

// One data item as TensorFlow's static check writes it: strings as they are, constants
// as NumPy prints them, other tensors as their Python repr.
inline std::string static_data_text(const DataArg& d) {
  std::optional<Value> v =
      d.value() ? std::optional<Value>(*d.value()) : constant_value_of(*d.tensor());
  if (v && v->dtype() == DType::string && v->rank() == 0) return v->scalar<std::string>();
  if (v)
    if (auto text = numpy_str(*v)) return *text;
  const Output& t = *d.tensor();
  return "Tensor(\"" + t.name() + "\", shape=" + shape_for_message(t.get_shape()) +
         ", dtype=" + std::string(dtype_name(t.dtype())) + ")";
}

// Whether `pass` holds for every pair of elements of two constants of one dtype, equal
// shapes or one of them a single element; nullopt when other shapes need broadcasting.
inline std::optional<bool> static_all(const Value& x, const Value& y,
                                      bool (*pass)(double, double)) {
  if (x.dtype() != y.dtype() || x.dtype() == DType::string) return std::nullopt;
  if (x.dims() != y.dims() && x.size() != 1 && y.size() != 1) return std::nullopt;
  const Value a = x.astype(DType::float64), b = y.astype(DType::float64);
  const std::int64_t n = std::max(a.size(), b.size());
  if (a.size() == 0 || b.size() == 0) return true;
  const auto fa = a.flat<double>();
  const auto fb = b.flat<double>();
  for (std::int64_t i = 0; i < n; ++i)
    if (!pass(fa[static_cast<std::size_t>(a.size() == 1 ? 0 : i)],
              fb[static_cast<std::size_t>(b.size() == 1 ? 0 : i)]))
      return false;
  return true;
}

// `y` as a tensor: a value becomes the Const "y" of x's dtype in the current scope.
inline Output operand(Graph& g, const TensorArg& y, DType dtype) {
  if (y.tensor()) return *y.tensor();
  return make_const(g, y.value()->astype(dtype), "y").output(0);
}

// TensorFlow's _binary_assert: in the scope `opname` (or the given name), the condition
// All(compare(x, y)) and an Assert of the data, checked at once when x and y are Consts.
inline Operation binary_assert(std::string_view sym, std::string_view opname,
                               Tensor<bool> (*compare)(const Output&, const Output&,
                                                       std::string_view),
                               bool (*pass)(double, double), const Output& x, const TensorArg& y,
                               const debugging::AssertOptions& options) {
  Graph g = graph_of({x});
  name_scope scope(g, options.name.empty() ? opname : options.name);
  const Output yt = operand(g, y, x.dtype());
  std::vector<DataArg> data =
      options.data ? *options.data
                   : std::vector<DataArg>{
                         "Condition x " + std::string(sym) + " y did not hold element-wise:",
                         "x (" + x.name() + ") = ", x, "y (" + yt.name() + ") = ", yt};
  if (options.message) data.insert(data.begin(), DataArg(*options.message));
  const Output condition = reduce_all(compare(x, yt, {}));
  const std::optional<Value> xs = constant_value_of(x), ys = constant_value_of(yt);
  if (xs && ys && static_all(*xs, *ys, pass) == false) {
    std::string text;
    for (std::size_t i = 0; i < data.size(); ++i)
      text += (i > 0 ? "\n" : "") + static_data_text(data[i]);
    throw InvalidArgumentError(text);
  }
  return Assert(condition, data, options.summarize.value_or(3));
}

// The message of the one-operand assertions and assert_rank: "<message>.  " or nothing.
inline std::string message_prefix(const std::optional<std::string>& message) {
  return message && !message->empty() ? *message + ".  " : "";
}

// assert_positive and its kin: in the scope `opname`, a zero of x's dtype ("Const"), and
// the two-operand assertion `inner` of (zero, x) or (x, zero), without its own message.
inline Operation unary_assert(std::string_view sym, std::string_view opname, bool zero_first,
                              std::string_view inner_name, std::string_view inner_sym,
                              Tensor<bool> (*compare)(const Output&, const Output&,
                                                      std::string_view),
                              bool (*pass)(double, double), const Output& x,
                              const debugging::AssertOptions& options) {
  Graph g = graph_of({x});
  name_scope scope(g, options.name.empty() ? opname : options.name);
  std::vector<DataArg> data =
      options.data
          ? *options.data
          : std::vector<DataArg>{message_prefix(options.message),
                                 "Condition x " + std::string(sym) + " did not hold element-wise:",
                                 "x (" + x.name() + ") = ", x};
  const Output zero = make_const(g, Value(std::int32_t{0}).astype(x.dtype()), "Const").output(0);
  debugging::AssertOptions inner{.data = std::move(data), .summarize = options.summarize};
  inner.name = std::string(inner_name);
  return zero_first ? binary_assert(inner_sym, inner_name, compare, pass, zero, x, inner)
                    : binary_assert(inner_sym, inner_name, compare, pass, x, zero, inner);
}

}  // namespace detail

namespace debugging {

// tf.debugging.assert_equal(x, y): fails unless x == y everywhere (y broadcast).
// TensorFlow 2's version opens its name scope twice, so its nodes are named
// "assert_equal_1/Equal", ... (and "eq_1/..." for the name "eq"); so are symflow's.
// The same tensor twice gives a NoOp ("assert_equal/NoOp").
inline Operation assert_equal(const Output& x, const TensorArg& y,
                              const AssertOptions& options = {}) {
  {
    name_scope outer(graph_of({x}), options.name.empty() ? "assert_equal" : options.name);
    if (y.tensor() && *y.tensor() == x) return no_op();
  }
  return detail::binary_assert(
      "==", "assert_equal", equal, [](double a, double b) { return a == b; }, x, y, options);
}

// tf.debugging.assert_less(x, y): fails unless x < y everywhere.
inline Operation assert_less(const Output& x, const TensorArg& y,
                             const AssertOptions& options = {}) {
  return detail::binary_assert(
      "<", "assert_less", less, [](double a, double b) { return a < b; }, x, y, options);
}

// tf.debugging.assert_less_equal(x, y): fails unless x <= y everywhere.
inline Operation assert_less_equal(const Output& x, const TensorArg& y,
                                   const AssertOptions& options = {}) {
  return detail::binary_assert(
      "<=", "assert_less_equal", less_equal, [](double a, double b) { return a <= b; }, x, y,
      options);
}

// tf.debugging.assert_positive(x): fails unless x > 0 everywhere (built as
// "assert_positive/assert_less/...", comparing a zero with x).
inline Operation assert_positive(const Output& x, const AssertOptions& options = {}) {
  return detail::unary_assert(
      "> 0", "assert_positive", true, "assert_less", "<", less,
      [](double a, double b) { return a < b; }, x, options);
}

// tf.debugging.assert_negative(x): fails unless x < 0 everywhere.
inline Operation assert_negative(const Output& x, const AssertOptions& options = {}) {
  return detail::unary_assert(
      "< 0", "assert_negative", false, "assert_less", "<", less,
      [](double a, double b) { return a < b; }, x, options);
}

// tf.debugging.assert_non_negative(x): fails unless x >= 0 everywhere.
inline Operation assert_non_negative(const Output& x, const AssertOptions& options = {}) {
  return detail::unary_assert(
      ">= 0", "assert_non_negative", true, "assert_less_equal", "<=", less_equal,
      [](double a, double b) { return a <= b; }, x, options);
}

// tf.debugging.assert_rank(x, rank): with x's rank known, checked now: a ValueError
// ("Tensor x:0 must have rank 3.  Received rank 2, shape (None, 2)") or a NoOp
// "assert_rank/static_checks_determined_all_ok"; otherwise an Assert of Rank(x) == rank.
inline Operation assert_rank(const Output& x, std::int64_t rank,
                             const AssertOptions& options = {}) {
  Graph g = graph_of({x});
  name_scope scope(g, options.name.empty() ? "assert_rank" : options.name);
  const Output rank_t =
      detail::make_const(g, Value(static_cast<std::int32_t>(rank)), "rank").output(0);
  const std::string prefix = detail::message_prefix(options.message);
  std::vector<DataArg> data;
  if (options.data) {
    data = *options.data;
  } else {
    // tf.shape folds a fully defined shape into a Const.
    const Shape& s = x.get_shape();
    const Output x_shape =
        s.is_fully_defined()
            ? detail::make_const(g, detail::int32_vector(s.dims()), "Shape").output(0)
            : shape(x);
    data = {prefix, "Tensor " + x.name() + " must have rank", rank_t, "Received shape: ", x_shape};
  }
  {
    // TensorFlow checks that `rank` is int32 first; an int32 Const passes at once.
    name_scope type_scope(g, "assert_type");
    no_op("statically_determined_correct_type");
  }
  if (x.get_shape().has_rank()) {
    const std::int64_t x_rank = x.get_shape().rank();
    if (x_rank != rank)
      throw ValueError(prefix + "Tensor " + x.name() + " must have rank " + std::to_string(rank) +
                       ".  Received rank " + std::to_string(x_rank) + ", shape " +
                       detail::shape_for_message(x.get_shape()));
    return no_op("static_checks_determined_all_ok");
  }
  // TensorFlow 2's tf.rank, called here, names its op "Rank_1" (its name scope "Rank" is
  // taken first); the scope is fresh, so that name is free.
  const Output condition = equal(symflow::rank(x, "Rank_1"), rank_t);
  return Assert(condition, data, options.summarize.value_or(3));
}

}  // namespace debugging

// tf.add_check_numerics_ops(): a CheckNumerics for every float output of every op the
// graph holds now, each named "CheckNumerics", "CheckNumerics_1", ... with the message
// "<op>:<output index>" and running after the one before it, and a NoOp "group_deps"
// after the last. As TensorFlow 1.x, refuses (ValueError) a graph where a float output
// comes from inside a tf.cond or tf.while_loop.
inline Operation add_check_numerics_ops(Graph g = get_default_graph()) {
  std::vector<Operation> previous;
  for (const Operation& op : g.get_operations()) {
    for (int i = 0; i < op.num_outputs(); ++i) {
      const Output out = op.output(i);
      if (!is_floating(out.dtype())) continue;
      if (g.state().node(op.id()).context != 0)
        throw ValueError(
            "`tf.add_check_numerics_ops() is not compatible with TensorFlow control flow "
            "operations such as `tf.cond()` or `tf.while_loop()`.");
      std::optional<control_dependencies> after;
      if (!previous.empty()) after.emplace(previous);
      previous = {check_numerics(out, op.name() + ":" + std::to_string(i)).op()};
    }
  }
  return group(previous);
}

}  // namespace symflow
