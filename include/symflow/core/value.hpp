#pragma once
// Value: a dense host tensor (dtype + concrete dims + a shared, 64-byte aligned
// buffer). It is what feeds are made of and what Session::run returns. Copies share
// the buffer, like TensorFlow's C++ Tensor; clone() makes a deep copy. A string value's
// buffer holds constructed std::string objects, so it is never copied byte by byte.

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstring>
#include <initializer_list>
#include <limits>
#include <memory>
#include <mutex>
#include <new>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "symflow/core/buffer_pool.hpp"
#include "symflow/core/dtype.hpp"
#include "symflow/core/dtype_cast.hpp"
#include "symflow/core/errors.hpp"
#include "symflow/core/shape.hpp"

namespace symflow {

namespace detail {

// A zeroed, 64-byte aligned buffer of at least `bytes` bytes: one block from the
// BufferPool holds both the reference count and the data (allocate_shared). The
// shared_ptr<CacheLine[]> converts to shared_ptr<void> by a move (no count traffic),
// and points at the first line.
struct alignas(64) CacheLine {
  std::byte bytes[64];
};
inline std::shared_ptr<void> allocate_aligned(std::size_t bytes) {
  const std::size_t lines = std::max<std::size_t>(1, (bytes + 63) / 64);
  return std::allocate_shared<CacheLine[]>(PoolAllocator<CacheLine>(), lines);
}
// The same, not zeroed: for outputs that a kernel overwrites entirely.
inline std::shared_ptr<void> allocate_aligned_for_overwrite(std::size_t bytes) {
  const std::size_t lines = std::max<std::size_t>(1, (bytes + 63) / 64);
  return std::allocate_shared_for_overwrite<CacheLine[]>(PoolAllocator<CacheLine>(), lines);
}

// `count` empty strings, owned by the returned pointer (which points at the first).
inline std::shared_ptr<void> allocate_strings(std::size_t count) {
  return std::make_shared<std::string[]>(std::max<std::size_t>(1, count));
}

// TensorFlow's words for a host allocation that failed (or that the session's memory
// limit refused).
[[noreturn, gnu::noinline, gnu::cold]] inline void throw_out_of_memory(DType dtype,
                                                                       const Dims& dims) {
  throw ResourceExhaustedError("OOM when allocating tensor with shape" + dims_to_string(dims) +
                               " and type " + std::string(dtype_runtime_name(dtype)) +
                               " on /job:localhost/replica:0/task:0/device:CPU:0 by allocator cpu");
}

// The element count of a value's `dims`: a ValueError for a negative dim or a count
// past int64.
inline std::int64_t value_num_elements(const Dims& dims) {
  if (const auto count = checked_num_elements(dims)) [[likely]]
    return *count;
  for (auto d : dims)
    if (d < 0) throw ValueError("Value dims must be non-negative, got " + dims_to_string(dims));
  throw ValueError(too_many_elements_message(dims));
}

// The bytes of a value of `dtype` and `dims`: value_num_elements' errors, and a
// ResourceExhaustedError for bytes past int64 or past this thread's allocation_limit().
inline std::size_t checked_value_bytes(DType dtype, const Dims& dims) {
  const auto bytes = checked_nbytes(value_num_elements(dims), dtype_size(dtype));
  const std::int64_t limit = allocation_limit();
  if (!bytes || (limit > 0 && *bytes > limit)) [[unlikely]]
    throw_out_of_memory(dtype, dims);
  return static_cast<std::size_t>(*bytes);
}

// A new buffer for a value of `dtype` and `dims` (zeroed unless `for_overwrite`; empty
// strings for a string value): std::bad_alloc becomes TensorFlow's ResourceExhaustedError.
inline std::shared_ptr<void> allocate_value(DType dtype, const Dims& dims, bool for_overwrite) {
  const std::size_t bytes = checked_value_bytes(dtype, dims);
  try {
    if (stores_strings(dtype)) return allocate_strings(bytes / dtype_size(dtype));
    return for_overwrite ? allocate_aligned_for_overwrite(bytes) : allocate_aligned(bytes);
  } catch (const std::bad_alloc&) {
    throw_out_of_memory(dtype, dims);
  }
}

template <class T>
struct is_initializer_list : std::false_type {};
template <class T>
struct is_initializer_list<std::initializer_list<T>> : std::true_type {};

// Shape and row-major elements of a nested initializer list of any depth.
template <class T, class Item>
void flatten_into(std::initializer_list<Item> list, std::size_t depth, Dims& dims,
                  std::vector<T>& out) {
  if (dims.size() <= depth) dims.push_back(static_cast<std::int64_t>(list.size()));
  if (dims[depth] != static_cast<std::int64_t>(list.size()))
    throw ValueError("Nested list is ragged: expected " + std::to_string(dims[depth]) +
                     " elements at depth " + std::to_string(depth) + ", got " +
                     std::to_string(list.size()));
  if constexpr (is_initializer_list<Item>::value) {
    for (auto inner : list) flatten_into(inner, depth + 1, dims, out);
  } else {
    out.insert(out.end(), list.begin(), list.end());
  }
}

}  // namespace detail

// Where a value's elements live: host memory, which any code may read, or a
// device's memory (backend/thrust), which only that device's kernels and copies touch.
enum class MemorySpace : std::uint8_t { host, device };

class Value {
 public:
  // An empty value: what run() returns for a fetched operation (Python's None).
  Value() = default;

  // Zero-filled value of the given type and dims (empty strings for a string value).
  Value(DType dtype, Dims dims) : dtype_(dtype), dims_(std::move(dims)) {
    if (dtype_ == DType::invalid) throw TypeError("Cannot make a value of dtype invalid");
    owner_ = detail::allocate_value(dtype_, dims_, false);
    data_ = owner_.get();
  }

  // A value whose elements are left as the pool's block had them: for a kernel output
  // that is written entirely (skips the zero fill, which for a large product or
  // convolution costs a pass over memory).
  static Value for_overwrite(DType dtype, Dims dims) {
    if (dtype == DType::invalid) throw TypeError("Cannot make a value of dtype invalid");
    if (stores_strings(dtype)) return Value(dtype, std::move(dims));
    Value v;
    v.owner_ = detail::allocate_value(dtype, dims, true);
    v.dtype_ = dtype;
    v.dims_ = std::move(dims);
    v.data_ = v.owner_.get();
    return v;
  }

  // Copies share the buffer; a moved-from value is empty (is_none()), never dangling.
  Value(const Value&) = default;
  Value& operator=(const Value&) = default;
  Value(Value&& other) noexcept
      : dtype_(std::exchange(other.dtype_, DType::invalid)),
        dims_(std::move(other.dims_)),  // leaves other's dims empty
        data_(std::exchange(other.data_, nullptr)),
        owner_(std::move(other.owner_)),
        space_(std::exchange(other.space_, MemorySpace::host)) {}
  Value& operator=(Value&& other) noexcept {
    if (this != &other) {
      dtype_ = std::exchange(other.dtype_, DType::invalid);
      dims_ = std::move(other.dims_);
      data_ = std::exchange(other.data_, nullptr);
      owner_ = std::move(other.owner_);
      space_ = std::exchange(other.space_, MemorySpace::host);
    }
    return *this;
  }
  ~Value() = default;

  // A scalar. Implicit for numbers, like a Python literal; explicit for a std::string, so
  // that a name never turns into a value by accident.
  template <Element T>
  explicit(std::is_same_v<T, std::string>) Value(T scalar)  // NOLINT
      : Value(dtype_v<T>, Dims{}) {
    *static_cast<T*>(data_) = std::move(scalar);
  }
  // A string scalar from a literal: Value("hello") is tf.constant(b"hello")'s value.
  explicit Value(const char* bytes) : Value(std::string(bytes)) {}

  // Nested lists: {1, 2}, {{1, 2}, {3, 4}}, ... (ragged lists are a ValueError).
  template <Element T>
  Value(std::initializer_list<T> list) {
    init_from_list(list);
  }
  template <Element T>
  Value(std::initializer_list<std::initializer_list<T>> list) {
    init_from_list(list);
  }
  template <Element T>
  Value(std::initializer_list<std::initializer_list<std::initializer_list<T>>> list) {
    init_from_list(list);
  }

  // Copies `elements` (row-major) into a new value of the given dims.
  template <Element T>
  static Value from_vector(const std::vector<T>& elements, Dims dims) {
    check_dims(dims);
    if (static_cast<std::int64_t>(elements.size()) != num_elements(dims))
      throw ValueError("Cannot make a value of shape " + dims_to_string(dims) + " from " +
                       std::to_string(elements.size()) + " elements");
    Value v(dtype_v<T>, std::move(dims));
    std::copy(elements.begin(), elements.end(), v.data<T>());
    return v;
  }

  // Wraps memory kept alive by `owner` (no copy). The caller guarantees the layout.
  static Value wrap(DType dtype, Dims dims, void* data, std::shared_ptr<void> owner) {
    if (dtype == DType::invalid) throw TypeError("Cannot wrap a buffer as dtype invalid");
    check_dims(dims);
    Value v;
    v.dtype_ = dtype;
    v.dims_ = std::move(dims);
    v.data_ = data;
    v.owner_ = std::move(owner);
    return v;
  }

  // Wraps device memory kept alive by `owner`: only device kernels and the device's
  // copies may touch its elements (data<T>() refuses).
  static Value wrap_device(DType dtype, Dims dims, void* data, std::shared_ptr<void> owner) {
    Value v = wrap(dtype, std::move(dims), data, std::move(owner));
    v.space_ = MemorySpace::device;
    return v;
  }

  // A value of `dims` with every element equal to `fill`.
  template <Element T>
  static Value filled(Dims dims, T fill) {
    Value v(dtype_v<T>, std::move(dims));
    std::fill_n(v.data<T>(), v.size(), fill);
    return v;
  }

  bool is_none() const { return dtype_ == DType::invalid; }
  DType dtype() const { return dtype_; }
  const Dims& dims() const { return dims_; }
  Shape shape() const { return Shape(dims_); }
  int rank() const { return static_cast<int>(dims_.size()); }
  std::int64_t size() const { return is_none() ? 0 : num_elements(dims_); }
  std::size_t nbytes() const { return static_cast<std::size_t>(size()) * dtype_size(dtype_); }

  MemorySpace memory_space() const { return space_; }
  bool on_device() const { return space_ == MemorySpace::device; }

  void* raw_data() {
    check_host();
    return data_;
  }
  const void* raw_data() const {
    check_host();
    return data_;
  }

  template <Element T>
  T* data() {
    check_type<T>();
    check_host();
    return static_cast<T*>(data_);
  }
  template <Element T>
  const T* data() const {
    check_type<T>();
    check_host();
    return static_cast<const T*>(data_);
  }
  // The elements wherever they live: for device kernels, which know the memory space.
  void* device_data_raw() { return data_; }
  const void* device_data_raw() const { return data_; }
  template <Element T>
  T* device_data() {
    check_type<T>();
    return static_cast<T*>(data_);
  }
  template <Element T>
  const T* device_data() const {
    check_type<T>();
    return static_cast<const T*>(data_);
  }
  template <Element T>
  std::span<T> flat() {
    return {data<T>(), static_cast<std::size_t>(size())};
  }
  template <Element T>
  std::span<const T> flat() const {
    return {data<T>(), static_cast<std::size_t>(size())};
  }
  template <Element T>
  std::vector<T> to_vector() const {
    auto f = flat<T>();
    return {f.begin(), f.end()};
  }

  // The one element of a scalar (or single-element) value.
  template <Element T>
  T scalar() const {
    if (size() != 1)
      throw ValueError("scalar() needs a value with one element, got shape " +
                       dims_to_string(dims_));
    return *data<T>();
  }

  // Element at a row-major multi-index.
  template <Element T>
  T at(std::initializer_list<std::int64_t> index) const {
    if (index.size() != dims_.size())
      throw ValueError("Index of rank " + std::to_string(index.size()) + " for a value of rank " +
                       std::to_string(dims_.size()));
    std::int64_t offset = 0;
    std::size_t axis = 0;
    for (auto i : index) {
      if (i < 0 || i >= dims_[axis])
        throw ValueError("index " + std::to_string(i) + " is out of bounds for axis " +
                         std::to_string(axis) + " with size " + std::to_string(dims_[axis]));
      offset = offset * dims_[axis++] + i;
    }
    return data<T>()[offset];
  }

  // Same buffer, new dims with the same number of elements.
  Value reshaped(Dims dims) const {
    check_dims(dims);
    if (is_none() || num_elements(dims) != size())
      throw ValueError("Cannot reshape a value of shape " + dims_to_string(dims_) + " to " +
                       dims_to_string(dims));
    Value v = *this;
    v.dims_ = std::move(dims);
    return v;
  }

  // A host copy of a host value (a device's backend copies device values).
  Value clone() const {
    if (is_none()) return {};
    check_host();
    Value v(dtype_, dims_);
    if (stores_strings(dtype_))
      std::copy_n(static_cast<const std::string*>(data_), size(),
                  static_cast<std::string*>(v.data_));
    else if (nbytes())
      std::memcpy(v.data_, data_, nbytes());
    return v;
  }

  // The same elements converted to `dtype` (NumPy's astype); shares the buffer
  // when the type already matches. Out-of-range floats become the integer type's
  // lowest value, as TensorFlow's x86 casts give.
  Value astype(DType dtype) const;

  // How many owners the buffer has (this value included); 0 for None.
  long buffer_owners() const { return owner_.use_count(); }

  // True when both values have elements at the same address (copies and reshapes of one value).
  bool shares_buffer_with(const Value& other) const {
    return data_ != nullptr && data_ == other.data_;
  }

  // Same dtype, dims and bytes: NaN equals a NaN with the same bits, -0.0 differs from 0.0.
  friend bool operator==(const Value& a, const Value& b) {
    if (a.dtype_ != b.dtype_ || a.dims_ != b.dims_) return false;
    if (a.is_none()) return true;
    a.check_host();
    b.check_host();
    if (stores_strings(a.dtype_)) {
      auto* x = static_cast<const std::string*>(a.data_);
      return std::equal(x, x + a.size(), static_cast<const std::string*>(b.data_));
    }
    return std::memcmp(a.data_, b.data_, a.nbytes()) == 0;
  }

 private:
  // Dims a value may have: none negative, and an element count within int64.
  static void check_dims(const Dims& dims) { (void)detail::value_num_elements(dims); }

  // The checks stay small enough to inline into every data<T>(); their messages are
  // built out of line.
  void check_host() const {
    if (space_ != MemorySpace::host) [[unlikely]]
      fail_not_host();
  }
  [[noreturn, gnu::noinline, gnu::cold]] void fail_not_host() const {
    throw FailedPreconditionError("A " + std::string(dtype_name(dtype_)) + " value of shape " +
                                  dims_to_string(dims_) +
                                  " lives in device memory: copy it to the host (a Session's "
                                  "fetches are) before reading its elements");
  }

  template <class T>
  void check_type() const {
    // A resource handle is read as the string it is stored as.
    if (dtype_ != dtype_v<T> && !(std::is_same_v<T, std::string> && dtype_ == DType::resource))
        [[unlikely]]
      fail_type(dtype_v<T>);
  }
  [[noreturn, gnu::noinline, gnu::cold]] void fail_type(DType wanted) const {
    throw TypeError("Value holds " + std::string(dtype_name(dtype_)) + ", not " +
                    std::string(dtype_name(wanted)));
  }

  template <class T>
  struct list_traits {
    using element = T;
    static constexpr std::size_t depth = 0;
  };
  template <class T>
  struct list_traits<std::initializer_list<T>> {
    using element = typename list_traits<T>::element;
    static constexpr std::size_t depth = 1 + list_traits<T>::depth;
  };

  template <class List>
  void init_from_list(List list) {
    using T = typename list_traits<List>::element;
    Dims dims;
    std::vector<T> elements;
    detail::flatten_into(list, 0, dims, elements);
    // An empty outer list still has the list's full rank: {} of depth k is [0, ...].
    while (dims.size() < list_traits<List>::depth) dims.push_back(0);
    *this = from_vector(elements, std::move(dims));
  }

  DType dtype_ = DType::invalid;
  Dims dims_;
  void* data_ = nullptr;
  std::shared_ptr<void> owner_;
  MemorySpace space_ = MemorySpace::host;
};

inline Value Value::astype(DType dtype) const {
  if (dtype == dtype_ || is_none()) return *this;
  if (stores_strings(dtype) || stores_strings(dtype_))  // TensorFlow's Cast has no such kernel
    throw UnimplementedError("Cast " + std::string(dtype_runtime_name(dtype_)) + " to " +
                             std::string(dtype_runtime_name(dtype)) + " is not supported");
  Value out(dtype, dims_);
  if (is_storage_dtype(dtype) || is_storage_dtype(dtype_)) {
    cast_elements(dtype_, raw_data(), dtype, out.raw_data(), size());
    return out;
  }
  visit_dtype(dtype_, [&](auto from) {
    using S = typename decltype(from)::type;
    visit_dtype(dtype, [&](auto to) {
      using D = typename decltype(to)::type;
      const S* in = data<S>();
      D* o = out.data<D>();
      for (std::int64_t i = 0; i < size(); ++i) {
        if constexpr (std::is_same_v<D, bool>) {
          o[i] = in[i] != S{0};
        } else if constexpr (std::is_floating_point_v<S> && std::is_integral_v<D>) {
          constexpr double lo = static_cast<double>(std::numeric_limits<D>::lowest());
          constexpr double hi = static_cast<double>(std::numeric_limits<D>::max());
          double x = static_cast<double>(in[i]);
          o[i] = (x >= lo && x < hi) ? static_cast<D>(x) : std::numeric_limits<D>::lowest();
        } else {
          o[i] = static_cast<D>(in[i]);
        }
      }
    });
  });
  return out;
}

}  // namespace symflow
