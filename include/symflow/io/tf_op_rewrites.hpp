#pragma once
// Op types of TensorFlow graphs that symflow runs as ops it has, with the same effect:
// TF 0.x's `Variable` (VariableV2's first name, the same kernel in TensorFlow) and TF1's
// resource variables. A resource variable's handle (`VarHandleOp`) becomes the variable
// itself, a reference, and each op on the handle the ref op that does the same thing:
// ReadVariableOp an Identity of the reference, AssignVariableOp an Assign,
// ResourceApplyGradientDescent an ApplyGradientDescent. The checkpoint keys, node names
// and values stay TensorFlow's; docs/decisions.md says why symflow has no handle dtype.
//
// The importer applies this to every GraphDef; a graph without these ops is unchanged.

#include <map>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "symflow/core/attr_value.hpp"
#include "symflow/core/dtype.hpp"
#include "symflow/core/errors.hpp"
#include "symflow/graph/graph_def.hpp"

namespace symflow {

namespace detail::op_rewrites {

// Resource op -> the ref op of the same inputs and attrs.
inline constexpr std::pair<std::string_view, std::string_view> kSameInputs[] = {
    {"Variable", "VariableV2"},
    {"VarHandleOp", "VariableV2"},
    {"ResourceApplyGradientDescent", "ApplyGradientDescent"},
    {"ResourceApplyMomentum", "ApplyMomentum"},
    {"ResourceApplyAdam", "ApplyAdam"},
    {"ResourceApplyRMSProp", "ApplyRMSProp"},
    {"ResourceApplyCenteredRMSProp", "ApplyCenteredRMSProp"},
    {"ResourceApplyAdagrad", "ApplyAdagrad"},
};

// Ops whose value type is in the attr `dtype` and that the ref op calls `T`.
inline constexpr std::pair<std::string_view, std::string_view> kDtypeToT[] = {
    {"ReadVariableOp", "Identity"},
    {"AssignVariableOp", "Assign"},
    {"AssignAddVariableOp", "AssignAdd"},
    {"AssignSubVariableOp", "AssignSub"},
};

inline std::string_view find(const auto& table, std::string_view op) {
  for (const auto& [from, to] : table)
    if (from == op) return to;
  return {};
}

inline bool is_rewritten(std::string_view op) {
  return !find(kSameInputs, op).empty() || !find(kDtypeToT, op).empty() ||
         op == "VarIsInitializedOp" || op == "ResourceGather";
}

// Whether a node has a type attr that reads DT_RESOURCE (the readers' DType::invalid): a
// resource handle passed through an op that forwards its input (Switch, Enter, Identity,
// Merge, ...), as TensorFlow 1.x's conds and loops do with resource variables.
inline bool carries_handle(const NodeDef& n) {
  for (const auto& [name, value] : n.attr)
    if (const auto* d = std::get_if<DType>(&value); d && *d == DType::invalid) return true;
  return false;
}

// The node an input names ("^a", "a:1" -> "a").
inline std::string_view input_node(std::string_view input) {
  if (input.starts_with('^')) input.remove_prefix(1);
  return input.substr(0, input.find(':'));
}

// Gives every node that forwards a resource handle its variable's dtype: its first input
// is followed back, through other such nodes, to a VarHandleOp. The nodes' recorded
// output shapes are the handle's (a scalar), so they go.
inline void resolve_handle_dtypes(GraphDef& graph_def,
                                  std::map<std::string, DType, std::less<>>& handle_dtypes) {
  std::map<std::string_view, NodeDef*> by_name;
  for (NodeDef& n : graph_def.node) by_name.emplace(n.name, &n);
  // The dtype behind `name`, or DType::invalid; `seen` stops at loops (Merge <- NextIteration).
  std::set<std::string_view> seen;
  const auto dtype_behind = [&](auto& self, std::string_view name) -> DType {
    if (auto it = handle_dtypes.find(name); it != handle_dtypes.end()) return it->second;
    auto node = by_name.find(name);
    if (node == by_name.end() || !carries_handle(*node->second) || !seen.insert(name).second)
      return DType::invalid;
    const NodeDef& n = *node->second;
    DType found = DType::invalid;
    for (const std::string& input : n.input) {
      if (input.starts_with('^')) continue;
      found = self(self, input_node(input));
      if (found != DType::invalid) break;
    }
    if (found != DType::invalid) handle_dtypes.emplace(std::string(name), found);
    return found;
  };
  for (NodeDef& n : graph_def.node) {
    if (!carries_handle(n)) continue;
    seen.clear();
    const DType d = dtype_behind(dtype_behind, n.name);
    if (d == DType::invalid)
      throw UnimplementedError("Node '" + n.name + "' (" + n.op +
                               ") has a DT_RESOURCE attr whose handle symflow cannot follow "
                               "back to a resource variable (VarHandleOp), a TensorArray or a "
                               "stack; symflow runs resource variables as ref variables");
    for (auto& [name, value] : n.attr)
      if (auto* t = std::get_if<DType>(&value); t && *t == DType::invalid) *t = d;
    n.attr.erase("_output_shapes");
  }
}

}  // namespace detail::op_rewrites

namespace io {

// Whether `graph_def` has an op that rewrite_tf_ops changes.
inline bool has_tf_ops_to_rewrite(const GraphDef& graph_def) {
  for (const NodeDef& n : graph_def.node)
    if (detail::op_rewrites::is_rewritten(n.op) || detail::op_rewrites::carries_handle(n))
      return true;
  return false;
}

// Rewrites the ops above in place. An op whose handle's dtype cannot be found is left as
// it is, so that import names it as missing. A node that forwards a handle (a type attr
// of DT_RESOURCE) gets the dtype of the variable its first input leads back to, as the
// reference it now forwards has; one that leads to no variable is an UnimplementedError
// that names it.
inline void rewrite_tf_ops(GraphDef& graph_def) {
  namespace r = detail::op_rewrites;
  std::map<std::string, DType, std::less<>> handle_dtypes;
  for (const NodeDef& n : graph_def.node)
    if (n.op == "VarHandleOp" || n.op == "Variable")
      if (auto it = n.attr.find("dtype"); it != n.attr.end())
        if (const auto* d = std::get_if<DType>(&it->second)) handle_dtypes[n.name] = *d;
  // A TensorArray's or a stack's handle stays a handle (DType::resource).
  for (const NodeDef& n : graph_def.node)
    if (n.op == "TensorArrayV3" || n.op == "TensorArrayGradV3" || n.op == "StackV2")
      handle_dtypes[n.name] = DType::resource;
  r::resolve_handle_dtypes(graph_def, handle_dtypes);

  std::vector<NodeDef> added;
  for (NodeDef& n : graph_def.node) {
    // The recorded output shapes are the handle op's (a scalar handle, or no output):
    // a graph written back must not carry them.
    if (r::is_rewritten(n.op)) n.attr.erase("_output_shapes");
    if (std::string_view to = r::find(r::kSameInputs, n.op); !to.empty()) {
      n.op = std::string(to);
      n.attr.erase("allowed_devices");  // VarHandleOp's; VariableV2 has none
      if (n.op == "VariableV2") n.attr.erase("debug_name");
    } else if (std::string_view to = r::find(r::kDtypeToT, n.op); !to.empty()) {
      auto dtype = n.attr.find("dtype");
      if (dtype == n.attr.end()) continue;
      AttrValue t = dtype->second;
      n.attr.erase(dtype);
      n.attr.insert_or_assign("T", std::move(t));
      if (to == "Assign") n.attr.insert_or_assign("validate_shape", AttrValue(true));
      if (to != "Identity") n.attr.insert_or_assign("use_locking", AttrValue(true));
      n.op = std::string(to);
    } else if (n.op == "VarIsInitializedOp" && !n.input.empty()) {
      auto it = handle_dtypes.find(r::input_node(n.input[0]));
      if (it == handle_dtypes.end()) continue;
      n.op = "IsVariableInitialized";
      n.attr.insert_or_assign("dtype", AttrValue(it->second));
    } else if (n.op == "ResourceGather" && n.input.size() >= 2) {
      // GatherV2 of the variable along axis 0; batch_dims other than 0 stays missing.
      auto batch_dims = n.attr.find("batch_dims");
      if (batch_dims != n.attr.end())
        if (const auto* b = std::get_if<std::int64_t>(&batch_dims->second); b && *b != 0) continue;
      auto dtype = n.attr.find("dtype");
      if (dtype == n.attr.end()) continue;
      NodeDef axis;
      axis.name = n.name + "/axis";
      axis.op = "Const";
      axis.device = n.device;
      axis.attr.insert_or_assign("dtype", AttrValue(DType::int32));
      axis.attr.insert_or_assign("value", AttrValue(Value(std::int32_t{0})));
      AttrMap attrs;
      attrs.insert_or_assign("Tparams", dtype->second);
      if (auto ti = n.attr.find("Tindices"); ti != n.attr.end())
        attrs.insert_or_assign("Tindices", ti->second);
      attrs.insert_or_assign("Taxis", AttrValue(DType::int32));
      attrs.insert_or_assign("batch_dims", AttrValue(std::int64_t{0}));
      n.op = "GatherV2";
      n.attr = std::move(attrs);
      n.input.insert(n.input.begin() + 2, axis.name);
      added.push_back(std::move(axis));
    }
  }
  for (NodeDef& n : added) graph_def.node.push_back(std::move(n));
}

}  // namespace io

}  // namespace symflow
