#pragma once
// tf.variable_scope: the scope that get_variable prefixes to variable names and that
// decides whether get_variable creates a variable or reuses one.
//
//   VariableScope     a scope's properties (name, reuse, default initializer,
//                     regularizer, dtype and custom getter); a handle, as TensorFlow's
//                     object is: copies see the same scope, so reuse_variables() on any
//                     of them turns reuse on for all
//                     (tf.get_variable_scope().reuse_variables()).
//   variable_scope    the RAII guard of `with tf.variable_scope(...)`: it opens a name
//                     scope too, so ops built inside get the prefix as well.
//   get_variable_scope()  the current scope of the default graph.
//
// The state behind them (the current scope, how often each scope name was opened,
// and get_variable's store) belongs to the graph: detail::VariableScopeState.

#include <concepts>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <map>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <type_traits>
#include <variant>
#include <vector>

#include "symflow/graph/collections.hpp"
#include "symflow/graph/scopes.hpp"
#include "symflow/ops/init_ops.hpp"
#include "symflow/variables/variable.hpp"

namespace symflow {

// A function of a variable whose result get_variable adds to REGULARIZATION_LOSSES
// (an empty result adds nothing).
using Regularizer = std::function<Output(const Output&)>;

// get_variable's initializer (and a variable scope's default one), in the forms that
// TensorFlow accepts:
//   an Initializer          called with the variable's shape and dtype;
//   a function of nothing   returning the initial value (built in "<name>/Initializer/"),
//                           whose shape and dtype the variable takes: no shape is given;
//   a constant initial value (a Value, a number, a list, a tensor), whose shape and
//                           dtype the variable takes: no shape is given.
class InitializerOrValue {
 public:
  using InitialValueFn = Variable::InitialValueFn;

  InitializerOrValue() = default;
  InitializerOrValue(Initializer initializer) {  // NOLINT: implicit on purpose
    if (initializer) init_ = std::move(initializer);
  }
  template <class F>
  requires(!std::same_as<std::decay_t<F>, Initializer> &&
           !std::same_as<std::decay_t<F>, InitializerOrValue> &&
           std::is_invocable_r_v<Output, F&, const Shape&, DType>) InitializerOrValue(F initializer)
      : init_(Initializer(std::move(initializer))) {}  // NOLINT
  template <class F>
  requires(!std::same_as<std::decay_t<F>, InitializerOrValue> && !std::convertible_to<F, Output> &&
           std::is_invocable_r_v<Output, F&>)
      InitializerOrValue(F initial_value)  // NOLINT: implicit on purpose
      : init_(InitialValueFn(std::move(initial_value))) {}
  InitializerOrValue(const Value& value) : init_(value) {}  // NOLINT
  template <Element T>
  InitializerOrValue(T scalar) : init_(Value(scalar)) {}  // NOLINT
  template <Element T>
  InitializerOrValue(std::initializer_list<T> list) : init_(Value(list)) {}  // NOLINT
  template <Element T>
  InitializerOrValue(std::initializer_list<std::initializer_list<T>> list)  // NOLINT
      : init_(Value(list)) {}
  InitializerOrValue(const Output& tensor) : init_(tensor) {}  // NOLINT
  template <class T>
  requires(std::convertible_to<T, Output> && !std::same_as<T, Output> &&
           !std::is_invocable_v<T&, const Shape&, DType>) InitializerOrValue(const T& tensor)
      : init_(static_cast<Output>(tensor)) {}  // NOLINT: Tensor<T>

  bool empty() const { return std::holds_alternative<std::monostate>(init_); }
  explicit operator bool() const { return !empty(); }
  // A constant initial value rather than an initializer.
  bool is_value() const { return value() || tensor(); }
  const Initializer* initializer() const { return std::get_if<Initializer>(&init_); }
  const InitialValueFn* initial_value_fn() const { return std::get_if<InitialValueFn>(&init_); }
  const Value* value() const { return std::get_if<Value>(&init_); }
  const Output* tensor() const { return std::get_if<Output>(&init_); }

 private:
  std::variant<std::monostate, Initializer, InitialValueFn, Value, Output> init_;
};

struct GetVariableOptions;

// What a custom getter calls to get the variable: the next getter out, and finally
// get_variable's own creation and reuse logic. `name` is the variable's full name.
using VariableGetter = std::function<Variable(const std::string& name, const Shape& shape,
                                              const GetVariableOptions& options)>;
// tf.variable_scope's and tf.get_variable's custom_getter: called instead of creating
// the variable, with the full name, the shape and get_variable's options (the scope's
// defaults filled in); it may change them (rename, freeze, ...) before calling `getter`.
using CustomGetter = std::function<Variable(const VariableGetter& getter, const std::string& name,
                                            const Shape& shape, const GetVariableOptions& options)>;

// The reuse setting of a variable scope. TensorFlow spells it False, True or
// tf.AUTO_REUSE; symflow spells it `false`, `true` or `symflow::reuse::auto_reuse`.
//   no          get_variable creates variables; an existing name is an error
//   yes         get_variable returns existing variables; a missing name is an error
//   auto_reuse  get_variable returns the variable if it exists, else creates it
// Given to a variable_scope guard, `false` means "inherit the enclosing scope's
// setting": reuse cannot be switched off inside a reusing scope.
class Reuse {
 public:
  enum class Mode : std::uint8_t { no, yes, auto_reuse };

  constexpr Reuse() noexcept = default;
  template <class B>
  requires std::same_as<B, bool>
  constexpr Reuse(B reuse) noexcept : mode_(reuse ? Mode::yes : Mode::no) {}  // NOLINT: implicit
  constexpr Reuse(Mode mode) noexcept : mode_(mode) {}                        // NOLINT: implicit

  constexpr Mode mode() const noexcept { return mode_; }
  // Python's truthiness of the setting: true for True and for AUTO_REUSE.
  constexpr explicit operator bool() const noexcept { return mode_ != Mode::no; }
  friend constexpr bool operator==(Reuse, Reuse) noexcept = default;

 private:
  Mode mode_ = Mode::no;
};

namespace reuse {
// tf.AUTO_REUSE: `symflow::variable_scope scope("conv1", symflow::reuse::auto_reuse);`
inline constexpr Reuse auto_reuse{Reuse::Mode::auto_reuse};
}  // namespace reuse
// TensorFlow's spelling of reuse::auto_reuse (the word its error messages use).
inline constexpr Reuse AUTO_REUSE = reuse::auto_reuse;

// "False", "True", "AUTO_REUSE".
inline std::string to_string(Reuse r) {
  switch (r.mode()) {
    case Reuse::Mode::no:
      return "False";
    case Reuse::Mode::yes:
      return "True";
    case Reuse::Mode::auto_reuse:
      return "AUTO_REUSE";
  }
  return "?";
}
inline std::ostream& operator<<(std::ostream& os, Reuse r) { return os << to_string(r); }

namespace detail {
struct VariableScopeData {
  std::string name;        // "outer/inner", "" for the root scope
  std::string name_scope;  // the name scope it was opened with: "outer/inner/", "outer_1/inner/"
  Reuse reuse;
  InitializerOrValue initializer;  // empty: get_variable's default
  Regularizer regularizer;         // empty: none
  CustomGetter custom_getter;      // empty: none
  DType dtype = DType::float32;
};
}  // namespace detail

// tf.VariableScope.
class VariableScope {
 public:
  // A root scope: no name, reuse off, float32.
  VariableScope() : d_(std::make_shared<detail::VariableScopeData>()) {}
  explicit VariableScope(detail::VariableScopeData data)
      : d_(std::make_shared<detail::VariableScopeData>(std::move(data))) {}

  // "outer/inner": what get_variable puts in front of a variable's name.
  const std::string& name() const { return d_->name; }
  // The name scope the scope opened first ("outer/inner/"); re-entering the scope
  // opens another ("outer/inner_1/") but this stays.
  const std::string& original_name_scope() const { return d_->name_scope; }
  Reuse reuse() const { return d_->reuse; }
  const InitializerOrValue& initializer() const { return d_->initializer; }
  const Regularizer& regularizer() const { return d_->regularizer; }
  const CustomGetter& custom_getter() const { return d_->custom_getter; }
  DType dtype() const { return d_->dtype; }

  // From now on get_variable in this scope returns existing variables.
  void reuse_variables() { d_->reuse = true; }
  void set_initializer(InitializerOrValue initializer) { d_->initializer = std::move(initializer); }
  void set_regularizer(Regularizer regularizer) { d_->regularizer = std::move(regularizer); }
  void set_custom_getter(CustomGetter getter) { d_->custom_getter = std::move(getter); }
  void set_dtype(DType dtype) { d_->dtype = dtype; }

  // The items of a collection of the default graph whose names start with this
  // scope's name and a slash (everything for the root scope).
  std::vector<CollectionValue> get_collection(std::string_view key) const {
    return get_default_graph().get_collection(key, prefix());
  }
  std::vector<Variable> global_variables() const {
    return variables_in(GraphKeys::GLOBAL_VARIABLES, get_default_graph(), prefix());
  }
  std::vector<Variable> trainable_variables() const {
    return variables_in(GraphKeys::TRAINABLE_VARIABLES, get_default_graph(), prefix());
  }
  std::vector<Variable> local_variables() const {
    return variables_in(GraphKeys::LOCAL_VARIABLES, get_default_graph(), prefix());
  }

  const detail::VariableScopeData& data() const { return *d_; }

  // The same scope object (Python's `is`), not merely the same name.
  friend bool operator==(const VariableScope& a, const VariableScope& b) { return a.d_ == b.d_; }

 private:
  std::string prefix() const { return d_->name.empty() ? std::string() : d_->name + "/"; }

  std::shared_ptr<detail::VariableScopeData> d_;
};

namespace detail {

struct VariableScopeState {
  VariableScope current;                // the innermost open variable scope
  std::map<std::string, int> counts;    // how often each scope name was opened
  std::map<std::string, NodeId> store;  // get_variable's variables by full name
};

inline VariableScopeState& variable_scope_state(const Graph& graph) {
  auto& state = graph.state().variable_scopes;
  if (!state) state = std::make_shared<VariableScopeState>();
  return *state;
}

}  // namespace detail

// The innermost open variable scope of the default graph (tf.get_variable_scope).
inline VariableScope get_variable_scope() {
  return detail::variable_scope_state(get_default_graph()).current;
}

// The keyword arguments of tf.variable_scope.
struct VariableScopeOptions {
  // Used when the name is empty; uniquified ("layer", "layer_1", ...).
  std::string default_name = {};
  // Tensors the scope's ops will use: their graph becomes the default graph inside.
  std::vector<Output> values = {};
  // Defaults for get_variable inside; unset ones are inherited. The initializer may
  // also be a constant initial value or a function of nothing (see InitializerOrValue).
  InitializerOrValue initializer = {};
  Regularizer regularizer = {};
  // Wraps get_variable inside; nested inside an enclosing scope's getter, it is called
  // first, and the getter it is given leads to the enclosing one.
  CustomGetter custom_getter = {};
  Reuse reuse = {};  // false: inherit; true or reuse::auto_reuse: set
  DType dtype = DType::invalid;
  // Also open a name scope (false: ops keep the enclosing name scope).
  bool auxiliary_name_scope = true;
};

// Opens a variable scope (and a name scope) until the guard ends:
//   symflow::variable_scope scope("conv1");                          // by name
//   symflow::variable_scope scope("conv1", symflow::reuse::auto_reuse);
//   symflow::variable_scope scope("conv1", true);                    // reuse=True
//   symflow::variable_scope scope("", {.default_name = "layer"});    // layer, layer_1, ...
//   symflow::variable_scope scope(captured);                         // re-enter a VariableScope
// A name opens "<enclosing>/<name>", not uniquified (opening it again shares its
// variables); its name scope is uniquified ("conv1_1/") like any name scope. A captured
// scope is re-entered with its own full name and settings, wherever it is opened.
class variable_scope {
 public:
  explicit variable_scope(std::string_view name, const VariableScopeOptions& options = {})
      : graph_(graph_of(options.values)) {
    graph_guard_.emplace(graph_);
    if (name.empty() && !options.default_name.empty())
      enter_default(options);
    else
      enter_named(name, options);
  }
  variable_scope(std::string_view name, Reuse reuse)
      : variable_scope(name, VariableScopeOptions{.reuse = reuse}) {}

  explicit variable_scope(const VariableScope& scope, const VariableScopeOptions& options = {})
      : graph_(graph_of(options.values)) {
    graph_guard_.emplace(graph_);
    enter_captured(scope, options);
  }
  variable_scope(const VariableScope& scope, Reuse reuse)
      : variable_scope(scope, VariableScopeOptions{.reuse = reuse}) {}

  ~variable_scope() {
    auto& state = detail::variable_scope_state(graph_);
    if (captured_) {
      state.counts = saved_counts_;
    } else {
      // Leaving a scope forgets the default names used inside it.
      std::string prefix = scope_.name() + "/";
      for (auto& [key, count] : state.counts)
        if (key.starts_with(prefix)) count = 0;
    }
    state.current = old_;
  }
  variable_scope(const variable_scope&) = delete;
  variable_scope& operator=(const variable_scope&) = delete;

  // The scope opened (what `with tf.variable_scope(...) as scope` binds): keep it to
  // re-enter the scope later.
  const VariableScope& scope() const { return scope_; }
  operator const VariableScope&() const { return scope_; }  // NOLINT: implicit

  const std::string& name() const { return scope_.name(); }
  const std::string& original_name_scope() const { return scope_.original_name_scope(); }
  Reuse reuse() const { return scope_.reuse(); }
  void reuse_variables() { scope_.reuse_variables(); }

 private:
  // The name scope the variable scope opens; its name with the trailing slash.
  std::string open_name_scope(std::string_view name, bool auxiliary) {
    if (!auxiliary) {
      // Re-enter the current name scope.
      const std::string& current = graph_.state().name_stack;
      name_scope_.emplace(graph_, current.empty() ? std::string() : current + "/");
    } else if (!name.empty()) {
      name_scope_.emplace(graph_, name);
    } else {
      return {};
    }
    return name_scope_->name();
  }

  void enter_named(std::string_view name, const VariableScopeOptions& o) {
    std::string name_scope = open_name_scope(name, o.auxiliary_name_scope);
    if (name_scope_ == std::nullopt) name_scope = std::string(name);
    enter_pure(std::string(name), name_scope, o.reuse, o);
  }

  void enter_default(const VariableScopeOptions& o) {
    if (o.reuse) throw ValueError("reuse=True cannot be used without a name_or_scope");
    std::string name_scope = open_name_scope(o.default_name, o.auxiliary_name_scope);
    enter_pure(unique_scope_name(o.default_name), name_scope, Reuse(), o);
  }

  // A scope nested in the current one: name, reuse and defaults extend the current.
  void enter_pure(const std::string& name, const std::string& name_scope, Reuse reuse,
                  const VariableScopeOptions& o) {
    auto& state = detail::variable_scope_state(graph_);
    old_ = state.current;
    const detail::VariableScopeData& outer = old_.data();
    detail::VariableScopeData d = outer;
    d.name = outer.name.empty() ? name : outer.name + "/" + name;
    d.name_scope = name_scope;
    d.reuse = reuse ? reuse : outer.reuse;  // reuse is inherited and cannot be undone
    apply(d, o);
    scope_ = VariableScope(std::move(d));
    ++state.counts[scope_.name()];
    state.current = scope_;
  }

  void enter_captured(const VariableScope& captured, const VariableScopeOptions& o) {
    const std::string& full = captured.name();
    std::string last = full.substr(full.rfind('/') + 1);
    open_name_scope(last, o.auxiliary_name_scope);
    auto& state = detail::variable_scope_state(graph_);
    old_ = state.current;
    detail::VariableScopeData d = captured.data();
    d.reuse = o.reuse ? o.reuse : captured.reuse();
    apply(d, o);
    scope_ = VariableScope(std::move(d));
    ++state.counts[scope_.name()];
    captured_ = true;
    saved_counts_ = state.counts;
    state.current = scope_;
  }

  static void apply(detail::VariableScopeData& d, const VariableScopeOptions& o) {
    if (o.initializer) d.initializer = o.initializer;
    if (o.regularizer) d.regularizer = o.regularizer;
    if (o.custom_getter) {
      if (d.custom_getter) {
        d.custom_getter = [inner = o.custom_getter, outer = d.custom_getter](
                              const VariableGetter& getter, const std::string& name,
                              const Shape& shape, const GetVariableOptions& options) {
          VariableGetter through_outer = [&](const std::string& n, const Shape& s,
                                             const GetVariableOptions& opts) {
            return outer(getter, n, s, opts);
          };
          return inner(through_outer, name, shape, options);
        };
      } else {
        d.custom_getter = o.custom_getter;
      }
    }
    if (o.dtype != DType::invalid) d.dtype = o.dtype;
  }

  // `prefix`, or prefix_1, prefix_2, ...: the first not yet opened in the current scope.
  std::string unique_scope_name(const std::string& prefix) const {
    auto& state = detail::variable_scope_state(graph_);
    const std::string& outer = state.current.name();
    std::string full = outer.empty() ? prefix : outer + "/" + prefix;
    auto count = [&](const std::string& key) {
      auto it = state.counts.find(key);
      return it == state.counts.end() ? 0 : it->second;
    };
    if (count(full) == 0) return prefix;
    int i = 1;
    while (count(full + "_" + std::to_string(i)) > 0) ++i;
    return prefix + "_" + std::to_string(i);
  }

  // Destroyed in reverse order: the name scope closes before the default graph pops.
  Graph graph_;
  std::optional<DefaultGraphGuard> graph_guard_;
  std::optional<name_scope> name_scope_;
  VariableScope old_;
  VariableScope scope_;
  bool captured_ = false;
  std::map<std::string, int> saved_counts_;
};

}  // namespace symflow
