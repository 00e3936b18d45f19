#pragma once
// The CPU kernels of the TensorArray ops (ops/defs/tensor_array.hpp), with the rules and
// messages of TensorFlow's kernels/tensor_array.h. An array is a run's resource
// (backend/step_resources.hpp): one slot per index, each written at most once (a gradient
// array adds a second write to the first), read at most once when clear_after_read is on.
// A gradient array is found by its forward array's name and the gradient's source, so
// that every gradient op of one tf.gradients call shares it.

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "symflow/backend/cpu/kernel_table.hpp"
#include "symflow/backend/kernel_context.hpp"
#include "symflow/core/errors.hpp"
#include "symflow/core/shape.hpp"
#include "symflow/core/value.hpp"
#include "symflow/ops/defs/tensor_array.hpp"

namespace symflow::detail::tensor_array {

// TensorFlow's PartialTensorShape::DebugString: "[2,?]", "[]", "<unknown>".
inline std::string partial_shape_string(const Shape& s) {
  return s.has_rank() ? dims_to_string(s.dims()) : "<unknown>";
}

struct TensorArray {
  struct Slot {
    Value value;  // none: never written, cleared, or zeros still to be made
    Dims shape;
    bool has_shape = false;  // a write, or the forward array (for a gradient), set `shape`
    bool written = false;
    bool read = false;
    bool cleared = false;
  };

  std::mutex mutex;
  std::string name;  // what messages call it: "TensorArray_0", "TensorArray_0@gradients"
  DType dtype = DType::invalid;
  Shape element_shape = Shape::unknown();
  bool identical_element_shapes = false;
  bool dynamic_size = false;
  bool clear_after_read = true;
  bool is_grad = false;  // writes to one index add up; unwritten reads give zeros
  bool closed = false;
  std::vector<Slot> slots;

  void check_open(const KernelContext& ctx) const {
    if (closed) ctx.fail("TensorArray " + name + " has already been closed.");
  }

  // One slot's value (the caller holds the mutex).
  Value read(const KernelContext& ctx, std::int64_t index) {
    check_open(ctx);
    const auto size = static_cast<std::int64_t>(slots.size());
    if (index < 0 || (!is_grad && index >= size))
      ctx.fail("Tried to read from index " + std::to_string(index) +
               " but array size is: " + std::to_string(size));
    const bool unwritten = index >= size || !slots[static_cast<std::size_t>(index)].written;
    if (unwritten) {
      // Zeros of the element's shape: what a gradient array holds where nothing flowed
      // back, and what a forward array gives where its element shape is fully known.
      Dims shape;
      if (is_grad && index < size && slots[static_cast<std::size_t>(index)].has_shape &&
          !slots[static_cast<std::size_t>(index)].shape.empty()) {
        shape = slots[static_cast<std::size_t>(index)].shape;
      } else if (!element_shape.is_fully_defined()) {
        ctx.fail("TensorArray " + name + ": Could not read from TensorArray index " +
                 std::to_string(index) + ".  Furthermore, the element shape is not fully " +
                 "defined: " + partial_shape_string(element_shape) +
                 ".  It is possible you are working with a resizeable TensorArray and "
                 "stop_gradients is not allowing the gradients to be written.  If you set the "
                 "full element_shape property on the forward TensorArray, the proper "
                 "all-zeros tensor will be returned instead of incurring this error.");
      } else {
        shape = element_shape.dims();
      }
      if (index >= size) slots.resize(static_cast<std::size_t>(index) + 1);
      Slot& s = slots[static_cast<std::size_t>(index)];
      s.shape = shape;
      s.has_shape = true;
      s.written = true;
    }
    Slot& s = slots[static_cast<std::size_t>(index)];
    if (s.cleared)
      ctx.fail("TensorArray " + name + ": Could not read index " + std::to_string(index) +
               " twice because it was cleared after a previous read (perhaps try setting "
               "clear_after_read = false?).");
    if (s.value.is_none() || s.value.size() == 0) s.value = Value(dtype, s.shape);
    Value out = s.value;
    if (clear_after_read) {
      s.value = Value();
      s.cleared = true;
    }
    s.read = true;
    return out;
  }

  // Writes (or, for a gradient array, adds) `value` at `index` (the caller holds the mutex).
  void write(const KernelContext& ctx, std::int64_t index, const Value& value) {
    check_open(ctx);
    const std::string at = "TensorArray " + name + ": Could not write to TensorArray index " +
                           std::to_string(index) + " because ";
    if (index < 0 || (!dynamic_size && index >= static_cast<std::int64_t>(slots.size())))
      ctx.fail("TensorArray " + name + ": Tried to write to index " + std::to_string(index) +
               " but array is not resizeable and size is: " + std::to_string(slots.size()));
    if (index >= static_cast<std::int64_t>(slots.size()))
      slots.resize(static_cast<std::size_t>(index) + 1);
    Slot& s = slots[static_cast<std::size_t>(index)];
    if (value.dtype() != dtype)
      ctx.fail(at + "the value dtype is " + std::string(dtype_runtime_name(value.dtype())) +
               " but TensorArray dtype is " + std::string(dtype_runtime_name(dtype)) + ".");
    if (!element_shape.is_compatible_with(value.dims()))
      ctx.fail(at + "the value shape is " + dims_to_string(value.dims()) +
               " which is incompatible with the TensorArray's inferred element shape: " +
               partial_shape_string(element_shape) + " (consider setting infer_shape=False).");
    if (identical_element_shapes && !element_shape.is_fully_defined())
      element_shape = Shape(value.dims());
    if (s.read) ctx.fail(at + "it has already been read.");
    if (!is_grad && s.written) ctx.fail(at + "it has already been written to.");
    if (s.written) {
      if (value.dims() != s.shape)
        ctx.fail("TensorArray " + name + ": Could not aggregate to TensorArray index " +
                 std::to_string(index) + " because the existing shape is " +
                 dims_to_string(s.shape) + " but the new input shape is " +
                 dims_to_string(value.dims()) + ".");
      if (s.value.is_none() || s.value.size() == 0) {
        s.value = value;
        return;
      }
      s.value = added(s.value, value);
      return;
    }
    s.value = value;
    s.shape = value.dims();
    s.has_shape = true;
    s.written = true;
  }

  static Value added(const Value& a, const Value& b) {
    Value sum(a.dtype(), a.dims());
    visit_dtype(a.dtype(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      const T* x = a.data<T>();
      const T* y = b.data<T>();
      T* out = sum.data<T>();
      for (std::int64_t i = 0; i < a.size(); ++i) {
        if constexpr (std::is_same_v<T, bool>)
          out[i] = x[i] || y[i];
        else
          out[i] = static_cast<T>(x[i] + y[i]);
      }
    });
    return sum;
  }
};

// A handle: the array's name in the run, as a resource scalar.
inline Value array_handle(std::string name) {
  Value v(DType::resource, {});
  v.data<std::string>()[0] = std::move(name);
  return v;
}

inline std::shared_ptr<TensorArray> array_of(const KernelContext& ctx) {
  const Value& handle = ctx.input(0);
  if (handle.dtype() != DType::resource || handle.rank() != 0)
    ctx.fail("Expected a TensorArray handle (a resource scalar), got a " +
             std::string(dtype_name(handle.dtype())) + " of shape " +
             dims_to_string(handle.dims()));
  return ctx.step_resources().find<TensorArray>(handle.scalar<std::string>(), ctx.node_name());
}

// The part of `v` from row `begin` to row `end` (dimension 0), a new buffer.
inline Value rows(const Value& v, std::int64_t begin, std::int64_t end) {
  Dims dims = v.dims();
  dims[0] = end - begin;
  Value out = Value::for_overwrite(v.dtype(), dims);
  const std::size_t row_bytes =
      v.dims()[0] == 0 ? 0 : v.nbytes() / static_cast<std::size_t>(v.dims()[0]);
  if (out.nbytes() > 0)
    std::memcpy(
        out.raw_data(),
        static_cast<const char*>(v.raw_data()) + static_cast<std::size_t>(begin) * row_bytes,
        out.nbytes());
  return out;
}

// `parts` one after another along dimension 0, in a value of dims `dims`.
inline Value joined(DType dtype, const Dims& dims, const std::vector<Value>& parts) {
  Value out = Value::for_overwrite(dtype, dims);
  char* at = static_cast<char*>(out.raw_data());
  for (const Value& p : parts) {
    if (p.nbytes() > 0) std::memcpy(at, p.raw_data(), p.nbytes());
    at += p.nbytes();
  }
  return out;
}

inline void check_written_dtype(const KernelContext& ctx, const TensorArray& array,
                                const Value& value) {
  if (value.dtype() != array.dtype)
    ctx.fail("TensorArray dtype is " + std::string(dtype_runtime_name(array.dtype)) +
             " but Op is trying to write dtype " + std::string(dtype_runtime_name(value.dtype())) +
             ".");
}
inline void check_requested_dtype(const KernelContext& ctx, const TensorArray& array) {
  const DType requested = ctx.attr<DType>("dtype");
  if (requested != array.dtype)
    ctx.fail("TensorArray dtype is " + std::string(dtype_runtime_name(array.dtype)) +
             " but Op requested dtype " + std::string(dtype_runtime_name(requested)) + ".");
}

inline void tensor_array_kernel(KernelContext& ctx) {
  const std::int32_t size = ctx.input(0).scalar<std::int32_t>();
  if (size < 0) ctx.fail("Size should be >= 0.");
  auto array = std::make_shared<TensorArray>();
  array->dtype = ctx.attr<DType>("dtype");
  array->element_shape = ctx.attr<Shape>("element_shape");
  array->identical_element_shapes = ctx.attr<bool>("identical_element_shapes");
  array->dynamic_size = ctx.attr<bool>("dynamic_size");
  array->clear_after_read = ctx.attr<bool>("clear_after_read");
  array->slots.resize(static_cast<std::size_t>(size));
  const std::string& given = ctx.attr<std::string>("tensor_array_name");
  TensorArray* raw = array.get();
  const std::string name =
      ctx.step_resources().add(given.empty() ? ctx.node_name() : given, std::move(array));
  raw->name = name;
  ctx.set_output(0, array_handle(name));
  ctx.set_output(1, Value(0.0f));
}

inline void write_kernel(KernelContext& ctx) {
  const std::shared_ptr<TensorArray> array = array_of(ctx);
  const Value& index = ctx.input(1);
  if (index.rank() != 0)
    ctx.fail("TensorArray index must be scalar, but had shape: " + dims_to_string(index.dims()));
  std::lock_guard lock(array->mutex);
  check_written_dtype(ctx, *array, ctx.input(2));
  array->write(ctx, index.scalar<std::int32_t>(), ctx.input(2));
  ctx.set_output(0, ctx.input(3));
}

inline void read_kernel(KernelContext& ctx) {
  const std::shared_ptr<TensorArray> array = array_of(ctx);
  const Value& index = ctx.input(1);
  if (index.rank() != 0)
    ctx.fail("TensorArray index must be scalar, but had shape: " + dims_to_string(index.dims()));
  std::lock_guard lock(array->mutex);
  check_requested_dtype(ctx, *array);
  ctx.set_output(0, array->read(ctx, index.scalar<std::int32_t>()));
}

inline void gather_kernel(KernelContext& ctx) {
  const std::shared_ptr<TensorArray> array = array_of(ctx);
  std::lock_guard lock(array->mutex);
  check_requested_dtype(ctx, *array);
  const Shape& element_shape = ctx.attr<Shape>("element_shape");
  if (!array->element_shape.is_compatible_with(element_shape))
    ctx.fail("PartialTensorShape: Incompatible shapes during merge: " +
             partial_shape_string(array->element_shape) + " vs. " +
             partial_shape_string(element_shape));
  array->element_shape = array->element_shape.merge_with(element_shape);
  const Value& indices = ctx.input(1);
  if (indices.rank() != 1)
    ctx.fail("Expected indices to be a vector, but received shape: " +
             dims_to_string(indices.dims()));
  const std::int64_t n = indices.size();
  if (n == 0) {
    if (!element_shape.is_fully_defined())
      throw UnimplementedError("TensorArray has size zero, but element shape " +
                                   partial_shape_string(element_shape) +
                                   " is not fully defined. Currently only static shapes are "
                                   "supported when packing zero-size TensorArrays.",
                               ctx.node_name());
    Dims dims{0};
    dims.insert(dims.end(), element_shape.dims().begin(), element_shape.dims().end());
    ctx.set_output(0, Value(array->dtype, dims));
    return;
  }
  std::vector<Value> values;
  for (std::int64_t i = 0; i < n; ++i)
    values.push_back(array->read(ctx, indices.data<std::int32_t>()[i]));
  if (!element_shape.is_compatible_with(values[0].dims()))
    ctx.fail("TensorArray was passed element_shape " + partial_shape_string(element_shape) +
             " which does not match the Tensor at index 0: " + dims_to_string(values[0].dims()));
  for (std::size_t i = 1; i < values.size(); ++i)
    if (values[i].dims() != values[0].dims())
      ctx.fail("TensorArray has inconsistent shapes.  Index 0 has shape: " +
               dims_to_string(values[0].dims()) + " but index " + std::to_string(i) +
               " has shape: " + dims_to_string(values[i].dims()));
  Dims dims{n};
  dims.insert(dims.end(), values[0].dims().begin(), values[0].dims().end());
  ctx.set_output(0, joined(array->dtype, dims, values));
}

inline void scatter_kernel(KernelContext& ctx) {
  const std::shared_ptr<TensorArray> array = array_of(ctx);
  const Value& indices = ctx.input(1);
  const Value& value = ctx.input(2);
  std::lock_guard lock(array->mutex);
  check_written_dtype(ctx, *array, value);
  if (value.rank() == 0)
    ctx.fail("Input value for unpack must be at least a vector but received shape: " +
             dims_to_string(value.dims()));
  if (indices.rank() != 1)
    ctx.fail("Expected indices to be a vector, but received shape: " +
             dims_to_string(indices.dims()));
  const std::int64_t n = indices.size();
  if (n != value.dims()[0])
    ctx.fail("Expected len(indices) == values.shape[0], but saw: " + std::to_string(n) + " vs. " +
             std::to_string(value.dims()[0]));
  const std::int32_t* at = indices.data<std::int32_t>();
  if (!array->dynamic_size && n > 0) {
    const std::int32_t max_index = *std::max_element(at, at + n);
    if (max_index >= static_cast<std::int64_t>(array->slots.size()))
      ctx.fail("Max scatter index must be < array size (" + std::to_string(max_index) + " vs. " +
               std::to_string(array->slots.size()) + ")");
  }
  for (std::int64_t i = 0; i < n; ++i) {
    Value row = rows(value, i, i + 1);
    Dims element(value.dims().begin() + 1, value.dims().end());
    array->write(ctx, at[i], row.reshaped(element));
  }
  ctx.set_output(0, ctx.input(3));
}

inline void concat_kernel(KernelContext& ctx) {
  const std::shared_ptr<TensorArray> array = array_of(ctx);
  std::lock_guard lock(array->mutex);
  check_requested_dtype(ctx, *array);
  array->check_open(ctx);
  const Shape& except0 = ctx.attr<Shape>("element_shape_except0");
  const std::size_t n = array->slots.size();
  if (n == 0) {
    if (!except0.is_fully_defined())
      throw UnimplementedError("TensorArray has size zero, but element_shape_except0 " +
                                   partial_shape_string(except0) +
                                   " is not fully defined. Currently only static shapes are "
                                   "supported when concatenating zero-size TensorArrays.",
                               ctx.node_name());
    Dims dims{0};
    dims.insert(dims.end(), except0.dims().begin(), except0.dims().end());
    ctx.set_output(0, Value(array->dtype, dims));
    ctx.set_output(1, Value(DType::int64, {0}));
    return;
  }
  std::vector<Value> values;
  for (std::size_t i = 0; i < n; ++i)
    values.push_back(array->read(ctx, static_cast<std::int64_t>(i)));
  Value lengths(DType::int64, {static_cast<std::int64_t>(n)});
  std::int64_t total = 0;
  const Dims rest0 =
      values[0].rank() > 0 ? Dims(values[0].dims().begin() + 1, values[0].dims().end()) : Dims{};
  for (std::size_t i = 0; i < n; ++i) {
    if (values[i].rank() == 0)
      ctx.fail("Concat saw a scalar shape at index " + std::to_string(i) +
               " but requires at least vectors.  Did you mean to call stack instead?");
    const Dims rest(values[i].dims().begin() + 1, values[i].dims().end());
    if (rest != rest0)
      ctx.fail(
          "TensorArray has inconsistent shapes.  Index 0 has (excepting dimension 0) "
          "shape: " +
          dims_to_string(rest0) + " but index " + std::to_string(i) +
          " has (excepting dimension 0) shape: " + dims_to_string(rest));
    lengths.data<std::int64_t>()[i] = values[i].dims()[0];
    total += values[i].dims()[0];
  }
  Dims dims{total};
  dims.insert(dims.end(), rest0.begin(), rest0.end());
  ctx.set_output(0, joined(array->dtype, dims, values));
  ctx.set_output(1, std::move(lengths));
}

inline void split_kernel(KernelContext& ctx) {
  const std::shared_ptr<TensorArray> array = array_of(ctx);
  const Value& value = ctx.input(1);
  const Value& lengths = ctx.input(2);
  std::lock_guard lock(array->mutex);
  array->check_open(ctx);
  check_written_dtype(ctx, *array, value);
  if (lengths.rank() != 1)
    ctx.fail("Expected lengths to be a vector, received shape: " + dims_to_string(lengths.dims()));
  const std::int64_t n = lengths.size();
  const std::int64_t* length = lengths.data<std::int64_t>();
  std::int64_t total = 0;
  for (std::int64_t i = 0; i < n; ++i) total += length[i];
  if (value.rank() == 0)
    ctx.fail("Expected value to be at least a vector, but received shape: " +
             dims_to_string(value.dims()));
  if (total != value.dims()[0])
    ctx.fail("Expected sum of lengths to be equal to values.shape[0], but sum of lengths is " +
             std::to_string(total) + " and value's shape is: " + dims_to_string(value.dims()));
  if (array->dynamic_size && static_cast<std::int64_t>(array->slots.size()) < n)
    array->slots.resize(static_cast<std::size_t>(n));
  if (static_cast<std::int64_t>(array->slots.size()) != n)
    ctx.fail("TensorArray's size is not equal to the size of lengths (" +
             std::to_string(array->slots.size()) + " vs. " + std::to_string(n) +
             "), and the TensorArray is not marked as dynamically resizeable");
  std::int64_t begin = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    array->write(ctx, i, rows(value, begin, begin + length[i]));
    begin += length[i];
  }
  ctx.set_output(0, ctx.input(3));
}

inline void size_kernel(KernelContext& ctx) {
  const std::shared_ptr<TensorArray> array = array_of(ctx);
  std::lock_guard lock(array->mutex);
  array->check_open(ctx);
  ctx.set_output(0, Value(static_cast<std::int32_t>(array->slots.size())));
}

inline void close_kernel(KernelContext& ctx) {
  const std::shared_ptr<TensorArray> array = array_of(ctx);
  std::lock_guard lock(array->mutex);
  array->slots.clear();
  array->closed = true;
}

// The gradient array of (handle, source): made on the first call, of the forward array's
// size and element shapes then, and shared by every later call.
inline void grad_kernel(KernelContext& ctx) {
  const std::shared_ptr<TensorArray> forward = array_of(ctx);
  const std::string key = forward->name + "@" + ctx.attr<std::string>("source");
  auto make = [&] {
    std::lock_guard lock(forward->mutex);
    forward->check_open(ctx);
    auto grad = std::make_shared<TensorArray>();
    grad->name = key;
    grad->dtype = forward->dtype;
    grad->element_shape = forward->element_shape;
    grad->identical_element_shapes = forward->identical_element_shapes;
    grad->is_grad = true;
    grad->slots.resize(forward->slots.size());
    for (std::size_t i = 0; i < forward->slots.size(); ++i) {
      grad->slots[i].shape = forward->slots[i].shape;
      grad->slots[i].has_shape = forward->slots[i].has_shape;
    }
    return grad;
  };
  ctx.step_resources().find_or_add<TensorArray>(key, make, ctx.node_name());
  ctx.set_output(0, array_handle(key));
  ctx.set_output(1, ctx.input(1));
}

}  // namespace symflow::detail::tensor_array

namespace symflow::detail {

inline constexpr auto kTensorArrayCpuKernels = std::to_array<CpuKernel>({
    {&tensor_array::kTensorArrayV3Op, tensor_array::tensor_array_kernel},
    {&tensor_array::kTensorArrayWriteV3Op, tensor_array::write_kernel},
    {&tensor_array::kTensorArrayReadV3Op, tensor_array::read_kernel},
    {&tensor_array::kTensorArrayGatherV3Op, tensor_array::gather_kernel},
    {&tensor_array::kTensorArrayScatterV3Op, tensor_array::scatter_kernel},
    {&tensor_array::kTensorArrayConcatV3Op, tensor_array::concat_kernel},
    {&tensor_array::kTensorArraySplitV3Op, tensor_array::split_kernel},
    {&tensor_array::kTensorArraySizeV3Op, tensor_array::size_kernel},
    {&tensor_array::kTensorArrayCloseV3Op, tensor_array::close_kernel},
    {&tensor_array::kTensorArrayGradV3Op, tensor_array::grad_kernel},
});

}  // namespace symflow::detail
