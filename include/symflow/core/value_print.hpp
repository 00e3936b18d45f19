#pragma once
// Printing values the way Python shows what Session::run returns (NumPy 1.x defaults,
// the NumPy of TensorFlow 1.x):
//   to_string(v)       print(arr): NumPy's str(), "[6. 7. 8.]", "[[1 1 0 0]\n [1 0 4 0]]", "3.0"
//   repr(v)            NumPy's repr(), "array([1., 2.], dtype=float32)"; a rank-0 value is
//                      a NumPy scalar, whose repr is its str: "3.0"
//   to_string(values)  print(list): "[1.0, 2.0, 3.0]", each element by repr()
// The layout follows numpy/core/arrayprint.py: FloatingFormat in 'maxprec' mode with
// precision 8, IntegerFormat, BoolFormat, and _formatArray with line width 75, summarising
// arrays of more than 1000 elements to their first and last 3 items per axis. (NumPy 2
// differs: np.float32(1.0) reprs as "np.float32(1.0)", float32 values switch to scientific
// notation from 1e6 rather than 1e8, and the repr of a summarised array names its shape.)

//
// This header declares; core/value_print_inl.hpp defines (detail/config.hpp).

#include <ostream>
#include <string>
#include <vector>

#include "symflow/core/value.hpp"
#include "symflow/detail/config.hpp"

namespace symflow {

// NumPy's str() of the value: what print(sess.run(t)) shows.
SYMFLOW_INLINE std::string to_string(const Value& v);

// NumPy's repr() of the value: "array([[1., 1.],\n       [1., 1.]], dtype=float32)". The
// dtype is named unless NumPy implies it (float64, int64, bool); an empty array of rank
// other than 1 also names its shape. A rank-0 value is a NumPy scalar: "3.0", "3", "True".
SYMFLOW_INLINE std::string repr(const Value& v);

SYMFLOW_INLINE std::ostream& operator<<(std::ostream& os, const Value& v);

// Python's print of the list sess.run returns: "[1.0, 2.0, 3.0]" for three float scalars,
// "[array([1., 2.], dtype=float32), None]" for an array and a fetched operation. Each
// element is shown by repr(), as Python shows the elements of a list.
SYMFLOW_INLINE std::string to_string(const std::vector<Value>& values);

SYMFLOW_INLINE std::ostream& operator<<(std::ostream& os, const std::vector<Value>& values);

}  // namespace symflow

#if !defined(SYMFLOW_COMPILED)
#include "symflow/core/value_print_inl.hpp"
#endif
