#pragma once
// tf.Print and tf.Assert: the graph-building functions of the logging ops, and their
// registry entries. The ops' descriptions are in ops/defs/logging.hpp, their kernels in
// backend/cpu/kernels/logging.hpp. (TensorFlow spells both with a capital; `assert` is a
// macro in C++ besides.)

#include <array>
#include <concepts>
#include <cstdint>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "symflow/ops/defs/logging.hpp"
#include "symflow/ops/grad_context.hpp"
#include "symflow/ops/op_builder.hpp"

namespace symflow {

// One item of the `data` list of Print and Assert: a tensor, or a value (a number, a
// string, a Value) that the op turns into a Const, as TensorFlow converts Python values.
class DataArg {
 public:
  DataArg(const Output& t) : arg_(t) {}  // NOLINT: implicit on purpose
  template <class T>
  requires(std::convertible_to<T, Output> && !std::same_as<T, Output>) DataArg(const T& t)
      : arg_(static_cast<Output>(t)) {}  // NOLINT: Tensor<T>, Variable
  DataArg(const Value& v) : arg_(v) {}   // NOLINT
  template <Element T>
  DataArg(T scalar) : arg_(Value(scalar)) {}                          // NOLINT
  DataArg(const char* text) : arg_(Value(std::string(text))) {}       // NOLINT
  DataArg(std::string_view text) : arg_(Value(std::string(text))) {}  // NOLINT

  const Output* tensor() const { return std::get_if<Output>(&arg_); }
  const Value* value() const { return std::get_if<Value>(&arg_); }

 private:
  std::variant<Output, Value> arg_;
};

namespace detail {

// The graph of the tensors among `data` and `more`, or the default graph.
inline Graph graph_of_data(const std::vector<DataArg>& data, std::vector<Output> more) {
  for (const DataArg& d : data)
    if (d.tensor()) more.push_back(*d.tensor());
  return graph_of(more);
}

// The data list as the op's inputs: tensors as they are, values as Consts named
// "<op>/data_<i>" (i: the item's place in the list).
inline std::vector<Output> data_inputs(OpBuilder& b, const std::vector<DataArg>& data) {
  std::vector<Output> inputs;
  for (std::size_t i = 0; i < data.size(); ++i)
    inputs.push_back(data[i].tensor()
                         ? *data[i].tensor()
                         : b.constant_arg(*data[i].value(), "data_" + std::to_string(i)));
  return inputs;
}

inline TypeList dtypes_of(const std::vector<Output>& tensors, std::size_t first = 0) {
  TypeList types;
  for (std::size_t i = first; i < tensors.size(); ++i) types.items.push_back(tensors[i].dtype());
  return types;
}

}  // namespace detail

// tf.Print(input, data, message, first_n, summarize): `input` passed on (node "Print");
// each run writes `message` and the first `summarize` elements of every data tensor,
// each in brackets ("msg: [1 2.5 3...][7]"), to standard error. With first_n >= 0 only
// the session's first `first_n` runs of the node write. Runs on the host.
inline Output Print(const Output& input, const std::vector<DataArg>& data,
                    std::string_view message = {}, std::int64_t first_n = -1,
                    std::int64_t summarize = 3, std::string_view name = {}) {
  detail::OpBuilder b(detail::graph_of_data(data, {input}), name, "Print");
  std::vector<Output> inputs{input};
  for (const Output& d : detail::data_inputs(b, data)) inputs.push_back(d);
  AttrMap attrs{{"T", input.dtype()},
                {"U", detail::dtypes_of(inputs, 1)},
                {"message", std::string(message)},
                {"first_n", first_n},
                {"summarize", summarize}};
  return b.build(detail::kPrintOp, inputs, std::move(attrs)).output(0);
}
template <Element T>
Tensor<T> Print(const Tensor<T>& input, const std::vector<DataArg>& data,
                std::string_view message = {}, std::int64_t first_n = -1,
                std::int64_t summarize = 3, std::string_view name = {}) {
  return Tensor<T>(Print(Output(input), data, message, first_n, summarize, name));
}

// tf.Assert(condition, data, summarize): an operation (node "Assert/Assert" in the scope
// "Assert") that fails the run with InvalidArgumentError
// "assertion failed: [<data 0>] [<data 1>] ..." when the bool scalar `condition` is
// false. Use it as a control dependency. As TensorFlow, values among `data` are also
// converted once in the scope ("Assert/Const", unused), and an empty `data` is a
// ValueError. TensorFlow guards an Assert whose data are not all int32 or string with a
// cond ("Assert/AssertGuard"), so that they are computed only to fail; here the Assert
// node is always built directly, with the same failure.
inline Operation Assert(const DataArg& condition, const std::vector<DataArg>& data,
                        std::int64_t summarize = 3, std::string_view name = {}) {
  std::vector<Output> tensors;
  if (condition.tensor()) tensors.push_back(*condition.tensor());
  Graph g = detail::graph_of_data(data, tensors);
  name_scope scope(g, name.empty() ? "Assert" : name);
  for (const DataArg& d : data)
    if (d.value()) detail::make_const(g, *d.value(), "Const");
  detail::OpBuilder b(g, {}, "Assert");
  if (data.empty())
    throw ValueError("Attr 'T' of 'Assert' Op passed list of length 0 less than minimum 1.");
  std::vector<Output> inputs{condition.tensor() ? *condition.tensor()
                                                : b.constant_arg(*condition.value(), "condition")};
  for (const Output& d : detail::data_inputs(b, data)) inputs.push_back(d);
  return b.build(detail::kAssertOp, inputs,
                 {{"T", detail::dtypes_of(inputs, 1)}, {"summarize", summarize}});
}

namespace detail {

// Print: the gradient passes through to `input`; none flows to the data.
inline std::vector<Output> print_grad(const GradContext& c) { return {c.grad()}; }

// The registry's entries of the logging ops (ops/registry.hpp). Assert has no output, so
// no gradient reaches it.
inline constexpr auto kLoggingOpEntries = std::to_array<OpEntry>({
    {&kPrintOp, print_grad},
    {&kAssertOp, not_differentiable},
});

}  // namespace detail

}  // namespace symflow
