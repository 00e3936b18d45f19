#pragma once
// The collective ops as graph-building functions, Horovod's hvd.allreduce, hvd.allgather,
// hvd.broadcast, hvd.size_op and hvd.rank_op: nodes "MpiAllreduce", "MpiAllgather",
// "MpiBroadcast", "MpiSize", "MpiRank" (ops/defs/collective.hpp). Building them needs no
// MPI; running them needs the engine that symflow::distributed::init() (distributed/mpi.hpp)
// installs. Every rank must run the same collective nodes in the same order.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "symflow/ops/defs/collective.hpp"
#include "symflow/ops/math_ops.hpp"
#include "symflow/ops/op_builder.hpp"

namespace symflow::distributed {

namespace detail {
inline TypeList dtypes_of_tensors(const std::vector<Output>& tensors) {
  TypeList types;
  for (const Output& t : tensors) types.items.push_back(t.dtype());
  return types;
}
inline void require_tensors(const std::vector<Output>& tensors, std::string_view function) {
  if (tensors.empty())
    throw ValueError(std::string(function) + " needs at least one tensor, got an empty list");
  for (std::size_t i = 0; i < tensors.size(); ++i)
    if (!tensors[i].valid())
      throw ValueError(std::string(function) + ": tensor " + std::to_string(i) +
                       " is an empty handle");
}
}  // namespace detail

// The sum of each tensor over every rank, all of them in ONE node and one transfer (a fused
// allreduce): output i has input i's shape. The tensors share one dtype (float32, float64,
// int32 or int64).
inline std::vector<Output> allreduce_n(const std::vector<Output>& tensors,
                                       std::string_view name = {}) {
  detail::require_tensors(tensors, "allreduce_n");
  symflow::detail::OpBuilder b(graph_of(tensors), name, "MpiAllreduce");
  Operation op =
      b.build(symflow::detail::kMpiAllreduceOp, tensors,
              {{"T", tensors[0].dtype()}, {"N", static_cast<std::int64_t>(tensors.size())}});
  std::vector<Output> out;
  for (std::size_t i = 0; i < tensors.size(); ++i) out.push_back(op.output(static_cast<int>(i)));
  return out;
}

// The number of ranks and this process's rank, as int32 scalars read when the graph runs.
inline Output size_op(const Graph& g = get_default_graph(), std::string_view name = {}) {
  symflow::detail::OpBuilder b(g, name, "MpiSize");
  return b.build(symflow::detail::kMpiSizeOp, {}, {}).output(0);
}
inline Output rank_op(const Graph& g = get_default_graph(), std::string_view name = {}) {
  symflow::detail::OpBuilder b(g, name, "MpiRank");
  return b.build(symflow::detail::kMpiRankOp, {}, {}).output(0);
}

// hvd.allreduce: the sum of `tensor` over every rank, divided by the number of ranks when
// `average` (the default; a float tensor only).
inline Output allreduce(const Output& tensor, bool average = true, std::string_view name = {}) {
  detail::require_tensors({tensor}, "allreduce");
  if (average && !is_floating(tensor.dtype()))
    throw TypeError("allreduce averages float tensors only; " + tensor.name() + " is " +
                    std::string(dtype_name(tensor.dtype())) + " (pass average = false)");
  Output summed = allreduce_n({tensor}, name).front();
  if (!average) return summed;
  return divide(summed, cast(size_op(tensor.graph()), tensor.dtype()));
}
template <Element T>
Tensor<T> allreduce(const Tensor<T>& tensor, bool average = true, std::string_view name = {}) {
  return Tensor<T>(allreduce(Output(tensor), average, name));
}

// hvd.allgather: every rank's tensor concatenated along dimension 0 in rank order. The
// ranks may differ in dimension 0 only.
inline Output allgather(const Output& tensor, std::string_view name = {}) {
  detail::require_tensors({tensor}, "allgather");
  symflow::detail::OpBuilder b(graph_of({tensor}), name, "MpiAllgather");
  return b.build(symflow::detail::kMpiAllgatherOp, {tensor}, {{"T", tensor.dtype()}}).output(0);
}
template <Element T>
Tensor<T> allgather(const Tensor<T>& tensor, std::string_view name = {}) {
  return Tensor<T>(allgather(Output(tensor), name));
}

// root_rank's value of each tensor on every rank, all of them in one node and one transfer.
// The tensors may have different dtypes.
inline std::vector<Output> broadcast_n(const std::vector<Output>& tensors, int root_rank,
                                       std::string_view name = {}) {
  detail::require_tensors(tensors, "broadcast_n");
  symflow::detail::OpBuilder b(graph_of(tensors), name, "MpiBroadcast");
  Operation op = b.build(symflow::detail::kMpiBroadcastOp, tensors,
                         {{"T", detail::dtypes_of_tensors(tensors)},
                          {"root_rank", static_cast<std::int64_t>(root_rank)}});
  std::vector<Output> out;
  for (std::size_t i = 0; i < tensors.size(); ++i) out.push_back(op.output(static_cast<int>(i)));
  return out;
}

// hvd.broadcast: root_rank's value of `tensor` on every rank.
inline Output broadcast(const Output& tensor, int root_rank, std::string_view name = {}) {
  return broadcast_n({tensor}, root_rank, name).front();
}
template <Element T>
Tensor<T> broadcast(const Tensor<T>& tensor, int root_rank, std::string_view name = {}) {
  return Tensor<T>(broadcast(Output(tensor), root_rank, name));
}

}  // namespace symflow::distributed
