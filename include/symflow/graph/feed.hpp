#pragma once
// Feeds and fetches: what Session::run takes. A feed names a tensor (by handle or
// by "node:0") and the value that replaces it for one run.

#include <concepts>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <type_traits>
#include <variant>
#include <vector>

#include "symflow/graph/tensor.hpp"

namespace symflow {

struct Feed {
  std::variant<Output, std::string> tensor;
  Value value;

  Feed(Output t, Value v) : tensor(std::move(t)), value(std::move(v)) {}
  Feed(std::string tensor_name, Value v) : tensor(std::move(tensor_name)), value(std::move(v)) {}
  Feed(const char* tensor_name, Value v) : tensor(std::string(tensor_name)), value(std::move(v)) {}

  // Literals take the element type of the tensor they feed: {x, {1, 2, 3}}.
  template <Element T>
  Feed(const Tensor<T>& t, std::type_identity_t<T> scalar) : tensor(Output(t)), value(scalar) {}
  template <Element T>
  Feed(const Tensor<T>& t, std::initializer_list<std::type_identity_t<T>> list)
      : tensor(Output(t)), value(list) {}
  template <Element T>
  Feed(const Tensor<T>& t,
       std::initializer_list<std::initializer_list<std::type_identity_t<T>>> list)
      : tensor(Output(t)), value(list) {}
  // A std::vector is a 1-D value (a Value holds any other shape: Value::from_vector).
  template <Element T>
  Feed(Output t, const std::vector<T>& elements)
      : tensor(std::move(t)),
        value(Value::from_vector(elements, Dims{static_cast<std::int64_t>(elements.size())})) {}
};

// One thing to fetch: a tensor (its value comes back), an operation (run for its
// effect; an empty Value comes back), or either by name ("node:0" or "node").
struct Fetch {
  std::variant<Output, Operation, std::string> target;

  Fetch(Output t) : target(std::move(t)) {}  // NOLINT: implicit on purpose
  template <class T>
  requires(std::convertible_to<T, Output> && !std::same_as<T, Output>) Fetch(const T& t)
      : target(static_cast<Output>(t)) {}                 // NOLINT: Tensor<T>, Variable
  Fetch(Operation op) : target(std::move(op)) {}          // NOLINT
  Fetch(std::string name) : target(std::move(name)) {}    // NOLINT
  Fetch(const char* name) : target(std::string(name)) {}  // NOLINT
};

// The default session's interface, as graph/ sees it: Session implements it, and
// tensor.eval() uses the innermost one registered on this thread.
class Evaluator {
 public:
  virtual ~Evaluator() = default;
  virtual std::vector<Value> evaluate(const std::vector<Fetch>& fetches, const FeedDict& feeds) = 0;
};

namespace detail {
inline std::vector<Evaluator*>& default_evaluators() {
  thread_local std::vector<Evaluator*> stack;
  return stack;
}
}  // namespace detail

inline Value Output::eval(Evaluator& session, const FeedDict& feeds) const {
  return session.evaluate({Fetch(*this)}, feeds).at(0);
}
inline Value Output::eval(Evaluator& session) const { return eval(session, FeedDict{}); }
inline Value Output::eval(const FeedDict& feeds) const {
  auto& stack = detail::default_evaluators();
  if (stack.empty())
    throw ValueError(
        "Cannot evaluate tensor using `eval()`: No default session is registered. Use "
        "`auto guard = sess.as_default();` or pass an explicit session to `eval(sess)`");
  return eval(*stack.back(), feeds);
}
inline Value Output::eval() const { return eval(FeedDict{}); }

inline void Operation::run(Evaluator& session, const FeedDict& feeds) const {
  session.evaluate({Fetch(*this)}, feeds);
}
inline void Operation::run(const FeedDict& feeds) const {
  auto& stack = detail::default_evaluators();
  if (stack.empty())
    throw ValueError(
        "Cannot execute operation using `run()`: No default session is registered. Use "
        "`auto guard = sess.as_default();` or pass an explicit session to `run(sess)`");
  run(*stack.back(), feeds);
}
inline void Operation::run() const { run(FeedDict{}); }

}  // namespace symflow
