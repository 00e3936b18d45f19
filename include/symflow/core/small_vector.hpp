#pragma once
// SmallVector<T, N>: a std::vector<T> look-alike (for trivially copyable T) that
// keeps up to N elements inside itself, and more on the heap. Dims (core/shape.hpp)
// is one: every Value carries one and every kernel computes a few, so a heap block
// per Dims would be most of what a steady Session::run allocates. It converts to
// and from std::vector<T> implicitly, for attrs and user code.

#include <algorithm>
#include <compare>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <iterator>
#include <stdexcept>
#include <type_traits>
#include <utility>
#include <vector>

namespace symflow {

template <class T, std::size_t N>
class SmallVector {
  static_assert(std::is_trivially_copyable_v<T>, "SmallVector copies its elements as bytes");

 public:
  static constexpr std::size_t kInline = N;

  using value_type = T;
  using size_type = std::size_t;
  using difference_type = std::ptrdiff_t;
  using reference = T&;
  using const_reference = const T&;
  using pointer = T*;
  using const_pointer = const T*;
  using iterator = T*;
  using const_iterator = const T*;
  using reverse_iterator = std::reverse_iterator<iterator>;
  using const_reverse_iterator = std::reverse_iterator<const_iterator>;

  SmallVector() noexcept = default;
  explicit SmallVector(size_type n) { assign(n, T{}); }
  SmallVector(size_type n, T value) { assign(n, value); }
  template <std::input_iterator It>
  SmallVector(It first, It last) {
    assign(first, last);
  }
  SmallVector(std::initializer_list<T> list) { assign(list.begin(), list.end()); }
  SmallVector(const std::vector<T>& v) {  // NOLINT: implicit, for interop
    assign(v.begin(), v.end());
  }
  SmallVector(const SmallVector& other) { assign(other.begin(), other.end()); }
  SmallVector(SmallVector&& other) noexcept { take(other); }
  SmallVector& operator=(const SmallVector& other) {
    if (this != &other) assign(other.begin(), other.end());
    return *this;
  }
  SmallVector& operator=(SmallVector&& other) noexcept {
    if (this != &other) {
      if (on_heap()) delete[] data_;
      take(other);
    }
    return *this;
  }
  SmallVector& operator=(std::initializer_list<T> list) {
    assign(list.begin(), list.end());
    return *this;
  }
  ~SmallVector() {
    if (on_heap()) delete[] data_;
  }

  operator std::vector<T>() const {  // NOLINT: implicit, for interop
    return std::vector<T>(begin(), end());
  }

  size_type size() const noexcept { return size_; }
  bool empty() const noexcept { return size_ == 0; }
  size_type capacity() const noexcept { return capacity_; }
  T* data() noexcept { return data_; }
  const T* data() const noexcept { return data_; }

  iterator begin() noexcept { return data_; }
  iterator end() noexcept { return data_ + size_; }
  const_iterator begin() const noexcept { return data_; }
  const_iterator end() const noexcept { return data_ + size_; }
  const_iterator cbegin() const noexcept { return begin(); }
  const_iterator cend() const noexcept { return end(); }
  reverse_iterator rbegin() noexcept { return reverse_iterator(end()); }
  reverse_iterator rend() noexcept { return reverse_iterator(begin()); }
  const_reverse_iterator rbegin() const noexcept { return const_reverse_iterator(end()); }
  const_reverse_iterator rend() const noexcept { return const_reverse_iterator(begin()); }

  T& operator[](size_type i) noexcept { return data_[i]; }
  const T& operator[](size_type i) const noexcept { return data_[i]; }
  T& at(size_type i) {
    if (i >= size_) throw std::out_of_range("SmallVector::at: index out of range");
    return data_[i];
  }
  const T& at(size_type i) const {
    if (i >= size_) throw std::out_of_range("SmallVector::at: index out of range");
    return data_[i];
  }
  T& front() noexcept { return data_[0]; }
  const T& front() const noexcept { return data_[0]; }
  T& back() noexcept { return data_[size_ - 1]; }
  const T& back() const noexcept { return data_[size_ - 1]; }

  void reserve(size_type n) {
    if (n <= capacity_) return;
    auto* grown = new T[n];
    std::copy(begin(), end(), grown);
    release();
    data_ = grown;
    capacity_ = n;
  }
  void clear() noexcept { size_ = 0; }
  void resize(size_type n, T value = T{}) {
    reserve(n);
    if (n > size_) std::fill(data_ + size_, data_ + n, value);
    size_ = n;
  }
  void assign(size_type n, T value) {
    size_ = 0;
    resize(n, value);
  }
  template <std::input_iterator It>
  void assign(It first, It last) {
    if constexpr (std::forward_iterator<It>) {
      const auto n = static_cast<size_type>(std::distance(first, last));
      if (n > capacity_) {
        size_ = 0;
        reserve(n);
      }
      std::copy(first, last, data_);
      size_ = n;
    } else {
      clear();
      for (; first != last; ++first) push_back(*first);
    }
  }
  void assign(std::initializer_list<T> list) { assign(list.begin(), list.end()); }

  void push_back(T value) {
    if (size_ == capacity_) reserve(capacity_ * 2);
    data_[size_++] = value;
  }
  T& emplace_back(T value) {
    push_back(value);
    return back();
  }
  void pop_back() noexcept { --size_; }

  iterator insert(const_iterator pos, T value) { return insert(pos, size_type{1}, value); }
  iterator insert(const_iterator pos, size_type n, T value) {
    const auto at = open_gap(pos, n);
    std::fill(data_ + at, data_ + at + n, value);
    return data_ + at;
  }
  template <std::input_iterator It>
  iterator insert(const_iterator pos, It first, It last) {
    const SmallVector items(first, last);  // the range may be part of this vector
    const auto at = open_gap(pos, items.size());
    std::copy(items.begin(), items.end(), data_ + at);
    return data_ + at;
  }
  iterator insert(const_iterator pos, std::initializer_list<T> list) {
    return insert(pos, list.begin(), list.end());
  }
  iterator erase(const_iterator pos) { return erase(pos, pos + 1); }
  iterator erase(const_iterator first, const_iterator last) {
    const auto at = static_cast<size_type>(first - data_);
    const auto n = static_cast<size_type>(last - first);
    std::copy(data_ + at + n, data_ + size_, data_ + at);
    size_ -= n;
    return data_ + at;
  }
  void swap(SmallVector& other) noexcept {
    SmallVector tmp(std::move(other));
    other = std::move(*this);
    *this = std::move(tmp);
  }

  friend bool operator==(const SmallVector& a, const SmallVector& b) noexcept {
    return a.size_ == b.size_ && std::equal(a.begin(), a.end(), b.begin());
  }
  friend std::strong_ordering operator<=>(const SmallVector& a, const SmallVector& b) noexcept {
    return std::lexicographical_compare_three_way(a.begin(), a.end(), b.begin(), b.end());
  }

 private:
  bool on_heap() const noexcept { return data_ != inline_; }
  void release() noexcept {
    if (on_heap()) delete[] data_;
    data_ = inline_;
    capacity_ = kInline;
  }
  // Moves other's elements here, over whatever this held (its heap block, if any, is
  // already freed); other is left empty (and inline).
  void take(SmallVector& other) noexcept {
    if (other.on_heap()) {
      data_ = other.data_;
      capacity_ = other.capacity_;
      other.data_ = other.inline_;
      other.capacity_ = kInline;
    } else {
      data_ = inline_;
      capacity_ = kInline;
      std::copy(other.begin(), other.end(), inline_);
    }
    size_ = other.size_;
    other.size_ = 0;
  }
  // Makes room for n elements at pos; returns pos as an index.
  size_type open_gap(const_iterator pos, size_type n) {
    const auto at = static_cast<size_type>(pos - data_);
    if (size_ + n > capacity_) reserve(std::max(size_ + n, capacity_ * 2));
    std::copy_backward(data_ + at, data_ + size_, data_ + size_ + n);
    size_ += n;
    return at;
  }

  T* data_ = inline_;
  size_type size_ = 0;
  size_type capacity_ = kInline;
  // Not zeroed: only [data_, data_ + size_) is ever read, and an empty one is made for
  // every Value and every output a step resets (the zeroing was a fifth of a scalar
  // step's own time).
  T inline_[kInline];
};

}  // namespace symflow
