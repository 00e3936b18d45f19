#pragma once
// tf.cond as TensorFlow 1.x builds it (control_flow_ops.cond, docs/control-flow.md):
//
//   cond/Switch    = Switch(pred, pred)      cond/switch_t = Identity(cond/Switch:1)
//   cond/pred_id   = Identity(pred)          cond/switch_f = Identity(cond/Switch:0)
//
// then each branch in its own ControlFlowContext (graph/graph_state.hpp): a tensor from outside
// that the branch reads goes through "<op>/Switch" on pred_id, an op without inputs runs
// after the pivot (switch_t or switch_f), and a tensor the branch returns from outside
// goes through a "cond/Switch_N" of its own. "cond/Merge" joins the two results. At run
// time the untaken side's Switch outputs are dead, so only the taken branch runs.

#include <concepts>
#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "symflow/graph/graph.hpp"
#include "symflow/graph/scopes.hpp"
#include "symflow/ops/array_ops.hpp"
#include "symflow/ops/control_ops.hpp"

namespace symflow {

namespace detail {

// One value a branch returns: a tensor, or an operation (which becomes the pivot, run
// after it, as TensorFlow's with_dependencies makes it).
using CondItem = std::variant<Output, Operation>;

// What a branch may return, and what cond returns for it: a tensor (Output, Tensor<T>,
// or what converts to one, such as a Variable) gives the same kind of handle; an
// Operation gives a bool Output; a std::vector, std::pair or std::tuple of those gives
// the same container of results (a vector only at the top).
template <class R>
struct CondShape {
  static constexpr bool supported = false;
  static constexpr bool is_vector = false;
};
template <class R>
requires std::convertible_to<R, Output> &&(!std::same_as<R, Operation>)struct CondShape<R> {
  static constexpr bool supported = true;
  static constexpr bool is_vector = false;
  using result = std::conditional_t<std::is_base_of_v<Output, R>, R, Output>;
  static void flatten(const R& r, std::vector<CondItem>& out) { out.emplace_back(Output(r)); }
  static result unflatten(const std::vector<Output>& merged, std::size_t& at) {
    if constexpr (std::is_same_v<result, Output>)
      return merged[at++];
    else
      return result(merged[at++]);
  }
};
template <>
struct CondShape<Operation> {
  static constexpr bool supported = true;
  static constexpr bool is_vector = false;
  using result = Output;
  static void flatten(const Operation& r, std::vector<CondItem>& out) { out.emplace_back(r); }
  static result unflatten(const std::vector<Output>& merged, std::size_t& at) {
    return merged[at++];
  }
};
template <class X>
struct CondShape<std::vector<X>> {
  // A vector's results are the rest of the list: one only at the top.
  static constexpr bool supported = CondShape<X>::supported && !CondShape<X>::is_vector;
  static constexpr bool is_vector = true;
  using result = std::vector<typename CondShape<X>::result>;
  static void flatten(const std::vector<X>& r, std::vector<CondItem>& out) {
    for (const X& x : r) CondShape<X>::flatten(x, out);
  }
  static result unflatten(const std::vector<Output>& merged, std::size_t& at) {
    result out;
    while (at < merged.size()) out.push_back(CondShape<X>::unflatten(merged, at));
    return out;
  }
};
template <class... X>
struct CondShape<std::tuple<X...>> {
  static constexpr bool supported = ((CondShape<X>::supported && !CondShape<X>::is_vector) && ...);
  static constexpr bool is_vector = false;
  using result = std::tuple<typename CondShape<X>::result...>;
  static void flatten(const std::tuple<X...>& r, std::vector<CondItem>& out) {
    std::apply(
        [&](const auto&... x) { (CondShape<std::decay_t<decltype(x)>>::flatten(x, out), ...); }, r);
  }
  static result unflatten(const std::vector<Output>& merged, std::size_t& at) {
    return result{CondShape<X>::unflatten(merged, at)...};  // braces: left to right
  }
};
template <class A, class B>
struct CondShape<std::pair<A, B>> {
  static constexpr bool supported = CondShape<A>::supported && !CondShape<A>::is_vector &&
                                    CondShape<B>::supported && !CondShape<B>::is_vector;
  static constexpr bool is_vector = false;
  using result = std::pair<typename CondShape<A>::result, typename CondShape<B>::result>;
  static void flatten(const std::pair<A, B>& r, std::vector<CondItem>& out) {
    CondShape<A>::flatten(r.first, out);
    CondShape<B>::flatten(r.second, out);
  }
  static result unflatten(const std::vector<Output>& merged, std::size_t& at) {
    return result{CondShape<A>::unflatten(merged, at), CondShape<B>::unflatten(merged, at)};
  }
};

// Whether two branch result types have one structure (a vector's length is checked
// when the branches have run).
template <class A, class B>
inline constexpr bool same_cond_structure = std::is_same_v<A, B> ||
                                            (std::convertible_to<A, Output> &&
                                             std::convertible_to<B, Output>);
template <class A, class B>
inline constexpr bool same_cond_structure<std::vector<A>, std::vector<B>> =
    same_cond_structure<A, B>;
template <class... A, class... B>
requires(
    sizeof...(A) ==
    sizeof...(B)) inline constexpr bool same_cond_structure<std::tuple<A...>, std::tuple<B...>> =
    (same_cond_structure<A, B> && ...);
template <class A1, class A2, class B1, class B2>
inline constexpr bool same_cond_structure<std::pair<A1, A2>, std::pair<B1, B2>> =
    same_cond_structure<A1, B1>&& same_cond_structure<A2, B2>;

// The part of cond that does not depend on the branches' types.
class CondBuilder {
 public:
  CondBuilder(const Output& pred, std::string_view name)
      : graph_(graph_of({pred})), scope_(name, "cond", {pred}) {
    Operation sw = switch_(pred, pred).first.op();
    pivot_t_ = identity(sw.output(1), "switch_t");
    pivot_f_ = identity(sw.output(0), "switch_f");
    pred_id_ = identity(pred, "pred_id");
  }

  // Builds a branch: runs `fn` in its context and returns what the branch hands to the
  // Merges, one tensor per returned item.
  template <class Fn>
  std::vector<Output> branch(int which, Fn& fn, std::vector<CondItem>& returned) {
    const std::uint32_t context = enter(which);
    Leave leave{graph_.state(), graph_.state().flow_contexts[context - 1].outer};
    using R = std::invoke_result_t<Fn&>;
    CondShape<R>::flatten(fn(), returned);
    std::vector<Output> results;
    for (const CondItem& item : returned) results.push_back(branch_tensor(context, item));
    // The enclosing branch reads the results as they are, so its Merges need no Switch.
    if (const std::uint32_t outer = graph_.state().flow_contexts[context - 1].outer; outer != 0)
      for (const Output& r : results)
        graph_.state().flow_contexts[outer - 1].values.insert(r.ref());
    return results;
  }

  // The Merges of the two branches' results (TensorFlow's order: false, true), after
  // checking that they agree.
  std::vector<Output> merge_results(const std::vector<CondItem>& true_items,
                                    const std::vector<Output>& true_results,
                                    const std::vector<CondItem>& false_items,
                                    const std::vector<Output>& false_results) {
    if (true_items.size() != false_items.size())
      throw ValueError(
          "The two structures don't have the same nested structure.\n\nFirst structure: " +
          describe(true_items) + "\n\nSecond structure: " + describe(false_items));
    for (std::size_t i = 0; i < true_results.size(); ++i)
      if (true_results[i].dtype() != false_results[i].dtype())
        throw ValueError(
            "Outputs of 'true_fn' and 'false_fn' must have the same type(s). Received " +
            std::string(dtype_name(true_results[i].dtype())) + " from 'true_fn' and " +
            std::string(dtype_name(false_results[i].dtype())) + " from 'false_fn'.");
    std::vector<Output> merged;
    for (std::size_t i = 0; i < true_results.size(); ++i)
      merged.push_back(merge({false_results[i], true_results[i]}).first);
    return merged;
  }

 private:
  struct Leave {
    detail::GraphState& s;
    std::uint32_t outer;
    ~Leave() { s.current_context = outer; }
  };

  std::uint32_t enter(int which) {
    GraphState& s = graph_.state();
    const Output& pivot = which == 1 ? pivot_t_ : pivot_f_;
    ControlFlowContext c;
    c.pred = pred_id_.ref();
    c.pivot = pivot.ref();
    c.branch = which;
    c.outer = s.current_context;
    c.values = {pred_id_.ref(), pivot.ref()};
    c.external_values[pred_id_.ref()] = pred_id_.ref();
    s.flow_contexts.push_back(std::move(c));
    const auto context = static_cast<std::uint32_t>(s.flow_contexts.size());
    s.node(pivot.op().id()).context = context;
    s.current_context = context;
    return context;
  }

  // A returned item as the branch hands it to its Merge (TensorFlow's _BuildCondTensor).
  Output branch_tensor(std::uint32_t context, const CondItem& item) {
    GraphState& s = graph_.state();
    const ControlFlowContext& c = s.flow_contexts[context - 1];
    const Output pivot(Operation(graph_.state_ptr(), c.pivot.node), c.pivot.index);
    if (const Operation* op = std::get_if<Operation>(&item)) {
      // The pivot, after the operation (with_dependencies).
      name_scope scope(graph_, "control_dependency");
      return graph_
          .create_op(kIdentityOp, {pivot},
                     {{"T", pivot.dtype()}, {"_class", StringList{{"loc:@" + pivot.op().name()}}}},
                     scope.name(), {*op})
          .output(0);
    }
    const Output& v = std::get<Output>(item);
    if (v.op().graph_state() != graph_.state_ptr())
      throw ValueError("cond: " + v.name() + " is from another graph than the predicate");
    // A tensor built in the branch is returned as it is; one from outside goes through a
    // Switch of its own, so that the Merge sees it only when the branch is taken.
    if (s.flow_contexts[context - 1].values.count(v.ref())) {
      const auto& external = s.flow_contexts[context - 1].external_values;
      auto it = external.find(v.ref());
      return it == external.end() ? v : to_output(it->second);
    }
    s.flow_contexts[context - 1].values.insert(v.ref());
    TensorRef real = v.ref();
    if (const std::uint32_t outer = s.flow_contexts[context - 1].outer; outer != 0) {
      real = context_add_value(graph_, outer, v.ref());
      s.flow_contexts[context - 1].values.insert(real);
      s.flow_contexts[context - 1].external_values[real] = real;
    }
    const Operation sw = make_switch(graph_, to_output(real), pred_id_);
    s.node(sw.id()).context = context;
    ControlFlowContext& after = s.flow_contexts[context - 1];
    after.values.insert(TensorRef{sw.id(), 0});
    after.values.insert(TensorRef{sw.id(), 1});
    after.external_values[v.ref()] = TensorRef{sw.id(), after.branch};
    return sw.output(after.branch);
  }

  Output to_output(TensorRef r) const {
    return Output(Operation(graph_.state_ptr(), r.node), r.index);
  }
  static std::string describe(const std::vector<CondItem>& items) {
    std::string out = "(";
    for (std::size_t i = 0; i < items.size(); ++i) {
      out += i ? ", " : "";
      if (const Output* t = std::get_if<Output>(&items[i]))
        out += repr(*t);
      else
        out += "<tf.Operation '" + std::get<Operation>(items[i]).name() + "'>";
    }
    return out + ")";
  }

  Graph graph_;
  name_scope scope_;
  Output pivot_t_, pivot_f_, pred_id_;
};

}  // namespace detail

// tf.cond(pred, true_fn, false_fn): `pred` a bool scalar tensor; each function builds
// its branch and returns a tensor, an operation, or a std::vector, std::pair or
// std::tuple of those, the same structure and dtypes from both (ValueError otherwise).
// Only the branch `pred` names runs, ops built inside it included (an assign in the
// untaken branch does nothing). The result is the Merge of the two branches' values.
template <class TrueFn, class FalseFn>
auto cond(const Output& pred, TrueFn&& true_fn, FalseFn&& false_fn, std::string_view name = {}) {
  using RT = std::invoke_result_t<TrueFn&>;
  using RF = std::invoke_result_t<FalseFn&>;
  static_assert(!std::is_void_v<RT> && !std::is_void_v<RF>,
                "cond: true_fn and false_fn must have a return value");
  static_assert(detail::CondShape<RT>::supported && detail::CondShape<RF>::supported,
                "cond: a branch returns tensors, operations, or a std::vector, std::pair or "
                "std::tuple of them");
  static_assert(detail::same_cond_structure<RT, RF>,
                "cond: true_fn and false_fn must return the same structure");
  if (!pred.valid()) throw ValueError("cond: pred is an empty tensor handle");
  detail::CondBuilder builder(pred, name);
  std::vector<detail::CondItem> true_items, false_items;
  const std::vector<Output> t = builder.branch(1, true_fn, true_items);
  const std::vector<Output> f = builder.branch(0, false_fn, false_items);
  const std::vector<Output> merged = builder.merge_results(true_items, t, false_items, f);
  std::size_t at = 0;
  return detail::CondShape<RT>::unflatten(merged, at);
}

// tf.case(pred_fn_pairs, default): the action of the first predicate that holds, else
// `default_fn`'s; built as TensorFlow builds it, nested conds under "case/"
// (case/cond, case/cond/cond, ...), so that predicates are tested in order and only one
// action runs. Every action returns what `default_fn` returns. (`case` is a C++ keyword;
// TensorFlow's exclusive=True and a missing default are not supported.)
template <class DefaultFn>
auto case_(const std::vector<std::pair<Output, std::function<std::invoke_result_t<DefaultFn&>()>>>&
               pred_fn_pairs,
           DefaultFn&& default_fn, std::string_view name = {}) {
  using R = std::invoke_result_t<DefaultFn&>;
  static_assert(std::is_same_v<typename detail::CondShape<R>::result, R>,
                "case_: the actions return tensors (Output, Tensor<T>), or a vector, pair or "
                "tuple of Outputs");
  std::vector<Output> preds;
  for (const auto& [pred, fn] : pred_fn_pairs) {
    if (!pred.valid()) throw ValueError("case: a predicate is an empty tensor handle");
    if (pred.dtype() != DType::bool_)
      throw TypeError("case: pred must be a bool tensor, got " +
                      std::string(dtype_name(pred.dtype())) + " for " + pred.name());
    if (!fn) throw TypeError("case: the action for " + pred.name() + " is not callable");
    preds.push_back(pred);
  }
  name_scope scope(name, "case", preds);
  std::function<R()> chain = default_fn;
  // Nested from the last pair in, so that the first predicate is the outermost cond.
  for (std::size_t i = pred_fn_pairs.size(); i-- > 0;)
    chain = [pred = pred_fn_pairs[i].first, action = pred_fn_pairs[i].second,
             otherwise = std::move(chain)] { return cond(pred, action, otherwise); };
  return chain();
}

}  // namespace symflow
