#pragma once
// The gradients of the collective ops (Horovod's), and their registry entries
// (ops/registry.hpp):
//   MpiAllreduce  y_i = sum over ranks of x_i, so dL/dx_i on a rank is the sum of every
//                 rank's dL/dy_i: an allreduce of the gradients (one fused node).
//   MpiAllgather  y = every rank's x stacked on axis 0: the gradients summed over the ranks,
//                 then this rank's rows of them (offset: the rows of the ranks before it).
//   MpiBroadcast  y_i = root's x_i: root's x_i gets the sum of every rank's dL/dy_i, the
//                 other ranks' x_i get zeros.

#include <array>
#include <cstdint>
#include <vector>

#include "symflow/ops/array_ops.hpp"
#include "symflow/ops/collective_ops.hpp"
#include "symflow/ops/grad_context.hpp"
#include "symflow/ops/indexing.hpp"
#include "symflow/ops/logic_ops.hpp"
#include "symflow/ops/math_ops.hpp"
#include "symflow/ops/operators.hpp"
#include "symflow/ops/reduction_ops.hpp"
#include "symflow/ops/shape_ops.hpp"
#include "symflow/ops/transform_ops.hpp"

namespace symflow::detail {

// The valid gradients of c's outputs summed over the ranks in one MpiAllreduce; invalid
// where the output's gradient is (an integer output).
inline std::vector<Output> allreduce_valid_grads(const GradContext& c) {
  std::vector<Output> valid;
  for (const Output& g : c.grads)
    if (g.valid() && is_floating(g.dtype())) valid.push_back(g);
  std::vector<Output> summed = valid.empty() ? valid : distributed::allreduce_n(valid);
  std::vector<Output> out;
  std::size_t k = 0;
  for (const Output& g : c.grads)
    out.push_back(g.valid() && is_floating(g.dtype()) ? summed[k++] : Output{});
  return out;
}

inline std::vector<Output> mpi_allreduce_grad(const GradContext& c) {
  return allreduce_valid_grads(c);
}

inline std::vector<Output> mpi_allgather_grad(const GradContext& c) {
  if (!c.grad().valid() || !is_floating(c.grad().dtype())) return {};
  const Output summed = distributed::allreduce_n({c.grad()}).front();
  Graph g = c.graph();
  // Every rank's row count, and the rows before this rank's.
  const Output rows = reshape(shape(c.input(0))[0], Dims{1});
  const Output counts = distributed::allgather(rows);
  const Output offset = gather(cumsum(counts, 0, true), distributed::rank_op(g));
  const Output begin = reshape(offset, Dims{1});
  return {strided_slice(summed, begin, add(begin, rows),
                        Value::from_vector(std::vector<std::int32_t>{1}, Dims{1}))};
}

inline std::vector<Output> mpi_broadcast_grad(const GradContext& c) {
  std::vector<Output> summed = allreduce_valid_grads(c);
  const Output is_root = equal(distributed::rank_op(c.graph()),
                               static_cast<std::int32_t>(c.op.get_attr<std::int64_t>("root_rank")));
  for (Output& grad : summed)
    if (grad.valid()) grad = multiply(grad, cast(is_root, grad.dtype()));
  return summed;
}

inline constexpr auto kCollectiveOpEntries = std::to_array<OpEntry>({
    {&kMpiAllreduceOp, mpi_allreduce_grad},
    {&kMpiAllgatherOp, mpi_allgather_grad},
    {&kMpiBroadcastOp, mpi_broadcast_grad},
    {&kMpiSizeOp, not_differentiable},
    {&kMpiRankOp, not_differentiable},
});

}  // namespace symflow::detail
