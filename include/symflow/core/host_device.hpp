#pragma once
// SYMFLOW_HD marks functions that device code calls too: the elementwise functors of
// ops/ and the Thrust backend's own. Under nvcc it is __host__ __device__; every
// other compiler sees nothing.

#if defined(__CUDACC__)
#define SYMFLOW_HD __host__ __device__
#else
#define SYMFLOW_HD
#endif
