// The collective ops in one process, without MPI (a unit test: tests/mpi/mpirun/ holds the
// program that runs under mpirun). An engine of one rank stands in for MPI, so that the
// gradients get their numerical check (float64, tests/gradient_check.hpp) and the kernels
// and shape functions their errors; the values over several ranks are checked by the mpirun
// program.
#include <doctest/doctest.h>

#include <cstddef>
#include <cstring>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include <symflow/backend/collective_engine.hpp>
#include <symflow/ops/collective_ops.hpp>
#include <symflow/symflow.hpp>

#include "../gradient_check.hpp"

namespace symflow_test_mpi_collective_grad_test {

namespace tf = symflow;
namespace dist = symflow::distributed;

namespace {

// A job of one process: every collective gives back its own input.
class OneProcessEngine final : public tf::CollectiveEngine {
 public:
  int rank() const override { return 0; }
  int size() const override { return 1; }
  void allreduce_sum(std::span<const tf::CollectivePart> parts, tf::DType,
                     std::string_view) override {
    copy(parts);
  }
  std::vector<std::byte> allgather(const void* mine, std::size_t bytes,
                                   std::vector<std::size_t>* sizes, std::string_view) override {
    if (sizes) *sizes = {bytes};
    const auto* first = static_cast<const std::byte*>(mine);
    return std::vector<std::byte>(first, first + bytes);
  }
  void broadcast(std::span<const tf::CollectivePart> parts, int, std::string_view) override {
    copy(parts);
  }
  std::chrono::milliseconds timeout() const override { return std::chrono::milliseconds(1000); }
  void set_timeout(std::chrono::milliseconds) override {}

 private:
  static void copy(std::span<const tf::CollectivePart> parts) {
    for (const tf::CollectivePart& p : parts)
      if (p.bytes) std::memmove(p.out, p.in, p.bytes);
  }
};

// Installs the one-process engine for a test case's life.
struct OneProcessJob {
  std::shared_ptr<tf::CollectiveEngine> previous =
      tf::install_collective_engine(std::make_shared<OneProcessEngine>());
  OneProcessJob() = default;
  OneProcessJob(const OneProcessJob&) = delete;
  OneProcessJob& operator=(const OneProcessJob&) = delete;
  ~OneProcessJob() { tf::install_collective_engine(previous); }
};

}  // namespace

TEST_CASE("mpi/collective_grad: allreduce, allgather and broadcast in a job of one process") {
  OneProcessJob job;
  const tf::Value a({{0.5, -1.25, 2.0}, {3.0, 0.75, -0.5}});
  const tf::Value b({1.5, -2.0});
  // Two tensors in one fused allreduce, both differentiated.
  tf::test::check_gradients(
      [](const std::vector<tf::Output>& x) {
        std::vector<tf::Output> sums = dist::allreduce_n({x[0], x[1]});
        return tf::reduce_sum(tf::square(sums[0])) + tf::reduce_sum(sums[1] * sums[1] * sums[1]);
      },
      {a, b});
  // The average divides by MpiSize.
  tf::test::check_gradients(
      [](const std::vector<tf::Output>& x) { return tf::square(dist::allreduce(x[0])); }, {a});
  tf::test::check_gradients(
      [](const std::vector<tf::Output>& x) { return tf::square(dist::allgather(x[0])); }, {a});
  tf::test::check_gradients(
      [](const std::vector<tf::Output>& x) {
        std::vector<tf::Output> out = dist::broadcast_n({x[0], x[1]}, 0);
        return tf::reduce_sum(out[0] * out[0]) * tf::reduce_sum(out[1]);
      },
      {a, b});
}

TEST_CASE("mpi/collective_grad: the kernels' values and shapes in a job of one process") {
  OneProcessJob job;
  tf::Graph g;
  auto guard = g.as_default();
  auto x = tf::constant(tf::Value({{1.0f, 2.0f}, {3.0f, 4.0f}}));
  auto gathered = dist::allgather(x);
  CHECK(gathered.get_shape() == tf::Shape{-1, 2});
  tf::Session sess(g);
  CHECK(sess.run(dist::size_op()).scalar<std::int32_t>() == 1);
  CHECK(sess.run(dist::rank_op()).scalar<std::int32_t>() == 0);
  tf::Value got = sess.run(gathered);
  CHECK(got.dims() == tf::Dims{2, 2});
  CHECK(got.to_vector<float>() == std::vector<float>{1, 2, 3, 4});
  CHECK(sess.run(dist::allreduce(x)).to_vector<float>() == std::vector<float>{1, 2, 3, 4});
  CHECK(sess.run(dist::broadcast(x, 0)).to_vector<float>() == std::vector<float>{1, 2, 3, 4});
  // A root past the job's ranks fails before any transfer.
  CHECK_THROWS_WITH_AS(sess.run(dist::broadcast(x, 1, "bcast")),
                       "MpiBroadcast's root_rank 1 is not a rank of the 1 processes\n\t [[{{node "
                       "bcast}}]]",
                       tf::InvalidArgumentError);
}

TEST_CASE("mpi/collective_grad: without an engine the kernels say to call init()") {
  auto previous = tf::install_collective_engine(nullptr);
  tf::Graph g;
  auto guard = g.as_default();
  auto sum = dist::allreduce(tf::constant(tf::Value({1.0f})), false);
  tf::Session sess(g);
  CHECK_THROWS_WITH_AS(sess.run(sum),
                       "MpiAllreduce needs a collective engine and none is installed: call "
                       "symflow::distributed::init() first (link symflow::mpi, launch with "
                       "mpirun)\n\t [[{{node MpiAllreduce}}]]",
                       tf::FailedPreconditionError);
  CHECK_THROWS_AS(sess.run(dist::size_op()), tf::FailedPreconditionError);
  tf::install_collective_engine(previous);
}

TEST_CASE("mpi/collective_grad: shape functions refuse bad inputs by name") {
  tf::Graph g;
  auto guard = g.as_default();
  auto f = tf::constant(tf::Value({1.0f}), "f");
  auto d = tf::constant(tf::Value({1.0}), "d");
  auto s = tf::constant(tf::Value(std::string("text")), "s");
  CHECK_THROWS_WITH_AS(dist::allreduce_n({f, d}),
                       "Input 1 of 'MpiAllreduce' Op has type float64 that does not match type "
                       "float32 of input 0 for 'MpiAllreduce' (op: 'MpiAllreduce') with input "
                       "shapes: [1], [1].",
                       tf::TypeError);
  CHECK_THROWS_WITH_AS(dist::allreduce_n({tf::constant(tf::Value({true}))}),
                       "Input 0 of 'MpiAllreduce' Op has type bool that is not in the list of "
                       "allowed values: float32, float64, int32, int64 for 'MpiAllreduce_1' (op: "
                       "'MpiAllreduce') with input shapes: [1].",
                       tf::TypeError);
  CHECK_THROWS_AS(dist::broadcast(s, 0), tf::TypeError);
  CHECK_THROWS_WITH_AS(dist::broadcast(f, -1),
                       "MpiBroadcast's root_rank must be >= 0, got -1 for 'MpiBroadcast_1' (op: "
                       "'MpiBroadcast') with input shapes: [1].",
                       tf::ValueError);
  CHECK_THROWS_WITH_AS(dist::allgather(tf::constant(2.0f)),
                       "MpiAllgather needs a tensor of rank 1 or more, got a scalar for "
                       "'MpiAllgather' (op: 'MpiAllgather') with input shapes: [].",
                       tf::ValueError);
  CHECK_THROWS_WITH_AS(dist::allreduce_n({f, tf::Output{}}),
                       "allreduce_n: tensor 1 is an empty handle", tf::ValueError);
}

}  // namespace symflow_test_mpi_collective_grad_test
