#pragma once
// tf.TensorArray as TensorFlow 1.x builds it (tensor_array_ops._GraphTensorArray, the V3
// ops of ops/defs/tensor_array.hpp), its gradients (tensor_array_grad.py) and registry
// entries. A TensorArray is a handle and a flow: every write gives a new TensorArray
// with the same handle and a new flow, and reads take the flow so that they run after
// the writes before them. The arrays made from one another share one element shape,
// which writes refine as TensorFlow's infer_shape does. A TensorArray can be a while
// loop variable (detail::CondShape<TensorArray> below): the loop carries its flow.

#include <algorithm>
#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "symflow/core/dtype.hpp"
#include "symflow/core/errors.hpp"
#include "symflow/core/shape.hpp"
#include "symflow/graph/graph.hpp"
#include "symflow/graph/scopes.hpp"
#include "symflow/graph/tensor.hpp"
#include "symflow/ops/array_ops.hpp"
#include "symflow/ops/cond.hpp"
#include "symflow/ops/const_op.hpp"
#include "symflow/ops/defs/tensor_array.hpp"
#include "symflow/ops/grad_context.hpp"
#include "symflow/ops/indexing.hpp"
#include "symflow/ops/math_ops.hpp"
#include "symflow/ops/op_builder.hpp"
#include "symflow/ops/tensor_arg.hpp"
#include "symflow/ops/transform_ops.hpp"

namespace symflow {

// The options of tf.TensorArray(dtype, ...). `size` is required.
struct TensorArrayOptions {
  std::optional<TensorArg> size = {};  // an int32 scalar: a number or a tensor
  bool dynamic_size = false;           // writes past the end grow the array
  bool clear_after_read = true;        // a read lets go of the value (no second read)
  std::string tensor_array_name = {};  // the array's name in the run (default: the op's name)
  Shape element_shape = Shape::unknown();
  bool infer_shape = true;  // writes fix the element shape: all elements share one
  std::string name = {};    // the op's name (default "TensorArray")
};

namespace detail {

// What every TensorArray made from one another shares, kept by handle so that a while
// loop can rebuild the array from the flow it carried.
struct TensorArrayInfo {
  DType dtype = DType::invalid;
  std::shared_ptr<Shape> element_shape;
  bool infer_shape = true;
  bool dynamic_size = false;
  std::optional<Value> size_value;       // the size, when given as a number
  std::optional<TensorRef> size_tensor;  // or as a tensor of the same graph
};

// The TensorArrays a graph has built, by handle, and the flows that are not outputs of
// an array's own ops (a gradient array's "gradient_flow"), by flow: what from_flow reads.
// It belongs to the graph (GraphState::tensor_arrays), made on first use.
struct TensorArrayState {
  std::map<TensorRef, TensorArrayInfo> arrays;
  std::map<TensorRef, TensorRef> flow_handles;
};
inline TensorArrayState& tensor_array_state(const Output& tensor) {
  std::shared_ptr<TensorArrayState>& state = tensor.op().graph().state().tensor_arrays;
  if (!state) state = std::make_shared<TensorArrayState>();
  return *state;
}
inline void remember_tensor_array(const Output& handle, TensorArrayInfo info) {
  tensor_array_state(handle).arrays[handle.ref()] = std::move(info);
}
inline std::optional<TensorArrayInfo> find_tensor_array(const Output& handle) {
  const auto& arrays = tensor_array_state(handle).arrays;
  const auto it = arrays.find(handle.ref());
  if (it == arrays.end()) return std::nullopt;
  return it->second;
}
inline void remember_flow_handle(const Output& flow, const Output& handle) {
  tensor_array_state(flow).flow_handles[flow.ref()] = handle.ref();
}
inline std::optional<Output> handle_of_flow(const Output& flow) {
  const auto& flows = tensor_array_state(flow).flow_handles;
  const auto it = flows.find(flow.ref());
  if (it == flows.end()) return std::nullopt;
  return Output(Operation(flow.op().graph_state(), it->second.node), it->second.index);
}

// The handle of the TensorArray whose flow is `flow`: back through the ops that pass a
// flow on (a loop's Merge, Enter, Switch, Identity and Exit, the writes) to the op that
// made the array.
inline Output tensor_array_handle_of_flow(Output flow) {
  for (int steps = 0; steps < 100000; ++steps) {
    if (std::optional<Output> handle = handle_of_flow(flow)) return *handle;
    const Operation op = flow.op();
    const std::string type = op.type();
    if (type == "TensorArrayV3" || type == "TensorArrayGradV3") return op.output(0);
    if (type == "TensorArrayWriteV3" || type == "TensorArrayScatterV3" ||
        type == "TensorArraySplitV3") {
      // A write in a cond branch reads the handle through the branch's Switch: the array
      // is the one outside.
      Output handle = op.inputs().at(0);
      while (handle.op().type() == "Switch") handle = handle.op().inputs().at(0);
      return handle;
    }
    if (type == "Identity" || type == "Enter" || type == "Switch" || type == "Merge" ||
        type == "Exit" || type == "NextIteration") {
      flow = op.inputs().at(0);
      continue;
    }
    break;
  }
  throw ValueError("Tensor " + flow.name() + " (op " + flow.op().type() +
                   ") is not the flow of a TensorArray");
}

// A TensorArray's settings read from the op that made it, for a handle the registry does
// not know (a graph read from a GraphDef).
inline TensorArrayInfo tensor_array_info_from_graph(Output handle) {
  for (int steps = 0; steps < 100000; ++steps) {
    const Operation op = handle.op();
    const std::string type = op.type();
    if (type == "TensorArrayV3") {
      TensorArrayInfo info;
      info.dtype = op.get_attr<DType>("dtype");
      info.element_shape = std::make_shared<Shape>(op.get_attr<Shape>("element_shape"));
      info.infer_shape = op.get_attr<bool>("identical_element_shapes");
      info.dynamic_size = op.get_attr<bool>("dynamic_size");
      return info;
    }
    if (type == "TensorArrayGradV3" || type == "Identity" || type == "Enter" || type == "Switch" ||
        type == "Merge" || type == "Exit") {
      handle = op.inputs().at(0);
      continue;
    }
    break;
  }
  throw ValueError("Tensor " + handle.name() + " is not the handle of a TensorArray");
}

}  // namespace detail

// tf.TensorArray (TensorFlow 1.x graph mode): an array of tensors of one dtype that lives
// in a run. Not a tensor itself: pass flow() or handle() where an op needs one.
class TensorArray {
 public:
  // tf.TensorArray(dtype, size=..., dynamic_size=..., ...): TensorArrayV3 named
  // options.name (default "TensorArray"), its size a Const "<name>/size" when a number.
  TensorArray(DType dtype, const TensorArrayOptions& options) {
    if (!options.size)
      throw ValueError("Argument `size` must be provided if handle is not provided.");
    const TensorArg& size = *options.size;
    detail::OpBuilder b(graph_of({&size}), options.name, "TensorArray");
    const Output size_tensor = size.resolve(b, "size");
    const Operation op = b.build(detail::tensor_array::kTensorArrayV3Op, {size_tensor},
                                 {{"dtype", dtype},
                                  {"element_shape", options.element_shape},
                                  {"dynamic_size", options.dynamic_size},
                                  {"clear_after_read", options.clear_after_read},
                                  {"identical_element_shapes", options.infer_shape},
                                  {"tensor_array_name", options.tensor_array_name}});
    dtype_ = dtype;
    handle_ = op.output(0);
    flow_ = op.output(1);
    element_shape_ = std::make_shared<Shape>(options.element_shape);
    infer_shape_ = options.infer_shape;
    dynamic_size_ = options.dynamic_size;
    if (size.value()) size_value_ = *size.value();
    if (size.tensor()) size_tensor_ = *size.tensor();
    remember();
  }

  // A TensorArray of an existing handle and flow (TensorFlow's handle= and flow=
  // arguments), as the gradient functions make them: its element shape is unknown.
  static TensorArray from_handle(DType dtype, const Output& handle, const Output& flow,
                                 bool infer_shape = true) {
    if (!handle.valid() || handle.dtype() != DType::resource)
      throw TypeError("Expected `handle` to be a resource tensor");
    if (!flow.valid()) throw ValueError("flow must not be None if handle is not None.");
    TensorArray ta;
    ta.dtype_ = dtype;
    ta.handle_ = handle;
    ta.flow_ = flow;
    ta.element_shape_ = std::make_shared<Shape>(Shape::unknown());
    ta.infer_shape_ = infer_shape;
    return ta;
  }

  // The TensorArray whose flow is `flow`: what a while loop gives back for a
  // TensorArray loop variable. It shares the element shape of the array it came from.
  static TensorArray from_flow(const Output& flow) {
    const Output handle = detail::tensor_array_handle_of_flow(flow);
    std::optional<detail::TensorArrayInfo> info = detail::find_tensor_array(handle);
    if (!info) info = detail::tensor_array_info_from_graph(handle);
    TensorArray ta;
    ta.dtype_ = info->dtype;
    ta.handle_ = handle;
    ta.flow_ = flow;
    ta.element_shape_ = info->element_shape;
    ta.infer_shape_ = info->infer_shape;
    ta.dynamic_size_ = info->dynamic_size;
    ta.size_value_ = info->size_value;
    if (info->size_tensor)
      ta.size_tensor_ = Output(Operation(handle.op().graph_state(), info->size_tensor->node),
                               info->size_tensor->index);
    return ta;
  }

  DType dtype() const { return dtype_; }
  const Output& handle() const { return handle_; }
  const Output& flow() const { return flow_; }
  // What is known of every element's shape (shared with the arrays made from this one).
  const Shape& element_shape() const { return *element_shape_; }

  // TensorArray.read(index): TensorArrayReadV3, of the element shape known.
  Output read(const TensorArg& index, std::string_view name = {}) const {
    detail::OpBuilder b(graph(), name, "TensorArrayReadV3");
    const Output i = index.resolve(b, "index");
    Output value = b.build(detail::tensor_array::kTensorArrayReadV3Op, {handle_, i, flow_},
                           {{"dtype", dtype_}})
                       .output(0);
    value.set_shape(*element_shape_);
    return value;
  }

  // TensorArray.write(index, value): in scope "TensorArrayWrite"; a number or list
  // becomes a Const "value" of the array's dtype. ValueError when value's static shape
  // contradicts the element shape.
  TensorArray write(const TensorArg& index, const TensorArg& value,
                    std::string_view name = {}) const {
    name_scope scope(name, "TensorArrayWrite", {handle_});
    const Output v = to_tensor(value);
    check_element_shape(v.get_shape());
    detail::OpBuilder b(graph(), name, "TensorArrayWriteV3");
    const Output i = index.resolve(b, "index");
    const Output flow = b.build(detail::tensor_array::kTensorArrayWriteV3Op, {handle_, i, v, flow_},
                                {{"T", v.dtype()}})
                            .output(0);
    return with_flow(flow);
  }

  // TensorArray.stack(): gather(range(0, size())) in scope "TensorArrayStack".
  Output stack(std::string_view name = {}) const {
    name_scope scope(name, "TensorArrayStack", {handle_});
    Output value = gather(range(0, size()), name);
    if (element_shape_->has_rank() && !dynamic_size_ && (size_value_ || size_tensor_)) {
      Dims dims{known_size().value_or(unknown_dim)};
      dims.insert(dims.end(), element_shape_->dims().begin(), element_shape_->dims().end());
      value.set_shape(Shape(std::move(dims)));
    }
    return value;
  }

  // TensorArray.gather(indices): TensorArrayGatherV3 with the element shape known.
  Output gather(const TensorArg& indices, std::string_view name = {}) const {
    Output i, value;
    {
      detail::OpBuilder b(graph(), name, "TensorArrayGatherV3");
      i = indices.resolve(b, "indices");
      value = b.build(detail::tensor_array::kTensorArrayGatherV3Op, {handle_, i, flow_},
                      {{"dtype", dtype_}, {"element_shape", *element_shape_}})
                  .output(0);
    }
    // TensorFlow's shape function knows the element shape the array was made with (the
    // handle's shape data) when it is fully defined or all elements share one shape.
    if (handle_.op().type() == "TensorArrayV3") {
      const Shape made = handle_.op().get_attr<Shape>("element_shape");
      if (made.has_rank() &&
          (made.is_fully_defined() || handle_.op().get_attr<bool>("identical_element_shapes"))) {
        const Shape& n = i.get_shape();
        Dims dims{n.has_rank() && n.rank() == 1 ? n.dim(0) : unknown_dim};
        dims.insert(dims.end(), made.dims().begin(), made.dims().end());
        value.set_shape(Shape(std::move(dims)));
      }
    }
    if (element_shape_->has_rank()) {
      Dims dims{unknown_dim};
      dims.insert(dims.end(), element_shape_->dims().begin(), element_shape_->dims().end());
      value.set_shape(Shape(std::move(dims)));
    }
    return value;
  }

  // TensorArray.concat(): the elements joined along their first dimension.
  Output concat(std::string_view name = {}) const {
    const Shape& element = *element_shape_;
    if (element.has_rank() && element.rank() == 0)
      throw ValueError(
          "TensorArray.concat: the elements are scalars, and concat joins them "
          "along their first dimension (stack them instead)");
    const Shape except0 = element.has_rank()
                              ? Shape(Dims(element.dims().begin() + 1, element.dims().end()))
                              : Shape::unknown();
    Output value;
    {
      detail::OpBuilder b(graph(), name, "TensorArrayConcatV3");
      value = b.build(detail::tensor_array::kTensorArrayConcatV3Op, {handle_, flow_},
                      {{"dtype", dtype_}, {"element_shape_except0", except0}})
                  .output(0);
    }
    if (element.has_rank()) {
      std::int64_t dim0 = unknown_dim;
      if (infer_shape_) {
        const Output n = size();  // TensorFlow asks for the size here, building its Const
        const std::optional<std::int64_t> known =
            n.op().type() == "Const" ? std::optional<std::int64_t>(
                                           n.op().get_attr<Value>("value").scalar<std::int32_t>())
                                     : std::nullopt;
        if (known && element.dim(0) >= 0) dim0 = *known * element.dim(0);
      }
      Dims dims{dim0};
      dims.insert(dims.end(), except0.dims().begin(), except0.dims().end());
      value.set_shape(Shape(std::move(dims)));
    }
    return value;
  }

  // TensorArray.unstack(value): scatter(range(0, shape(value)[0]), value) in scope
  // "TensorArrayUnstack".
  TensorArray unstack(const Output& value, std::string_view name = {}) const {
    name_scope scope(name, "TensorArrayUnstack", {handle_, value});
    // TensorFlow's tf.shape is a Const when the shape is fully known.
    const Output dims = value.get_shape().is_fully_defined()
                            ? constant(detail::int32_vector(value.get_shape().dims()), "Shape")
                            : symflow::shape(value);
    return scatter(range(0, dims[0]), value, name);
  }

  // TensorArray.scatter(indices, value): value's rows written at `indices`, in scope
  // "TensorArrayScatter".
  TensorArray scatter(const TensorArg& indices, const TensorArg& value,
                      std::string_view name = {}) const {
    name_scope scope(name, "TensorArrayScatter", {handle_});
    const Output v = to_tensor(value);
    const Shape& s = v.get_shape();
    check_element_shape(!s.has_rank()   ? Shape::unknown()
                        : s.rank() == 0 ? Shape{}
                                        : Shape(Dims(s.dims().begin() + 1, s.dims().end())));
    detail::OpBuilder b(graph(), name, "TensorArrayScatterV3");
    const Output i = indices.resolve(b, "indices");
    const Output flow = b.build(detail::tensor_array::kTensorArrayScatterV3Op,
                                {handle_, i, v, flow_}, {{"T", v.dtype()}})
                            .output(0);
    return with_flow(flow);
  }

  // TensorArray.split(value, lengths): value cut along dimension 0 into pieces of
  // `lengths` (cast to int64), one per index, in scope "TensorArraySplit".
  TensorArray split(const TensorArg& value, const TensorArg& lengths,
                    std::string_view name = {}) const {
    name_scope scope(name, "TensorArraySplit", {handle_});
    const Output v = to_tensor(value);
    if (v.dtype() != dtype_)
      throw ValueError("value: Tensor conversion requested dtype " +
                       std::string(dtype_name(dtype_)) + " for Tensor with dtype " +
                       std::string(dtype_name(v.dtype())) + ": " + repr(v));
    Output lengths64;
    if (const Output* t = lengths.tensor()) {
      lengths64 = cast(*t, DType::int64);
    } else {
      detail::OpBuilder cast_builder(graph(), "", "Cast");
      const Output x = cast_builder.constant_arg(*lengths.value(), "x");
      lengths64 =
          x.dtype() == DType::int64
              ? x
              : cast_builder
                    .build(detail::kCastOp, {x},
                           {{"SrcT", x.dtype()}, {"DstT", DType::int64}, {"Truncate", false}})
                    .output(0);
    }
    const Value* known = constant_of(lengths64);
    if (v.get_shape().has_rank() && known && known->rank() == 1 && known->size() > 0) {
      const Value l = known->astype(DType::int64);
      const std::int64_t* p = l.data<std::int64_t>();
      if (*std::max_element(p, p + l.size()) == *std::min_element(p, p + l.size())) {
        Dims dims{p[0]};
        if (v.get_shape().rank() > 0)
          dims.insert(dims.end(), v.get_shape().dims().begin() + 1, v.get_shape().dims().end());
        check_element_shape(Shape(std::move(dims)));
      }
    }
    detail::OpBuilder b(graph(), name, "TensorArraySplitV3");
    const Output flow = b.build(detail::tensor_array::kTensorArraySplitV3Op,
                                {handle_, v, lengths64, flow_}, {{"T", v.dtype()}})
                            .output(0);
    return with_flow(flow);
  }

  // TensorArray.size(): the size given (a Const "Const" when a number) unless the array
  // may grow; then TensorArraySizeV3.
  Output size(std::string_view name = {}) const {
    if (!dynamic_size_ && size_tensor_) return *size_tensor_;
    if (!dynamic_size_ && size_value_) return constant(size_value_->astype(DType::int32), "Const");
    Graph g = graph();
    return g
        .create_op(detail::tensor_array::kTensorArraySizeV3Op, {handle_, flow_}, {},
                   name.empty() ? "TensorArraySizeV3" : name)
        .output(0);
  }

  // TensorArray.close(): TensorArrayCloseV3; later ops on the array fail.
  Operation close(std::string_view name = {}) const {
    Graph g = graph();
    return g.create_op(detail::tensor_array::kTensorArrayCloseV3Op, {handle_}, {},
                       name.empty() ? "TensorArrayCloseV3" : name);
  }

  // TensorArray.grad(source, flow): the gradient array of (this array, source), in scope
  // "TensorArrayGrad"; its flow is "gradient_flow", after the TensorArrayGradV3.
  TensorArray grad(const std::string& source, const Output& flow = {},
                   std::string_view name = {}) const {
    const Output flow_in = flow.valid() ? flow : flow_;
    name_scope scope(name, "TensorArrayGrad", {handle_});
    Graph g = graph();
    const Operation op =
        g.create_op(detail::tensor_array::kTensorArrayGradV3Op, {handle_, flow_in},
                    {{"source", source}}, name.empty() ? "TensorArrayGradV3" : name);
    Output grad_flow;
    {
      control_dependencies deps({op});
      grad_flow = identity(flow_in, "gradient_flow");
    }
    TensorArray ta = from_handle(dtype_, op.output(0), grad_flow, infer_shape_);
    ta.element_shape_ = element_shape_;
    ta.remember();
    detail::remember_flow_handle(grad_flow, ta.handle_);
    return ta;
  }

 private:
  TensorArray() = default;

  Graph graph() const { return Graph(handle_.op().graph_state()); }

  // Remembers this array's settings under its handle, for from_flow.
  void remember() const {
    detail::TensorArrayInfo info;
    info.dtype = dtype_;
    info.element_shape = element_shape_;
    info.infer_shape = infer_shape_;
    info.dynamic_size = dynamic_size_;
    info.size_value = size_value_;
    if (size_tensor_ && size_tensor_->op().graph_state() == handle_.op().graph_state())
      info.size_tensor = size_tensor_->ref();
    detail::remember_tensor_array(handle_, std::move(info));
  }

  TensorArray with_flow(const Output& flow) const {
    TensorArray ta = *this;
    ta.flow_ = flow;
    return ta;
  }

  // A value as a Const "value", of the array's dtype where TensorFlow's convert_to_tensor
  // with that dtype preferred converts it (not a float to an integer, nor to or from
  // strings); a tensor as it is.
  Output to_tensor(const TensorArg& value) const {
    if (const Output* t = value.tensor()) return *t;
    Graph g = graph();
    const Value& v = *value.value();
    const auto is_float = [](DType d) { return d == DType::float32 || d == DType::float64; };
    const bool keep = stores_strings(v.dtype()) || stores_strings(dtype_) ||
                      dtype_ == DType::resource || (is_float(v.dtype()) && !is_float(dtype_));
    return detail::make_const(g, keep ? v : v.astype(dtype_), "value").output(0);
  }

  void check_element_shape(const Shape& shape) const {
    if (!shape.is_compatible_with(*element_shape_))
      throw ValueError("Inconsistent shapes: saw " + shape.to_string() + " but expected " +
                       element_shape_->to_string() + " ");
    if (infer_shape_) *element_shape_ = element_shape_->merge_with(shape);
  }

  static const Value* constant_of(const Output& t) {
    if (t.op().type() == "Const") return &t.op().get_attr<Value>("value");
    if (t.op().type() == "Cast" && t.op().inputs().at(0).op().type() == "Const")
      return &t.op().inputs().at(0).op().get_attr<Value>("value");
    return nullptr;
  }

  std::optional<std::int64_t> known_size() const {
    if (size_value_) return size_value_->astype(DType::int64).scalar<std::int64_t>();
    if (size_tensor_ && size_tensor_->op().type() == "Const")
      return size_tensor_->op()
          .get_attr<Value>("value")
          .astype(DType::int64)
          .scalar<std::int64_t>();
    return std::nullopt;
  }

  DType dtype_ = DType::invalid;
  Output handle_, flow_;
  std::shared_ptr<Shape> element_shape_;
  bool infer_shape_ = true;
  bool dynamic_size_ = false;
  std::optional<Value> size_value_;
  std::optional<Output> size_tensor_;
};

namespace detail {

// A TensorArray as a loop variable (or a cond branch's result): the loop carries its
// flow, and gives back the array of the flow it ends with.
template <>
struct CondShape<TensorArray> {
  static constexpr bool supported = true;
  static constexpr bool is_vector = false;
  using result = TensorArray;
  static void flatten(const TensorArray& r, std::vector<CondItem>& out) {
    out.emplace_back(r.flow());
  }
  static result unflatten(const std::vector<Output>& merged, std::size_t& at) {
    return TensorArray::from_flow(merged[at++]);
  }
};

// The gradient source of a gradient function: its name scope up to and including the
// last "gradients..." component (TensorFlow's _GetGradSource), so that every gradient
// op of one tf.gradients call shares one gradient array.
inline std::string tensor_array_grad_source(const GradContext& c) {
  const std::string& scope = c.graph().state().name_stack;
  std::size_t end = std::string::npos, begin = 0;
  while (begin <= scope.size()) {
    std::size_t slash = scope.find('/', begin);
    if (slash == std::string::npos) slash = scope.size();
    if (scope.compare(begin, 9, "gradients") == 0) end = slash;
    begin = slash + 1;
  }
  if (end == std::string::npos)
    throw ValueError("Expected op/tensor name to start with gradients (excluding scope), got: " +
                     scope);
  return scope.substr(0, end);
}

// A write's gradient flow, ordered after the forward write ("flow_out", "write_barrier").
inline Output tensor_array_write_barrier(const GradContext& c) {
  const Output flow_out = identity(c.output(0), "flow_out");
  control_dependencies deps({flow_out.op()});
  return identity(c.grad(0), "write_barrier");
}

inline TensorArray tensor_array_grad_array(const GradContext& c, DType dtype, const Output& flow) {
  return TensorArray::from_handle(dtype, c.input(0), flow).grad(tensor_array_grad_source(c), flow);
}

// Read: the gradient is written into the gradient array at the same index.
inline std::vector<Output> tensor_array_read_grad(const GradContext& c) {
  const Output flow = c.input(2);
  const TensorArray g = tensor_array_grad_array(c, c.op.get_attr<DType>("dtype"), flow);
  return {Output(), Output(), g.write(c.input(1), c.grad(0)).flow()};
}

// Write: the value's gradient is read from the gradient array.
inline std::vector<Output> tensor_array_write_grad(const GradContext& c) {
  const Output flow = tensor_array_write_barrier(c);
  const TensorArray g = tensor_array_grad_array(c, c.op.get_attr<DType>("T"), flow);
  return {Output(), Output(), g.read(c.input(1)), flow};
}

inline std::vector<Output> tensor_array_gather_grad(const GradContext& c) {
  const Output flow = c.input(2);
  const TensorArray g = tensor_array_grad_array(c, c.op.get_attr<DType>("dtype"), flow);
  return {Output(), Output(), g.scatter(c.input(1), c.grad(0)).flow()};
}

inline std::vector<Output> tensor_array_scatter_grad(const GradContext& c) {
  const Output flow = tensor_array_write_barrier(c);
  const TensorArray g = tensor_array_grad_array(c, c.op.get_attr<DType>("T"), flow);
  return {Output(), Output(), g.gather(c.input(1)), flow};
}

inline std::vector<Output> tensor_array_concat_grad(const GradContext& c) {
  const Output flow = c.input(1);
  const TensorArray g = tensor_array_grad_array(c, c.op.get_attr<DType>("dtype"), flow);
  return {Output(), g.split(c.grad(0), c.output(1)).flow()};
}

inline std::vector<Output> tensor_array_split_grad(const GradContext& c) {
  const Output flow = tensor_array_write_barrier(c);
  const TensorArray g = tensor_array_grad_array(c, c.op.get_attr<DType>("T"), flow);
  return {Output(), g.concat(), Output(), flow};
}

inline constexpr auto kTensorArrayOpEntries = std::to_array<OpEntry>({
    {&tensor_array::kTensorArrayV3Op, not_differentiable},
    {&tensor_array::kTensorArrayWriteV3Op, tensor_array_write_grad},
    {&tensor_array::kTensorArrayReadV3Op, tensor_array_read_grad},
    {&tensor_array::kTensorArrayGatherV3Op, tensor_array_gather_grad},
    {&tensor_array::kTensorArrayScatterV3Op, tensor_array_scatter_grad},
    {&tensor_array::kTensorArrayConcatV3Op, tensor_array_concat_grad},
    {&tensor_array::kTensorArraySplitV3Op, tensor_array_split_grad},
    {&tensor_array::kTensorArraySizeV3Op, not_differentiable},
    {&tensor_array::kTensorArrayCloseV3Op, not_differentiable},
    {&tensor_array::kTensorArrayGradV3Op, not_differentiable},
});

}  // namespace detail

}  // namespace symflow
