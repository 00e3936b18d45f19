#pragma once
// Thrust kernels: random ops (RandomStandardNormal, RandomUniform, TruncatedNormal,
// RandomUniformInt, RandomShuffle) that give the CPU kernels' numbers for the same seeds
// (backend/cpu/kernels/random.hpp), as TensorFlow's GPU and CPU kernels agree.
//
// The CPU draws from Philox4x32-10, a counter-based generator: output group g (4 floats,
// 2 doubles, 4 int32 or 2 int64) is made from the result at counter base + g, and a
// truncated-normal group g from its own stream starting at base + g * 256 * group / 4.
// So each group is computed on the device by its own thread from the base state, with
// the CPU's bit manipulations and formulas. The base state comes from the node's
// generator kept in the session (ctx.state: the CPU's NodeGenerator itself), reserved
// exactly as the CPU reserves it, so successive runs continue one sequence and a new
// session starts it over, on either device.
//
// RandomShuffle's Fisher-Yates is sequential: its permutation is drawn on the HOST with
// the CPU's very code and draws (n - 1 numbers, cheap), copied to the device, and the
// rows are gathered on the device.
//
// Parity: uniform floats and integers are bit-exact everywhere. Normal and truncated
// normal values are bit-exact under g++ (Thrust OMP/CPP: the same libm); under CUDA the
// device's logf/sinf/cosf/sqrt may differ from glibc's by an ulp or two.

#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "symflow/backend/cpu/kernels/math.hpp"
#include "symflow/backend/cpu/kernels/random.hpp"
#include "symflow/backend/thrust/kernel_util.cuh"
#include "symflow/ops/defs/random.hpp"

namespace symflow::thrust_backend {

namespace random_kernels {

namespace sd = symflow::detail;

// Philox4x32-10 as detail::PhiloxRandom computes it, device-safe.
struct DevicePhilox {
  std::uint32_t counter[4];
  std::uint32_t key[2];

  SYMFLOW_HD void skip(std::uint64_t count) {
    const auto count_lo = static_cast<std::uint32_t>(count);
    auto count_hi = static_cast<std::uint32_t>(count >> 32);
    counter[0] += count_lo;
    if (counter[0] < count_lo) ++count_hi;
    counter[1] += count_hi;
    if (counter[1] < count_hi && ++counter[2] == 0) ++counter[3];
  }

  SYMFLOW_HD void next(std::uint32_t (&out)[4]) {
    std::uint32_t c0 = counter[0], c1 = counter[1], c2 = counter[2], c3 = counter[3];
    std::uint32_t k0 = key[0], k1 = key[1];
    for (int round = 0; round < 10; ++round) {
      const std::uint64_t p0 = std::uint64_t{0xD2511F53u} * c0;
      const std::uint64_t p1 = std::uint64_t{0xCD9E8D57u} * c2;
      const std::uint32_t n0 = static_cast<std::uint32_t>(p1 >> 32) ^ c1 ^ k0;
      const std::uint32_t n1 = static_cast<std::uint32_t>(p1);
      const std::uint32_t n2 = static_cast<std::uint32_t>(p0 >> 32) ^ c3 ^ k1;
      const std::uint32_t n3 = static_cast<std::uint32_t>(p0);
      c0 = n0;
      c1 = n1;
      c2 = n2;
      c3 = n3;
      k0 += 0x9E3779B9u;
      k1 += 0xBB67AE85u;
    }
    out[0] = c0;
    out[1] = c1;
    out[2] = c2;
    out[3] = c3;
    skip(1);
  }
};

// The state of a host generator, as the device runs it.
inline DevicePhilox device_philox(const sd::PhiloxRandom& gen) {
  DevicePhilox d;
  for (std::size_t i = 0; i < 4; ++i) d.counter[i] = gen.counter()[i];
  for (std::size_t i = 0; i < 2; ++i) d.key[i] = gen.key()[i];
  return d;
}

// TensorFlow's SingleSampleAdapter over a DevicePhilox.
struct DeviceSingleSample {
  DevicePhilox* gen;
  std::uint32_t buffer[4];
  int used;
  SYMFLOW_HD std::uint32_t operator()() {
    if (used == 4) {
      gen->next(buffer);
      used = 0;
    }
    return buffer[used++];
  }
};

// ---- distributions: detail's, device-safe ------------------------------------------------

SYMFLOW_HD inline float uint32_to_float(std::uint32_t x) {
  const std::uint32_t bits = (std::uint32_t{127} << 23) | (x & 0x7fffffu);
  float f;
  memcpy(&f, &bits, sizeof f);
  return f - 1.0f;
}
SYMFLOW_HD inline double uint64_to_double(std::uint32_t x0, std::uint32_t x1) {
  const std::uint64_t mantissa = (std::uint64_t{x0 & 0xfffffu} << 32) | x1;
  const std::uint64_t bits = (std::uint64_t{1023} << 52) | mantissa;
  double d;
  memcpy(&d, &bits, sizeof d);
  return d - 1.0;
}

// std::numbers::pi (the double nearest pi).
constexpr double kPi = 3.141592653589793238462643383279502884;

SYMFLOW_HD inline void box_muller(std::uint32_t x0, std::uint32_t x1, float& f0, float& f1) {
  float u1 = uint32_to_float(x0);
  if (u1 < 1.0e-7f) u1 = 1.0e-7f;
  const auto v1 = static_cast<float>(2.0f * kPi * uint32_to_float(x1));
  const float u2 = std::sqrt(-2.0f * std::log(u1));
  f0 = std::sin(v1) * u2;
  f1 = std::cos(v1) * u2;
}
SYMFLOW_HD inline void box_muller(std::uint32_t x0, std::uint32_t x1, std::uint32_t x2,
                                  std::uint32_t x3, double& d0, double& d1) {
  double u1 = uint64_to_double(x0, x1);
  if (u1 < 1.0e-7) u1 = 1.0e-7;
  const double v1 = 2.0 * kPi * uint64_to_double(x2, x3);
  const double u2 = std::sqrt(-2.0 * std::log(u1));
  d0 = std::sin(v1) * u2;
  d1 = std::cos(v1) * u2;
}

template <class T>
inline constexpr int kGroup = std::is_same_v<T, float> ? 4 : 2;

// Writes the group's values r[0..kGroup) at group g of out (the last group may be short).
template <class T, int N>
SYMFLOW_HD inline void store_group(T* out, std::int64_t n, std::int64_t g, const T (&r)[N]) {
  const std::int64_t offset = g * N;
  for (int k = 0; k < N && offset + k < n; ++k) out[offset + k] = r[k];
}

enum class Dist { uniform, normal, truncated_normal };

template <class T, Dist D>
struct FloatGroups {
  DevicePhilox base;
  T* out;
  std::int64_t n;
  SYMFLOW_HD void operator()(std::int64_t g) const {
    constexpr int N = kGroup<T>;
    T r[N];
    DevicePhilox gen = base;
    if constexpr (D == Dist::truncated_normal) {
      // Group g's own stream (fill_truncated), drawn one Box-Muller pair at a time.
      gen.skip(static_cast<std::uint64_t>(g) * (N * 256 / 4));
      DeviceSingleSample single{&gen, {0, 0, 0, 0}, 4};
      int k = 0;
      while (k < N) {
        T f[2];
        if constexpr (std::is_same_v<T, float>) {
          const std::uint32_t x0 = single(), x1 = single();
          box_muller(x0, x1, f[0], f[1]);
        } else {
          const std::uint32_t x0 = single(), x1 = single(), x2 = single(), x3 = single();
          box_muller(x0, x1, x2, x3, f[0], f[1]);
        }
        for (int j = 0; j < 2 && k < N; ++j)
          if (std::fabs(f[j]) < T(2)) r[k++] = f[j];
      }
    } else {
      gen.skip(static_cast<std::uint64_t>(g));
      std::uint32_t s[4];
      gen.next(s);
      if constexpr (D == Dist::uniform) {
        if constexpr (std::is_same_v<T, float>) {
          for (int k = 0; k < 4; ++k) r[k] = uint32_to_float(s[k]);
        } else {
          r[0] = uint64_to_double(s[0], s[1]);
          r[1] = uint64_to_double(s[2], s[3]);
        }
      } else {
        if constexpr (std::is_same_v<T, float>) {
          box_muller(s[0], s[1], r[0], r[1]);
          box_muller(s[2], s[3], r[2], r[3]);
        } else {
          box_muller(s[0], s[1], s[2], s[3], r[0], r[1]);
        }
      }
    }
    store_group<T, N>(out, n, g, r);
  }
};

// RandomUniformInt's groups: lo + bits % range, wrapping, as the CPU computes it.
template <class T>
struct IntGroups {
  using U = std::make_unsigned_t<T>;
  static constexpr int N = sizeof(T) == 4 ? 4 : 2;
  DevicePhilox base;
  T lo;
  U range;
  T* out;
  std::int64_t n;
  SYMFLOW_HD void operator()(std::int64_t g) const {
    DevicePhilox gen = base;
    gen.skip(static_cast<std::uint64_t>(g));
    std::uint32_t s[4];
    gen.next(s);
    T r[N];
    for (int i = 0; i < N; ++i) {
      U bits;
      if constexpr (sizeof(T) == 4)
        bits = s[i];
      else
        bits = s[2 * i] | (std::uint64_t{s[2 * i + 1]} << 32);
      r[i] = static_cast<T>(static_cast<U>(static_cast<U>(lo) + bits % range));
    }
    store_group<T, N>(out, n, g, r);
  }
};

// out's row i is in's row perm[i].
template <class T>
struct GatherRows {
  const T* in;
  const std::int64_t* perm;
  std::int64_t row;
  T* out;
  SYMFLOW_HD void operator()(std::int64_t j) const {
    const std::int64_t r = j / row;
    out[j] = in[perm[r] * row + (j - r * row)];
  }
};

template <class F>
void launch_n(std::int64_t n, const F& f) {
  if (n <= 0) return;
  thrust::for_each(policy(), thrust::counting_iterator<std::int64_t>(0),
                   thrust::counting_iterator<std::int64_t>(n), f);
}

// ---- kernels ----------------------------------------------------------------------------------

// detail::random_output with the shape read on the host: uninitialised, filled by the caller.
inline Value& random_output(KernelContext& ctx, DType dtype) {
  const Value& shape = ctx.input(0);
  if (shape.rank() != 1)
    ctx.fail("shape must be a vector of {int32,int64}, got shape " + dims_to_string(shape.dims()));
  Dims dims = sd::shape_argument(host_value(shape));
  for (auto d : dims)
    if (d < 0) ctx.fail("Dimension " + std::to_string(d) + " must be >= 0");
  return output(ctx, 0, dtype, std::move(dims));
}

template <class T, Dist D>
void fill_float(Value& out, const sd::PhiloxRandom& gen) {
  const std::int64_t n = out.size();
  if (n == 0) return;
  constexpr int N = kGroup<T>;
  launch_n((n + N - 1) / N, FloatGroups<T, D>{device_philox(gen), out.device_data<T>(), n});
}

template <Dist D>
void random_float_kernel(KernelContext& ctx) {
  const DType dtype = ctx.attr<DType>("dtype");
  Value& out = random_output(ctx, dtype);
  const sd::PhiloxRandom gen = sd::node_generator(ctx).reserve_outputs(out.size());
  switch (dtype) {
    case DType::float32:
      fill_float<float, D>(out, gen);
      break;
    case DType::float64:
      fill_float<double, D>(out, gen);
      break;
    default:
      sd::unsupported_dtype(ctx, dtype);
  }
}

template <class T>
void fill_int(KernelContext& ctx, Value& out) {
  using U = std::make_unsigned_t<T>;
  const T lo = host_value(ctx.input(1)).scalar<T>();
  const T hi = host_value(ctx.input(2)).scalar<T>();
  if (!(lo < hi))
    ctx.fail("Need minval < maxval, got " + std::to_string(lo) + " >= " + std::to_string(hi));
  const U range = static_cast<U>(static_cast<U>(hi) - static_cast<U>(lo));
  const sd::PhiloxRandom gen = sd::node_generator(ctx).reserve_outputs(out.size());
  const std::int64_t n = out.size();
  constexpr int N = IntGroups<T>::N;
  launch_n((n + N - 1) / N, IntGroups<T>{device_philox(gen), lo, range, out.device_data<T>(), n});
}

inline void random_uniform_int_kernel(KernelContext& ctx) {
  for (std::size_t i = 1; i < 3; ++i)
    if (ctx.input(i).rank() != 0)
      ctx.fail(std::string(i == 1 ? "minval" : "maxval") + " must be 0-D, got shape " +
               dims_to_string(ctx.input(i).dims()));
  const DType dtype = ctx.attr<DType>("Tout");
  Value& out = random_output(ctx, dtype);
  if (out.size() == 0) return;  // zero impossible draws are fine, as in TensorFlow
  switch (dtype) {
    case DType::int32:
      fill_int<std::int32_t>(ctx, out);
      break;
    case DType::int64:
      fill_int<std::int64_t>(ctx, out);
      break;
    default:
      sd::unsupported_dtype(ctx, dtype);
  }
}

template <class T>
void gather_rows(const Value& in, const Value& perm, std::int64_t row, Value& out) {
  launch_n(out.size(), GatherRows<T>{in.device_data<T>(), perm.device_data<std::int64_t>(), row,
                                     out.device_data<T>()});
}

inline void random_shuffle_kernel(KernelContext& ctx) {
  // The permutation, on the host, exactly as the CPU kernel draws it.
  const std::optional<std::vector<std::int64_t>> perm = sd::shuffle_permutation(ctx);
  if (!perm) return;
  const Value& in = ctx.input(0);
  const std::int64_t n = in.dims()[0];
  const Value device_perm = copy_to_device(Value::from_vector(*perm, {n}));
  Value& out = output(ctx, 0, in.dtype(), in.dims());
  const std::int64_t row = in.size() / n;
  visit_dtype(in.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    gather_rows<T>(in, device_perm, row, out);
  });
}

}  // namespace random_kernels

inline constexpr auto kRandomKernels = std::to_array<KernelEntry>({
    {&symflow::detail::kRandomStandardNormalOp,
     random_kernels::random_float_kernel<random_kernels::Dist::normal>},
    {&symflow::detail::kRandomUniformOp,
     random_kernels::random_float_kernel<random_kernels::Dist::uniform>},
    {&symflow::detail::kTruncatedNormalOp,
     random_kernels::random_float_kernel<random_kernels::Dist::truncated_normal>},
    {&symflow::detail::kRandomUniformIntOp, random_kernels::random_uniform_int_kernel},
    {&symflow::detail::kRandomShuffleOp, random_kernels::random_shuffle_kernel},
});

}  // namespace symflow::thrust_backend
