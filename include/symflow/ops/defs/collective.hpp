#pragma once
// The descriptions of the collective ops, which combine tensors across the processes (ranks)
// of a data-parallel job, as Horovod's ops do: MpiAllreduce, MpiAllgather, MpiBroadcast, and
// MpiSize / MpiRank. Their kernels (backend/cpu/kernels/collective.hpp) hand the bytes to the
// CollectiveEngine that symflow::distributed::init() installs (backend/collective_engine.hpp),
// so the core library has no MPI dependency; their builders are in ops/collective_ops.hpp.
//
// MpiAllreduce and MpiBroadcast are variadic, N tensors in and N out, and their kernels pack
// the N tensors into one buffer for one transfer: Horovod's tensor fusion, decided when the
// graph is built. All are stateful (never folded or merged: each node is one collective
// that every rank must run) and host-only (no GPU kernel: a GPU graph copies their inputs
// to the host).

#include <cstdint>
#include <string>
#include <vector>

#include "symflow/core/dtype.hpp"
#include "symflow/core/errors.hpp"
#include "symflow/core/shape.hpp"
#include "symflow/ops/defs/op_def.hpp"

namespace symflow::detail {

// The element types the engine can sum.
constexpr bool collective_sum_dtype(DType d) {
  return d == DType::float32 || d == DType::float64 || d == DType::int32 || d == DType::int64;
}
// The element types a collective may move: the computing numbers and bool (no strings,
// resources or storage dtypes).
constexpr bool collective_move_dtype(DType d) {
  return collective_sum_dtype(d) || d == DType::bool_ || d == DType::uint8;
}

inline std::vector<TensorSpec> specs_of_inputs(const InferContext& c) {
  std::vector<TensorSpec> out;
  for (const TensorSpec& in : c.inputs) out.push_back(TensorSpec{in.dtype, in.shape});
  return out;
}

// MpiAllreduce(tensors...): each output i is the sum of input i over every rank. All inputs
// have one dtype (attr T), float32, float64, int32 or int64.
inline std::vector<TensorSpec> infer_mpi_allreduce(const InferContext& c) {
  if (c.inputs.empty()) throw ValueError("MpiAllreduce needs at least one tensor");
  for (std::size_t i = 0; i < c.inputs.size(); ++i) {
    if (!collective_sum_dtype(c.dtype(i)))
      throw TypeError("Input " + std::to_string(i) + " of 'MpiAllreduce' Op has type " +
                      std::string(dtype_name(c.dtype(i))) +
                      " that is not in the list of allowed values: float32, float64, int32, int64");
    if (c.dtype(i) != c.dtype(0))
      throw TypeError("Input " + std::to_string(i) + " of 'MpiAllreduce' Op has type " +
                      std::string(dtype_name(c.dtype(i))) + " that does not match type " +
                      std::string(dtype_name(c.dtype(0))) + " of input 0");
  }
  return specs_of_inputs(c);
}
SYMFLOW_OP_DEF(kMpiAllreduceOp, OpDef{.type = "MpiAllreduce",
                                      .num_inputs = -1,
                                      .infer = infer_mpi_allreduce,
                                      .stateful = true,
                                      .host_only = true});

// MpiAllgather(tensor): every rank's tensor concatenated along dimension 0, in rank order.
// The ranks may differ in dimension 0, not in the others.
inline std::vector<TensorSpec> infer_mpi_allgather(const InferContext& c) {
  if (c.inputs.size() != 1) throw ValueError("MpiAllgather takes one tensor");
  if (!collective_move_dtype(c.dtype(0)))
    throw TypeError("Input 'tensor' of 'MpiAllgather' Op has type " +
                    std::string(dtype_name(c.dtype(0))) + ", which a collective cannot move");
  const Shape& s = c.shape(0);
  if (!s.has_rank()) return {TensorSpec{c.dtype(0), Shape::unknown()}};
  if (s.rank() == 0)
    throw ValueError("MpiAllgather needs a tensor of rank 1 or more, got a scalar");
  Dims dims = s.dims();
  dims[0] = -1;  // the other ranks' sizes are known when it runs
  return {TensorSpec{c.dtype(0), Shape(std::move(dims))}};
}
SYMFLOW_OP_DEF(kMpiAllgatherOp, OpDef{.type = "MpiAllgather",
                                      .num_inputs = 1,
                                      .infer = infer_mpi_allgather,
                                      .stateful = true,
                                      .host_only = true});

// MpiBroadcast(tensors...): every output i is root_rank's input i. The inputs may have
// different dtypes (attr T, a type list); on each rank they must have root's shapes.
inline std::vector<TensorSpec> infer_mpi_broadcast(const InferContext& c) {
  if (c.inputs.empty()) throw ValueError("MpiBroadcast needs at least one tensor");
  for (std::size_t i = 0; i < c.inputs.size(); ++i)
    if (!collective_move_dtype(c.dtype(i)))
      throw TypeError("Input " + std::to_string(i) + " of 'MpiBroadcast' Op has type " +
                      std::string(dtype_name(c.dtype(i))) + ", which a collective cannot move");
  if (c.attr<std::int64_t>("root_rank") < 0)
    throw ValueError("MpiBroadcast's root_rank must be >= 0, got " +
                     std::to_string(c.attr<std::int64_t>("root_rank")));
  return specs_of_inputs(c);
}
SYMFLOW_OP_DEF(kMpiBroadcastOp, OpDef{.type = "MpiBroadcast",
                                      .num_inputs = -1,
                                      .infer = infer_mpi_broadcast,
                                      .stateful = true,
                                      .host_only = true});

// MpiSize() and MpiRank(): the number of ranks and this process's rank, int32 scalars read
// when the graph runs (so one graph serves any number of processes).
inline std::vector<TensorSpec> infer_mpi_scalar(const InferContext&) {
  return {TensorSpec{DType::int32, Shape{}}};
}
SYMFLOW_OP_DEF(kMpiSizeOp, OpDef{.type = "MpiSize",
                                 .num_inputs = 0,
                                 .infer = infer_mpi_scalar,
                                 .stateful = true,
                                 .host_only = true});
SYMFLOW_OP_DEF(kMpiRankOp, OpDef{.type = "MpiRank",
                                 .num_inputs = 0,
                                 .infer = infer_mpi_scalar,
                                 .stateful = true,
                                 .host_only = true});

}  // namespace symflow::detail
