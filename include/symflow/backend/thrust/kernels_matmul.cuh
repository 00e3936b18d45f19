#pragma once
// Thrust kernels: MatMul.
//
// On CUDA (nvcc, SYMFLOW_THRUST_CUDA) float32 and float64 products go through cuBLAS:
// row-major C = op(A) op(B) is column-major C^T = op(B)^T op(A)^T, so cuBLAS gets B
// first, with the row-major buffers as they are. One cuBLAS handle serves the process,
// made on first use. The integer types, and every type on the host systems, take one
// device thread per output element, which adds the k products in index order from 0
// (integers wrap around as on the CPU).
//
// Tolerance against the CPU (Eigen's blocked, vectorised GEMM sums in another order):
// integers are exact; floats agree to a few ulps of sum_k |a_ik b_kj| (each element's
// rounding error is bounded by about k * eps * sum_k |a_ik b_kj| either way).

#include <array>
#include <climits>
#include <cstdint>
#include <string>

#include "symflow/backend/cpu/kernels/math.hpp"
#include "symflow/backend/thrust/kernel_util.cuh"
#include "symflow/ops/defs/math.hpp"

#if defined(SYMFLOW_THRUST_CUDA)
#include <cublas_v2.h>
#endif

namespace symflow::thrust_backend {

namespace matmul_kernels {

template <class T>
SYMFLOW_HD T mm_add(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(a) + static_cast<U>(b));
  } else {
    return a + b;
  }
}
template <class T>
SYMFLOW_HD T mm_mul(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(a) * static_cast<U>(b));
  } else {
    return a * b;
  }
}

// c[i, j] = sum over p of op(a)[i, p] * op(b)[p, j], for output element i * n + j; the
// strides say where op(a)[i, p] and op(b)[p, j] are in the row-major buffers.
template <class T>
struct DotProducts {
  const T* a;
  const T* b;
  T* c;
  std::int64_t n, k;
  std::int64_t a_row, a_col, b_row, b_col;
  SYMFLOW_HD void operator()(std::int64_t e) const {
    const std::int64_t i = e / n, j = e % n;
    const T* pa = a + i * a_row;
    const T* pb = b + j * b_col;
    T acc = T{0};
    for (std::int64_t p = 0; p < k; ++p) acc = mm_add(acc, mm_mul(pa[p * a_col], pb[p * b_row]));
    c[e] = acc;
  }
};

// out [m, n] = op(a) op(b) with one thread per output element.
template <class T>
void dot_products(const T* a, const T* b, T* c, std::int64_t m, std::int64_t k, std::int64_t n,
                  bool transpose_a, bool transpose_b) {
  if (m * n == 0) return;
  // op(a)[i, p] = a[i * k + p], or a[p * m + i] when a is stored transposed ([k, m]).
  const std::int64_t a_row = transpose_a ? 1 : k, a_col = transpose_a ? m : 1;
  // op(b)[p, j] = b[p * n + j], or b[j * k + p] when b is stored transposed ([n, k]).
  const std::int64_t b_row = transpose_b ? 1 : n, b_col = transpose_b ? k : 1;
  thrust::for_each(policy(), thrust::counting_iterator<std::int64_t>(0),
                   thrust::counting_iterator<std::int64_t>(m * n),
                   DotProducts<T>{a, b, c, n, k, a_row, a_col, b_row, b_col});
}

#if defined(SYMFLOW_THRUST_CUDA)

// The process's cuBLAS handle, made on first use (and kept: the CUDA context may be
// gone by the time static destructors run).
struct CublasHandle {
  cublasHandle_t handle = nullptr;
  cublasStatus_t status = CUBLAS_STATUS_NOT_INITIALIZED;
  CublasHandle() { status = cublasCreate(&handle); }
};

inline std::string cublas_status_text(cublasStatus_t status) {
  return std::string(cublasGetStatusString(status)) + " (" +
         std::to_string(static_cast<int>(status)) + ")";
}

inline cublasHandle_t cublas_handle(const KernelContext& ctx) {
  static CublasHandle* const h = new CublasHandle;
  if (h->status != CUBLAS_STATUS_SUCCESS)
    throw InternalError("MatMul: cublasCreate failed: " + cublas_status_text(h->status),
                        ctx.node_name());
  return h->handle;
}

inline cublasStatus_t cublas_gemm(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb,
                                  int m, int n, int k, const float* alpha, const float* a, int lda,
                                  const float* b, int ldb, const float* beta, float* c, int ldc) {
  return cublasSgemm(h, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}
inline cublasStatus_t cublas_gemm(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb,
                                  int m, int n, int k, const double* alpha, const double* a,
                                  int lda, const double* b, int ldb, const double* beta, double* c,
                                  int ldc) {
  return cublasDgemm(h, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

// out [m, n] = op(a) op(b) through cuBLAS; false when a dimension is too large for its
// int arguments (the caller then takes the generic path).
template <class T>
bool cublas_matmul(const KernelContext& ctx, const T* a, const T* b, T* c, std::int64_t m,
                   std::int64_t k, std::int64_t n, bool transpose_a, bool transpose_b) {
  if (m > INT_MAX || n > INT_MAX || k > INT_MAX) return false;
  const cublasHandle_t h = cublas_handle(ctx);
  const T alpha = 1, beta = 0;
  // Column-major C^T [n, m] = op(B)^T [n, k] * op(A)^T [k, m]: a row-major buffer is its
  // transpose in column-major order, with the row length as leading dimension.
  const int lda = static_cast<int>(transpose_a ? m : k);
  const int ldb = static_cast<int>(transpose_b ? k : n);
  const cublasStatus_t status =
      cublas_gemm(h, transpose_b ? CUBLAS_OP_T : CUBLAS_OP_N,
                  transpose_a ? CUBLAS_OP_T : CUBLAS_OP_N, static_cast<int>(n), static_cast<int>(m),
                  static_cast<int>(k), &alpha, b, ldb, a, lda, &beta, c, static_cast<int>(n));
  if (status != CUBLAS_STATUS_SUCCESS)
    throw InternalError(std::string("MatMul: ") +
                            (std::is_same_v<T, float> ? "cublasSgemm" : "cublasDgemm") +
                            " failed: " + cublas_status_text(status),
                        ctx.node_name());
  return true;
}

#endif  // SYMFLOW_THRUST_CUDA

template <class T>
void matmul(KernelContext& ctx, const Value& a, const Value& b, bool transpose_a, bool transpose_b,
            Value& result) {
  const std::int64_t m = result.dims()[0], n = result.dims()[1];
  const std::int64_t k = a.dims()[transpose_a ? 0 : 1];
  const T* pa = a.device_data<T>();
  const T* pb = b.device_data<T>();
  T* pc = result.device_data<T>();
  if (m == 0 || n == 0) return;
  if (k == 0) {  // an empty sum: zeros
    thrust::fill_n(policy(), out<T>(result), m * n, T{0});
    return;
  }
#if defined(SYMFLOW_THRUST_CUDA)
  if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>)
    if (cublas_matmul<T>(ctx, pa, pb, pc, m, k, n, transpose_a, transpose_b)) return;
#endif
  (void)ctx;
  dot_products<T>(pa, pb, pc, m, k, n, transpose_a, transpose_b);
}

// As detail::matmul_kernel: the same checks and messages.
inline void matmul_kernel(KernelContext& ctx) {
  const Value& a = ctx.input(0);
  const Value& b = ctx.input(1);
  const bool ta = ctx.attr<bool>("transpose_a"), tb = ctx.attr<bool>("transpose_b");
  for (int i = 0; i < 2; ++i)
    if (ctx.input(static_cast<std::size_t>(i)).rank() != 2)
      ctx.fail("In[" + std::to_string(i) + "] is not a matrix. Instead it has shape " +
               dims_to_string(ctx.input(static_cast<std::size_t>(i)).dims()));
  const std::int64_t m = a.dims()[ta ? 1 : 0], k = a.dims()[ta ? 0 : 1];
  const std::int64_t k2 = b.dims()[tb ? 1 : 0], n = b.dims()[tb ? 0 : 1];
  if (k != k2)
    ctx.fail("Matrix size-incompatible: In[0]: " + dims_to_string(a.dims()) +
             ", In[1]: " + dims_to_string(b.dims()));
  visit_dtype(a.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (symflow::detail::MatMulTypes::accepts<T>) {
      Value& o = output(ctx, 0, a.dtype(), {m, n});
      matmul_kernels::matmul<T>(ctx, a, b, ta, tb, o);
    } else {
      symflow::detail::unsupported_dtype(ctx, a.dtype());
    }
  });
}

}  // namespace matmul_kernels

inline constexpr auto kMatMulKernels = std::to_array<KernelEntry>({
    {&symflow::detail::kMatMulOp, matmul_kernels::matmul_kernel},
});

}  // namespace symflow::thrust_backend
