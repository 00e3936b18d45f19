#pragma once
// symflow::distributed, Horovod's API for symflow: init/rank/size/local_rank/shutdown on MPI
// (mpi.hpp), the collective ops (ops/collective_ops.hpp), DistributedOptimizer and
// broadcast_global_variables (distributed_optimizer.hpp), and checkpoints written by one rank
// (checkpoint.hpp). Link the CMake target symflow::mpi. docs/distributed.md tells how to
// launch a job.

#include "symflow/distributed/checkpoint.hpp"
#include "symflow/distributed/distributed_optimizer.hpp"
#include "symflow/distributed/mpi.hpp"
#include "symflow/ops/collective_ops.hpp"
