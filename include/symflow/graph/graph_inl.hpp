#pragma once
// The graph's core definitions (graph/graph.hpp and graph/graph_state.hpp declare
// them): included by graph/graph.hpp in a header-only program, and by
// symflow/define_compiled.hpp alone in a program built with SYMFLOW_COMPILED.

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <exception>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "symflow/detail/config.hpp"
#include "symflow/graph/graph.hpp"
#include "symflow/graph/graph_state.hpp"
#include "symflow/ops/defs/control.hpp"

namespace symflow {

namespace detail {

SYMFLOW_INLINE std::string GraphState::unique_name(std::string_view base, bool mark_as_used) {
  std::string name = name_stack.empty() ? std::string(base) : name_stack + "/" + std::string(base);
  std::string key = to_lower(name);
  int i = lookup_use(key);
  if (mark_as_used) names_in_use_[key] = i + 1;
  if (i > 0) {
    std::string base_key = key;
    while (names_in_use_.count(key)) {
      key = base_key + "_" + std::to_string(i);
      ++i;
    }
    if (mark_as_used) names_in_use_[key] = 1;
    name += "_" + std::to_string(i - 1);
  }
  return name;
}

SYMFLOW_INLINE std::vector<NodeId> GraphState::control_inputs_for(
    const std::vector<NodeId>& input_ops) const {
  std::size_t first = 0;
  for (std::size_t i = control_frames.size(); i-- > 0;)
    if (control_frames[i].clears_outer) {
      first = i;
      break;
    }
  std::vector<NodeId> out;
  for (std::size_t i = first; i < control_frames.size(); ++i) {
    const ControlFrame& frame = control_frames[i];
    // An input built inside this context already carries its dependencies.
    bool dominated = std::any_of(input_ops.begin(), input_ops.end(),
                                 [&](NodeId op) { return frame.created.count(op.value) > 0; });
    if (dominated) continue;
    for (NodeId c : frame.control_inputs)
      if (std::find(input_ops.begin(), input_ops.end(), c) == input_ops.end() &&
          std::find(out.begin(), out.end(), c) == out.end())
        out.push_back(c);
  }
  return out;
}

SYMFLOW_INLINE NodeId GraphState::add_node(Node node) {
  NodeId id{static_cast<std::uint32_t>(nodes.size())};
  by_name.emplace(node.name, id);
  names_in_use_.try_emplace(to_lower(node.name), 1);
  nodes.push_back(std::move(node));
  for (auto& frame : control_frames) frame.created.insert(id.value);
  return id;
}

}  // namespace detail

SYMFLOW_INLINE Operation Graph::create_op(const OpDef& def, const std::vector<Output>& inputs,
                                          AttrMap attrs, std::string_view name,
                                          const std::vector<Operation>& control_inputs) {
  auto& s = *state_;
  check_not_finalized();
  if (def.num_inputs >= 0 && static_cast<int>(inputs.size()) != def.num_inputs)
    throw ValueError("Op " + std::string(def.type) + " takes " + std::to_string(def.num_inputs) +
                     " inputs, got " + std::to_string(inputs.size()));
  for (const Output& in : inputs) check_owns(in, def);
  for (const Operation& c : control_inputs) {
    if (c.graph_state() != state_)
      throw ValueError("Control input " + c.name() + " must be from the same graph as op " +
                       std::string(def.type));
  }
  // In a cond branch, tensors from outside are read through the branch's Switches; in a
  // loop, through its constant Enters.
  const std::uint32_t context = s.current_context;
  if (context != 0) {
    // They are named inside the op's scope ("cond/mul/Switch", "while/mul/Enter"), as in
    // TensorFlow, where the op's name comes first: a name that is not a scope's is taken now.
    std::string exact(name);
    if (!inputs.empty() && (name.empty() || name.back() != '/')) {
      if (!detail::is_valid_node_name(name))
        throw ValueError("'" + std::string(name) + "' is not a valid node name");
      exact = s.unique_name(name) + "/";
    }
    std::vector<Output> routed;
    routed.reserve(inputs.size());
    {
      const std::string saved_stack = s.name_stack;
      if (exact != name) s.name_stack = exact.substr(0, exact.size() - 1);
      try {
        for (const Output& in : inputs) {
          const TensorRef r = detail::context_add_value(*this, context, in.ref());
          routed.emplace_back(Operation(state_, r.node), r.index);
        }
      } catch (...) {
        s.name_stack = saved_stack;
        throw;
      }
      s.name_stack = saved_stack;
    }
    name = exact;
    s.current_context = 0;  // the Switches or Enters are made; build the op itself as usual
    struct Restore {
      detail::GraphState& s;
      std::uint32_t context;
      ~Restore() { s.current_context = context; }
    } restore{s, context};
    return create_in_context(def, routed, std::move(attrs), name, control_inputs, context);
  }
  return create_in_context(def, inputs, std::move(attrs), name, control_inputs, 0);
}

SYMFLOW_INLINE Operation Graph::create_in_context(const OpDef& def,
                                                  const std::vector<Output>& inputs, AttrMap attrs,
                                                  std::string_view name,
                                                  const std::vector<Operation>& control_inputs,
                                                  std::uint32_t branch) {
  auto& s = *state_;

  detail::Node node;
  if (!name.empty() && name.back() == '/') {
    node.name = std::string(name.substr(0, name.size() - 1));
  } else {
    if (!detail::is_valid_node_name(name))
      throw ValueError("'" + std::string(name) + "' is not a valid node name");
    node.name = s.unique_name(name);
  }
  node.def = &def;
  node.attrs = std::move(attrs);
  node.device = s.device;

  std::vector<TensorSpec> specs;
  std::vector<const Value*> constants;
  std::vector<NodeId> input_ops;
  for (const Output& in : inputs) {
    node.inputs.push_back(in.ref());
    const detail::Node& src = s.node(in.op().id());
    specs.push_back(src.outputs.at(static_cast<std::size_t>(in.index())));
    // Only an op that writes through a reference sees one; others read a value.
    if (!def.takes_ref(specs.size() - 1)) specs.back().is_ref = false;
    constants.push_back(src.def->type == "Const" ? &std::get<Value>(src.attrs.find("value")->second)
                                                 : nullptr);
    input_ops.push_back(in.op().id());
  }
  InferContext ctx{specs, node.attrs, constants};
  auto context = [&] {
    std::string shapes;
    for (std::size_t i = 0; i < specs.size(); ++i)
      shapes += (i ? ", " : "") + shape_text(specs[i].shape);
    return " for '" + node.name + "' (op: '" + std::string(def.type) +
           "') with input shapes: " + shapes + ".";
  };
  // Build-time errors keep their kind and say which node and inputs they concern.
  try {
    node.outputs = def.infer(ctx);
  } catch (const TypeError& e) {
    throw TypeError(e.message() + context());
  } catch (const Error& e) {
    throw ValueError(e.message() + context());
  }
  if (!def.accepts_resources) {
    auto is_resource = [](const TensorSpec& t) { return t.dtype == DType::resource; };
    const auto in = std::find_if(specs.begin(), specs.end(), is_resource);
    if (in != specs.end() || std::any_of(node.outputs.begin(), node.outputs.end(), is_resource))
      throw TypeError((in != specs.end()
                           ? "Input " + std::to_string(in - specs.begin()) + " is a resource handle"
                           : std::string("An output would be a resource handle")) +
                      ", and " + std::string(def.type) + " takes none" + context());
  }
  if (!def.accepts_storage_dtypes) {
    auto is_storage = [](const TensorSpec& t) { return is_storage_dtype(t.dtype); };
    const auto in = std::find_if(specs.begin(), specs.end(), is_storage);
    const auto out = std::find_if(node.outputs.begin(), node.outputs.end(), is_storage);
    if (in != specs.end() || out != node.outputs.end())
      throw TypeError(
          (in != specs.end()
               ? "Input " + std::to_string(in - specs.begin()) + " of " + std::string(def.type) +
                     " has dtype " + std::string(dtype_name(in->dtype))
               : "An output of " + std::string(def.type) + " would have dtype " +
                     std::string(dtype_name(out->dtype))) +
          ", which symflow stores, moves, casts and saves but does not compute in: cast it to "
          "float32, float64, int32 or int64 first (docs/dtypes.md lists the ops that take it)" +
          context());
  }
  if (!def.accepts_strings) {
    auto is_string = [](const TensorSpec& t) { return t.dtype == DType::string; };
    const auto in = std::find_if(specs.begin(), specs.end(), is_string);
    const bool out = std::any_of(node.outputs.begin(), node.outputs.end(), is_string);
    if (in != specs.end() || out)
      throw TypeError((in != specs.end()
                           ? "Input " + std::to_string(in - specs.begin()) + " is a string tensor"
                           : std::string("An output would be a string tensor")) +
                      ", and symflow's " + std::string(def.type) +
                      " takes no strings (docs/strings.md lists the ops that do)" + context());
  }

  // Only a loop's own tensors, and those of the loops around it, may be read inside it;
  // outside a loop only its Exits are (TensorFlow's CheckInputFromValidContext).
  for (const NodeId in : input_ops) {
    const detail::Node& src = s.node(in);
    std::uint32_t in_context = src.context;
    if (detail::is_exit_op(src.def) && in_context != 0)
      in_context = s.flow_contexts[in_context - 1].outer;
    if (in_context == 0 || in_context == branch) continue;
    const std::uint32_t loop = s.loop_of(branch), in_loop = s.loop_of(in_context);
    const bool valid = loop == 0 ? in_loop == 0 || detail::is_enter_op(&def) || def.dead_outputs
                                 : in_loop == 0 || s.context_within(loop, in_loop);
    if (!valid)
      throw ValueError("Cannot use '" + src.name + "' as input to '" + node.name + "' because " +
                       (loop == 0 ? "'" + src.name + "' is in a while loop."
                                  : std::string("they are in different while loops.")));
  }

  node.control_inputs = s.control_inputs_for(input_ops);
  for (const Operation& c : control_inputs)
    if (std::find(node.control_inputs.begin(), node.control_inputs.end(), c.id()) ==
        node.control_inputs.end())
      node.control_inputs.push_back(c.id());
  if (branch != 0) {
    // An op without inputs runs only when its branch is taken (once per iteration, in a
    // loop): after the pivot, unless a control input from inside the context orders it
    // already. In a loop, so does an op that reads only tensors from outside.
    const detail::ControlFlowContext& c = s.flow_contexts[branch - 1];
    const NodeId pivot = c.pivot.node;
    const bool free = inputs.empty()
                          ? std::none_of(node.control_inputs.begin(), node.control_inputs.end(),
                                         [&](NodeId n) { return s.in_context(n, branch); })
                          : c.is_loop && node.control_inputs.empty() &&
                                std::all_of(input_ops.begin(), input_ops.end(), [&](NodeId n) {
                                  const detail::Node& src = s.node(n);
                                  if (!detail::is_enter_op(src.def)) return false;
                                  auto it = src.attrs.find("is_constant");
                                  return it != src.attrs.end() && std::get_if<bool>(&it->second) &&
                                         std::get<bool>(it->second);
                                });
    if (free) node.control_inputs.push_back(pivot);
    node.context = branch;
  }
  const std::size_t num_outputs = node.outputs.size();
  const NodeId id = s.add_node(std::move(node));
  // Its outputs need no Switch or Enter in its context, nor in the contexts around it.
  for (std::uint32_t c = branch; c != 0; c = s.flow_contexts[c - 1].outer)
    for (std::size_t i = 0; i < num_outputs; ++i)
      s.flow_contexts[c - 1].values.insert(TensorRef{id, static_cast<int>(i)});
  return Operation(state_, id);
}

namespace detail {

SYMFLOW_INLINE Operation make_switch(const Graph& g, const Output& data, const Output& pred,
                                     std::string_view name, bool lift) {
  GraphState& s = g.state();
  const Node& src = s.node(data.op().id());
  AttrValue colocation = StringList{{"loc:@" + src.name}};
  if (auto it = src.attrs.find("_class"); it != src.attrs.end()) colocation = it->second;
  const bool ref = src.outputs.at(static_cast<std::size_t>(data.index())).is_ref;
  // Outside every branch and control dependency (TensorFlow's control_dependencies(None)).
  struct Lift {
    GraphState& s;
    bool on;
    std::uint32_t context;
    Lift(GraphState& state, bool lift) : s(state), on(lift), context(state.current_context) {
      if (!on) return;
      ControlFrame frame;
      frame.clears_outer = true;
      s.control_frames.push_back(std::move(frame));
      s.current_context = 0;
    }
    ~Lift() {
      if (!on) return;
      s.control_frames.pop_back();
      s.current_context = context;
    }
  } lifted(s, lift);
  return Graph(g).create_op(ref ? kRefSwitchOp : kSwitchOp, {data, pred},
                            {{"T", data.dtype()}, {"_class", std::move(colocation)}}, name);
}

SYMFLOW_INLINE Operation make_enter(const Graph& g, const Output& data, std::uint32_t loop,
                                    bool is_constant, std::string_view name, bool use_ref) {
  GraphState& s = g.state();
  const ControlFlowContext& c = s.flow_contexts[loop - 1];
  const bool ref =
      use_ref && s.node(data.op().id()).outputs.at(static_cast<std::size_t>(data.index())).is_ref;
  // The control dependencies in force that belong to the contexts around the loop (up to
  // the next loop out) stay on the Enter (TensorFlow's _FixControlInputsAndContext).
  std::vector<Operation> controls;
  for (NodeId op : s.control_inputs_for({data.op().id()})) {
    std::uint32_t op_context = s.node(op).context;
    if (is_exit_op(s.node(op).def) && op_context != 0)
      op_context = s.flow_contexts[op_context - 1].outer;
    bool keep = false;
    for (std::uint32_t at = c.outer;; at = s.flow_contexts[at - 1].outer) {
      if (at == op_context) {
        keep = true;
        break;
      }
      if (at == 0 || s.flow_contexts[at - 1].is_loop) break;
    }
    if (keep) controls.emplace_back(g.state_ptr(), op);
  }
  const std::string frame_name = c.frame_name;
  const std::int64_t parallel_iterations = c.parallel_iterations;
  // Outside every context and control dependency, as a Switch of a branch is made.
  struct Lift {
    GraphState& s;
    std::uint32_t context;
    explicit Lift(GraphState& state) : s(state), context(state.current_context) {
      ControlFrame frame;
      frame.clears_outer = true;
      s.control_frames.push_back(std::move(frame));
      s.current_context = 0;
    }
    ~Lift() {
      s.control_frames.pop_back();
      s.current_context = context;
    }
  } lifted(s);
  const Operation enter =
      Graph(g).create_op(ref ? kRefEnterOp : kEnterOp, {data},
                         {{"T", data.dtype()},
                          {"frame_name", frame_name},
                          {"is_constant", is_constant},
                          {"parallel_iterations", parallel_iterations}},
                         name.empty() ? (ref ? "RefEnter" : "Enter") : name, controls);
  s.node(enter.id()).context = loop;
  s.flow_contexts[loop - 1].values.insert(TensorRef{enter.id(), 0});
  return enter;
}

SYMFLOW_INLINE TensorRef context_add_value(const Graph& g, std::uint32_t context, TensorRef value) {
  GraphState& s = g.state();
  auto ctx = [&]() -> ControlFlowContext& { return s.flow_contexts[context - 1]; };
  if (ctx().values.count(value)) {
    auto it = ctx().external_values.find(value);
    return it == ctx().external_values.end() ? value : it->second;
  }
  // A backward loop reads a tensor of its forward loop as that tensor's value in the
  // matching forward iteration (tf.gradients keeps them on stacks).
  if (ctx().gradient_of != 0 && s.forward_value_in_backprop) {
    const Node& n = s.node(value.node);
    std::uint32_t forward = s.loop_of(n.context);
    if (forward != 0 && is_exit_op(n.def)) forward = s.loop_of(s.flow_contexts[forward - 1].outer);
    if (forward == ctx().gradient_of) {
      const TensorRef real = s.forward_value_in_backprop(context, value);
      ctx().values.insert(value);
      ctx().values.insert(real);
      ctx().external_values[value] = real;
      return real;
    }
  }
  // A loop reads the values of a cond inside its body as they are: they are its own
  // (TensorFlow records a cond's values in every context around it). A gradient taken in
  // the body reads them so.
  if (ctx().is_loop) {
    const Node& n = s.node(value.node);
    std::uint32_t at =
        is_exit_op(n.def) && n.context != 0 ? s.flow_contexts[n.context - 1].outer : n.context;
    while (at != 0 && at != context && !s.flow_contexts[at - 1].is_loop)
      at = s.flow_contexts[at - 1].outer;
    if (at == context && n.context != context) {
      ctx().values.insert(value);
      return value;
    }
  }
  TensorRef result = value;
  ctx().values.insert(value);
  if (const std::uint32_t outer = ctx().outer; outer != 0) {
    result = context_add_value(g, outer, value);
    if (!ctx().is_loop) {
      ctx().values.insert(result);
      ctx().external_values[result] = result;
    }
  }
  const Output outside(Operation(g.state_ptr(), result.node), result.index);
  if (ctx().is_loop) {
    // A tensor from outside the loop is the same in every iteration: a constant Enter.
    const Operation enter = make_enter(g, outside, context, true);
    result = TensorRef{enter.id(), 0};
  } else {
    const Output pred(Operation(g.state_ptr(), ctx().pred.node), ctx().pred.index);
    const Operation sw = make_switch(g, outside, pred);
    s.node(sw.id()).context = context;
    result = TensorRef{sw.id(), ctx().branch};
  }
  ctx().values.insert(result);
  ctx().external_values[value] = result;
  return result;
}

}  // namespace detail

namespace detail {

// A string as Python's repr() writes it, as TensorFlow quotes names in its messages:
// single quotes unless the text holds one and no double quote.
inline std::string python_repr(std::string_view text) {
  const bool double_quoted =
      text.find('\'') != std::string_view::npos && text.find('"') == std::string_view::npos;
  const char quote = double_quoted ? '"' : '\'';
  std::string out(1, quote);
  for (const char c : text) {
    if (c == '\\' || c == quote)
      out += {'\\', c};
    else if (c == '\n')
      out += "\\n";
    else if (c == '\r')
      out += "\\r";
    else if (c == '\t')
      out += "\\t";
    else
      out += c;
  }
  return out + quote;
}

// An output index read as Python's int(): blanks around, an optional sign, decimal
// digits with single underscores between them. Out-of-range values saturate (any of
// them names no output).
inline std::optional<std::int64_t> parse_python_int(std::string_view text) {
  auto blank = [](char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; };
  while (!text.empty() && blank(text.front())) text.remove_prefix(1);
  while (!text.empty() && blank(text.back())) text.remove_suffix(1);
  bool negative = false;
  if (!text.empty() && (text.front() == '+' || text.front() == '-')) {
    negative = text.front() == '-';
    text.remove_prefix(1);
  }
  if (text.empty() || text.front() == '_' || text.back() == '_') return std::nullopt;
  std::int64_t value = 0;
  bool saturated = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '_') {
      if (text[i - 1] == '_') return std::nullopt;
      continue;
    }
    if (c < '0' || c > '9') return std::nullopt;
    if (value > (INT64_MAX - (c - '0')) / 10) saturated = true;
    if (!saturated) value = value * 10 + (c - '0');
  }
  if (saturated) value = INT64_MAX;
  return negative ? -value : value;
}

}  // namespace detail

SYMFLOW_INLINE GraphElement Graph::as_graph_element(std::string_view name, bool allow_tensor,
                                                    bool allow_operation) const {
  if (!allow_tensor && !allow_operation)
    throw ValueError("allow_tensor and allow_operation can't both be False.");
  const std::string kinds = allow_tensor && allow_operation ? "Tensor or Operation"
                            : allow_tensor                  ? "Tensor"
                                                            : "Operation";
  const std::string quoted = detail::python_repr(name);
  const std::string form = " Tensor names must be of the form \"<op_name>:<output_index>\".";
  const std::size_t colon = name.find(':');
  if (colon != std::string_view::npos) {
    if (!allow_tensor)
      throw ValueError("Name " + quoted + " appears to refer to a Tensor, not a " + kinds + ".");
    // Exactly one colon, then an integer.
    const std::string_view op_name = name.substr(0, colon);
    const std::string_view index_text = name.substr(colon + 1);
    const std::optional<std::int64_t> index = index_text.find(':') == std::string_view::npos
                                                  ? detail::parse_python_int(index_text)
                                                  : std::nullopt;
    if (!index)
      throw ValueError("The name " + quoted +
                       " looks a like a Tensor name, but is not a valid one." + form);
    const auto id = state_->find(op_name);
    if (!id)
      throw KeyError("The name " + quoted +
                     " refers to a Tensor which does not exist. The operation, " +
                     detail::python_repr(op_name) + ", does not exist in the graph.");
    const Operation op(state_, *id);
    const std::int64_t count = op.num_outputs();
    // A negative index counts from the end, as a Python list's does.
    if (*index < -count || *index >= count)
      throw KeyError("The name " + quoted +
                     " refers to a Tensor which does not exist. The operation, " +
                     detail::python_repr(op_name) + ", exists but only has " +
                     std::to_string(count) + " outputs.");
    return Output(op, static_cast<int>(*index < 0 ? *index + count : *index));
  }
  const auto id = state_->find(name);
  if (allow_operation) {
    if (!id) throw KeyError("The name " + quoted + " refers to an Operation not in the graph.");
    return Operation(state_, *id);
  }
  throw ValueError("The name " + quoted +
                   (id ? " refers to an Operation, not a "
                       : " looks like an (invalid) Operation "
                         "name, not a ") +
                   kinds + "." + form);
}

SYMFLOW_INLINE GraphElement Graph::as_graph_element(const Output& tensor, bool allow_tensor,
                                                    bool allow_operation) const {
  if (!allow_tensor && !allow_operation)
    throw ValueError("allow_tensor and allow_operation can't both be False.");
  // TensorFlow 2's graph tensors are of class SymbolicTensor, the name its message shows.
  if (!allow_tensor) throw TypeError("Can not convert a SymbolicTensor into a Operation.");
  if (!tensor.valid() || tensor.op().graph_state() != state_)
    throw ValueError("Tensor " + (tensor.valid() ? to_string(tensor) : std::string("None")) +
                     " is not an element of this graph.");
  return tensor;
}

SYMFLOW_INLINE GraphElement Graph::as_graph_element(const Operation& op, bool allow_tensor,
                                                    bool allow_operation) const {
  if (!allow_tensor && !allow_operation)
    throw ValueError("allow_tensor and allow_operation can't both be False.");
  if (!allow_operation) throw TypeError("Can not convert a Operation into a Tensor.");
  // TensorFlow prints the operation's NodeDef here; its name stands for it.
  if (!op.valid() || op.graph_state() != state_)
    throw ValueError("Operation " + (op.valid() ? detail::python_repr(op.name()) : "None") +
                     " is not an element of this graph.");
  return op;
}

SYMFLOW_INLINE Operation Graph::get_operation_by_name(std::string_view name) const {
  return std::get<Operation>(as_graph_element(name, false, true));
}

SYMFLOW_INLINE Output Graph::get_tensor_by_name(std::string_view name) const {
  return std::get<Output>(as_graph_element(name, true, false));
}

SYMFLOW_INLINE std::vector<Operation> Graph::get_operations() const {
  std::vector<Operation> ops;
  for (std::uint32_t i = 0; i < state_->nodes.size(); ++i) ops.emplace_back(state_, NodeId{i});
  return ops;
}

SYMFLOW_INLINE std::vector<CollectionValue> Graph::get_collection(std::string_view key,
                                                                  std::string_view scope) const {
  std::vector<CollectionValue> out;
  auto it = state_->collections.find(key);
  if (it == state_->collections.end()) return out;
  for (const auto& item : it->second) {
    CollectionValue v = to_value(item);
    if (!scope.empty()) {
      std::string name;
      if (auto* op = std::get_if<Operation>(&v)) name = op->name();
      if (auto* t = std::get_if<Output>(&v)) name = t->name();
      if (name.rfind(scope, 0) != 0) continue;
    }
    out.push_back(std::move(v));
  }
  return out;
}

SYMFLOW_INLINE GraphDef Graph::as_graph_def() const {
  GraphDef def;
  for (std::uint32_t i = 0; i < state_->nodes.size(); ++i)
    def.node.push_back(Operation(state_, NodeId{i}).node_def());
  return def;
}

SYMFLOW_INLINE void Graph::check_owns(const Output& in, const OpDef& def) const {
  if (!in.valid()) throw ValueError("Op " + std::string(def.type) + " got an empty tensor handle");
  if (in.op().graph_state() != state_)
    throw ValueError(to_string(in) + " must be from the same graph as the op " +
                     std::string(def.type) + " being built.");
}

SYMFLOW_INLINE Output Operation::output(int index) const {
  if (index < 0 || index >= num_outputs())
    throw ValueError("Operation " + name() + " has " + std::to_string(num_outputs()) +
                     " outputs, index " + std::to_string(index) + " is out of range");
  return Output(*this, index);
}
SYMFLOW_INLINE std::vector<Output> Operation::outputs() const {
  std::vector<Output> out;
  for (int i = 0; i < num_outputs(); ++i) out.emplace_back(*this, i);
  return out;
}
SYMFLOW_INLINE std::vector<Output> Operation::inputs() const {
  std::vector<Output> out;
  for (const TensorRef& r : node().inputs) out.emplace_back(Operation(graph_, r.node), r.index);
  return out;
}
SYMFLOW_INLINE std::vector<Operation> Operation::control_inputs() const {
  std::vector<Operation> out;
  for (NodeId c : node().control_inputs) out.emplace_back(graph_, c);
  return out;
}
SYMFLOW_INLINE NodeDef Operation::node_def() const {
  const detail::Node& n = node();
  NodeDef def;
  def.name = n.name;
  def.op = std::string(n.def->type);
  for (const TensorRef& r : n.inputs) {
    std::string src = graph_->node(r.node).name;
    def.input.push_back(r.index == 0 ? src : src + ":" + std::to_string(r.index));
  }
  for (NodeId c : n.control_inputs) def.input.push_back("^" + graph_->node(c).name);
  def.device = n.device;
  def.attr = n.attrs;
  return def;
}

}  // namespace symflow
