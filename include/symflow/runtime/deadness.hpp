#pragma once
// Which steps of a plan may meet a dead tensor (docs/control-flow.md). A Switch leaves
// one output dead; whatever reads a dead tensor, or runs after a dead op, is dead too,
// up to a Merge, which is alive when any input is. Only the steps that may meet one
// check at run time; every other step, and every graph without a Switch, runs as fast
// as before.
//
// Each node gets the condition under which it is alive: a set of literals "predicate p
// was b", p followed back through Identity ops (tf.cond reads its predicate through
// "pred_id"). A Switch adds its literal to its inputs' conditions; another op joins its
// inputs' and control inputs' conditions. A Merge of inputs alive under C and p, and C
// and not p, is alive under C: so the ops after a cond check nothing. A Merge this rule
// cannot prove gets a literal of its own, so the ops after it check.
//
// A while loop's Merge is alive when its Enter is (its NextIteration is the back edge),
// and its Switch adds a literal to the body's side only: the ops after the loop read its
// Exits once the loop is over, and they are alive then when the loop was entered alive.
// The plan guards every step of a loop anyway (runtime/frames.hpp).

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <set>
#include <vector>

#include "symflow/graph/graph_state.hpp"
#include "symflow/ops/defs/control.hpp"

namespace symflow::detail {

// "Predicate `predicate` was `branch`" (0 or 1); branch 2: a Merge's own literal.
struct DeadnessLiteral {
  TensorRef predicate;
  int branch = 0;
  friend auto operator<=>(const DeadnessLiteral&, const DeadnessLiteral&) = default;
  friend bool operator==(const DeadnessLiteral&, const DeadnessLiteral&) = default;
};
// The literals under all of which a node is alive, sorted; empty: always alive.
using DeadnessCondition = std::vector<DeadnessLiteral>;

// Whether any node of `order` can leave an output dead.
inline bool has_dead_outputs(const GraphState& g, const std::vector<NodeId>& order) {
  return std::any_of(order.begin(), order.end(), [&](NodeId id) {
    const OpDef* def = g.node(id).def;
    return def && def->dead_outputs;
  });
}

// For each step of `order` (a plan's nodes, ascending), whether it may find an input
// or a control input dead when it runs. `fed`: tensors a run feeds, never dead. Where
// `conditions` is given, each step's condition goes there too.
inline std::vector<bool> steps_that_may_meet_dead(
    const GraphState& g, const std::vector<NodeId>& order, const std::set<TensorRef>& fed,
    std::vector<DeadnessCondition>* conditions = nullptr) {
  using Literal = DeadnessLiteral;
  using Condition = DeadnessCondition;
  std::vector<Condition> alive_if(g.nodes.size());
  auto join = [](Condition& into, const Condition& more) {
    Condition out;
    std::set_union(into.begin(), into.end(), more.begin(), more.end(), std::back_inserter(out));
    into = std::move(out);
  };
  auto canonical = [&](TensorRef t) {
    while (g.node(t.node).def && g.node(t.node).def->type == "Identity" && !fed.count(t))
      t = g.node(t.node).inputs.at(0);
    return t;
  };
  auto is_switch = [](const Node& n) {
    return n.def && n.def->dead_outputs && !n.def->reads_dead && n.inputs.size() == 2;
  };
  // A tensor's condition: its node's, and a Switch output's own literal. A loop's Switch
  // leaves its exit side dead in every iteration but the last, which is the one the ops
  // after the loop see: its exit side is alive when the loop was entered alive.
  auto condition_of = [&](TensorRef t) {
    if (fed.count(t)) return Condition{};
    Condition c = alive_if[t.node.value];
    const Node& n = g.node(t.node);
    if (is_switch(n)) {
      const TensorRef pred = canonical(n.inputs[1]);
      if (t.index == 1 || g.node(pred.node).def != &kLoopCondOp) {
        const Literal l{pred, t.index};
        c.insert(std::lower_bound(c.begin(), c.end(), l), l);
      }
    }
    return c;
  };

  std::vector<bool> may_meet(order.size(), false);
  for (std::size_t step = 0; step < order.size(); ++step) {
    const NodeId id = order[step];
    const Node& n = g.node(id);
    Condition& c = alive_if[id.value];
    bool meets = false;
    const bool loop_merge = n.def && n.def->reads_dead &&
                            std::any_of(n.inputs.begin(), n.inputs.end(), [&](TensorRef in) {
                              return is_next_iteration_op(g.node(in.node).def);
                            });
    if (n.def && n.def->never_dead) {
      // ControlTrigger: alive whatever its control inputs are.
    } else if (loop_merge) {
      // A loop's Merge: alive in the first iteration when its Enter is, and after that
      // when the previous iteration ran (the executor checks it, as every loop step).
      for (const TensorRef& in : n.inputs)
        if (!is_next_iteration_op(g.node(in.node).def)) join(c, condition_of(in));
      meets = true;
    } else if (n.def && n.def->reads_dead) {
      // Merge: alive when any input is.
      for (const TensorRef& in : n.inputs) meets = meets || !condition_of(in).empty();
      if (meets) {
        std::vector<Condition> ins;
        for (const TensorRef& in : n.inputs) ins.push_back(condition_of(in));
        bool proven = false;
        // Inputs alive under C+{p=0} and C+{p=1} (in any order, any count of each).
        for (const Literal& l : ins.front()) {
          if (l.branch > 1) continue;
          Condition base = ins.front();
          base.erase(std::find(base.begin(), base.end(), l));
          bool seen[2] = {false, false};
          bool all = true;
          for (const Condition& in : ins) {
            bool matched = false;
            for (int b = 0; b < 2 && !matched; ++b) {
              Condition want = base;
              want.insert(std::lower_bound(want.begin(), want.end(), Literal{l.predicate, b}),
                          Literal{l.predicate, b});
              if (in == want) matched = seen[b] = true;
            }
            all = all && matched;
          }
          if (all && seen[0] && seen[1]) {
            c = base;
            proven = true;
            break;
          }
        }
        if (!proven) c = Condition{Literal{TensorRef{id, 0}, 2}};
      }
    } else {
      for (const TensorRef& in : n.inputs) {
        const Condition ic = condition_of(in);
        if (!ic.empty()) {
          meets = true;
          join(c, ic);
        }
      }
      // A control input is dead when its node is (a Switch that ran is not).
      for (NodeId ctl : n.control_inputs) {
        if (!alive_if[ctl.value].empty()) {
          meets = true;
          join(c, alive_if[ctl.value]);
        }
      }
    }
    may_meet[step] = meets;
  }
  if (conditions)
    for (NodeId id : order) conditions->push_back(std::move(alive_if[id.value]));
  return may_meet;
}

}  // namespace symflow::detail
