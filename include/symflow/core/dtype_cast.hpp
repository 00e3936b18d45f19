#pragma once
// Element conversion between any two number or bool dtypes, the storage dtypes included
// (core/dtype.hpp), as TensorFlow's CPU Cast converts: what Value::astype and the Cast
// kernel use when a storage dtype is involved. Strings and resources have no conversion.
//
// This header declares; core/dtype_cast_inl.hpp defines (detail/config.hpp).

#include <cstdint>

#include "symflow/core/dtype.hpp"
#include "symflow/detail/config.hpp"

namespace symflow {

// Converts `count` elements of dtype `from` at `in` to dtype `to` at `out`:
//   - to bool: non-zero is true;
//   - a float (half, bfloat16, float32, float64) to an integer: truncated toward zero
//     through 32 bits (64 for the 64-bit and 32-bit unsigned types), then wrapped; NaN and
//     values out of that range give the lowest value first, as x86 does;
//   - complex to real or bool: the real part, then as above (1j is false, as in TensorFlow);
//     real to complex: an imaginary part 0;
//   - half and bfloat16 go through float32 both ways, rounding to nearest even.
SYMFLOW_INLINE void cast_elements(DType from, const void* in, DType to, void* out,
                                  std::int64_t count);

}  // namespace symflow

#if !defined(SYMFLOW_COMPILED)
#include "symflow/core/dtype_cast_inl.hpp"
#endif
