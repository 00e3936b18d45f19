// symflow::distributed on MPI, run by ctest under `mpirun -np 2` and `-np 3` (label "mpi"):
// the collective ops and their gradients, broadcast_global_variables, DistributedOptimizer
// against one process trained on the concatenated batch, checkpoints written by rank 0 only,
// and a rank that fails making the others fail within the timeout (tests/mpi/*.cpp check the
// gradients numerically in one process). This program has its own main: MPI is started
// before the test cases and finalized after them. The timeout case leaves the engine out of
// step, so it is the file's last case (doctest runs them in order).
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>
#include <mpi.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include <symflow/distributed/distributed.hpp>
#include <symflow/symflow.hpp>
#include <symflow/train/train.hpp>

namespace symflow_test_mpi_distributed_test {

namespace tf = symflow;
namespace dist = symflow::distributed;

namespace {

int rank() { return dist::rank(); }
int size() { return dist::size(); }
// 1 + 2 + ... + size: the sum over ranks of (rank + 1).
float triangle() { return static_cast<float>(size() * (size() + 1) / 2); }

// Deterministic numbers, the same on every rank for one seed.
std::vector<float> numbers(std::size_t n, unsigned seed, float scale = 1.0f) {
  std::mt19937 gen(seed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<float> out(n);
  for (float& x : out) x = normal(gen) * scale;
  return out;
}

// A two-layer regression model on `x` (rows, 4) -> (rows, 3).
struct Model {
  tf::Variable w1, b1, w2, b2;
  tf::Output loss;
};

Model build_model(const tf::Value& x, const tf::Value& y, float init_offset) {
  auto init = [&](std::vector<float> v, tf::Dims dims) {
    for (float& e : v) e += init_offset;
    return tf::Value::from_vector(v, dims);
  };
  Model m{tf::Variable(init(numbers(4 * 8, 1, 0.5f), {4, 8}), {.name = "w1"}),
          tf::Variable(init(numbers(8, 2, 0.1f), {8}), {.name = "b1"}),
          tf::Variable(init(numbers(8 * 3, 3, 0.5f), {8, 3}), {.name = "w2"}),
          tf::Variable(init(numbers(3, 4, 0.1f), {3}), {.name = "b2"}),
          {}};
  auto hidden = tf::nn::relu(tf::matmul(tf::constant(x), m.w1) + m.b1);
  auto pred = tf::matmul(hidden, m.w2) + m.b2;
  m.loss = tf::reduce_mean(tf::square(pred - tf::constant(y)));
  return m;
}

// Rows [first, first + count) of the global batch.
std::pair<tf::Value, tf::Value> batch(int first, int count) {
  const int total = 4 * 8;  // enough rows for 8 ranks of 4
  const std::vector<float> xs = numbers(total * 4, 10), ys = numbers(total * 3, 11);
  std::vector<float> x(xs.begin() + first * 4, xs.begin() + (first + count) * 4);
  std::vector<float> y(ys.begin() + first * 3, ys.begin() + (first + count) * 3);
  return {tf::Value::from_vector(x, {count, 4}), tf::Value::from_vector(y, {count, 3})};
}

enum class Kind { gradient_descent, adam };
std::unique_ptr<tf::train::Optimizer> make_optimizer(Kind kind) {
  if (kind == Kind::adam) return std::make_unique<tf::train::AdamOptimizer>(0.01);
  return std::make_unique<tf::train::GradientDescentOptimizer>(0.1);
}

// The model's variables after `steps` steps: distributed (each rank on its 4 rows, variables
// broadcast from rank 0 first, rank-dependent initial values elsewhere), or one process on
// every rank's rows.
std::vector<std::vector<float>> train(Kind kind, int steps, bool distributed) {
  tf::Graph g;
  auto guard = g.as_default();
  const int rows = 4;
  auto [x, y] = distributed ? batch(rank() * rows, rows) : batch(0, rows * size());
  Model m = build_model(x, y, distributed ? 0.25f * static_cast<float>(rank()) : 0.0f);
  auto optimizer = make_optimizer(kind);
  tf::Operation step;
  std::optional<tf::Operation> sync;
  if (distributed) {
    dist::DistributedOptimizer opt(*optimizer);
    step = opt.minimize(m.loss);
    sync = dist::broadcast_global_variables(0);
  } else {
    step = optimizer->minimize(m.loss);
  }
  tf::Session sess(g);
  sess.run(tf::global_variables_initializer());
  if (sync) sess.run(*sync);
  for (int i = 0; i < steps; ++i) sess.run(step);
  std::vector<std::vector<float>> out;
  for (const tf::Variable& v : {m.w1, m.b1, m.w2, m.b2})
    out.push_back(sess.run(v).to_vector<float>());
  return out;
}

float max_difference(const std::vector<std::vector<float>>& a,
                     const std::vector<std::vector<float>>& b) {
  float worst = 0;
  for (std::size_t i = 0; i < a.size(); ++i)
    for (std::size_t j = 0; j < a[i].size(); ++j)
      worst = std::max(worst, std::abs(a[i][j] - b[i][j]));
  return worst;
}

// Every rank's copy of `values`, gathered with MPI itself (not the code under test).
std::vector<std::vector<float>> gather_from_all(const std::vector<float>& values) {
  std::vector<float> all(values.size() * static_cast<std::size_t>(size()));
  MPI_Allgather(values.data(), static_cast<int>(values.size()), MPI_FLOAT, all.data(),
                static_cast<int>(values.size()), MPI_FLOAT, MPI_COMM_WORLD);
  std::vector<std::vector<float>> out;
  for (int r = 0; r < size(); ++r)
    out.emplace_back(all.begin() + r * static_cast<std::ptrdiff_t>(values.size()),
                     all.begin() + (r + 1) * static_cast<std::ptrdiff_t>(values.size()));
  return out;
}

std::vector<float> flatten(const std::vector<std::vector<float>>& parts) {
  std::vector<float> out;
  for (const auto& p : parts) out.insert(out.end(), p.begin(), p.end());
  return out;
}

}  // namespace

TEST_CASE("mpi/ops: size, rank and allreduce sum and average over the ranks") {
  tf::Graph g;
  auto guard = g.as_default();
  const float r1 = static_cast<float>(rank() + 1);
  auto x = tf::constant(tf::Value({r1, 2 * r1}));
  auto summed = dist::allreduce(x, false);
  auto averaged = dist::allreduce(x);
  CHECK(summed.op().type() == "MpiAllreduce");
  CHECK(summed.op().name() == "MpiAllreduce");
  tf::Session sess(g);
  CHECK(sess.run(dist::size_op()).scalar<std::int32_t>() == size());
  CHECK(sess.run(dist::rank_op()).scalar<std::int32_t>() == rank());
  CHECK(sess.run(summed).to_vector<float>() == std::vector<float>{triangle(), 2 * triangle()});
  const float mean = triangle() / static_cast<float>(size());
  CHECK(sess.run(averaged).to_vector<float>() == std::vector<float>{mean, 2 * mean});
}

TEST_CASE("mpi/ops: allreduce_n sums several tensors in one node") {
  tf::Graph g;
  auto guard = g.as_default();
  const double r1 = rank() + 1;
  auto a = tf::constant(tf::Value({{r1, r1}, {r1, r1}}));
  auto b = tf::constant(tf::Value({10 * r1}));
  std::vector<tf::Output> out = dist::allreduce_n({a, b}, "fused");
  CHECK(out.size() == 2);
  CHECK(out[0].op().name() == "fused");
  CHECK(out[0].get_shape() == tf::Shape{2, 2});
  tf::Session sess(g);
  auto values = sess.run({out[0], out[1]});
  const double t = triangle();
  CHECK(values[0].to_vector<double>() == std::vector<double>{t, t, t, t});
  CHECK(values[1].to_vector<double>() == std::vector<double>{10 * t});
  // int32 sums too.
  auto ints = dist::allreduce(tf::constant(tf::Value({rank() + 1})), false);
  CHECK(sess.run(ints).to_vector<std::int32_t>() ==
        std::vector<std::int32_t>{static_cast<std::int32_t>(triangle())});

  // The node is in the GraphDef like any other, and runs again once imported.
  tf::Graph imported;
  auto returned =
      tf::import_graph_def(g.as_graph_def(), {.return_elements = {"fused:1"}}, imported);
  tf::Session imported_sess(imported);
  CHECK(imported_sess.run(std::get<tf::Output>(returned.at(0))).to_vector<double>() ==
        std::vector<double>{10 * t});
}

TEST_CASE("mpi/ops: allgather stacks each rank's rows in rank order") {
  tf::Graph g;
  auto guard = g.as_default();
  // Rank r gives r + 1 rows of [r, 10 r].
  std::vector<float> mine;
  for (int i = 0; i <= rank(); ++i) mine.insert(mine.end(), {1.0f * rank(), 10.0f * rank()});
  auto x = tf::constant(tf::Value::from_vector(mine, {rank() + 1, 2}));
  auto gathered = dist::allgather(x);
  CHECK(gathered.get_shape() == tf::Shape{-1, 2});
  tf::Session sess(g);
  tf::Value got = sess.run(gathered);
  std::vector<float> expected;
  for (int r = 0; r < size(); ++r)
    for (int i = 0; i <= r; ++i) expected.insert(expected.end(), {1.0f * r, 10.0f * r});
  CHECK(got.dims() == tf::Dims{static_cast<std::int64_t>(triangle()), 2});
  CHECK(got.to_vector<float>() == expected);
}

TEST_CASE("mpi/ops: broadcast gives every rank the root's tensors") {
  tf::Graph g;
  auto guard = g.as_default();
  const int root = size() - 1;
  auto a = tf::constant(tf::Value({1.5f * rank(), 2.0f}));
  auto b = tf::constant(tf::Value({rank() * 7}));
  std::vector<tf::Output> out = dist::broadcast_n({a, b}, root);
  tf::Session sess(g);
  auto values = sess.run({out[0], out[1]});
  CHECK(values[0].to_vector<float>() == std::vector<float>{1.5f * root, 2.0f});
  CHECK(values[1].to_vector<std::int32_t>() == std::vector<std::int32_t>{root * 7});
}

TEST_CASE("mpi/ops: bad arguments are typed errors that name the culprit") {
  tf::Graph g;
  auto guard = g.as_default();
  CHECK_THROWS_WITH_AS(dist::allreduce_n({}),
                       "allreduce_n needs at least one tensor, got an empty list", tf::ValueError);
  auto ints = tf::constant(tf::Value({1, 2}), "ints");
  CHECK_THROWS_WITH_AS(
      dist::allreduce(ints),
      "allreduce averages float tensors only; ints:0 is int32 (pass average = false)",
      tf::TypeError);
  CHECK_THROWS_AS(
      dist::allreduce_n({tf::constant(tf::Value({1.0f})), tf::constant(tf::Value({1.0}))}),
      tf::TypeError);
  CHECK_THROWS_WITH_AS(dist::allgather(tf::constant(1.0f)),
                       doctest::Contains("MpiAllgather needs a tensor of rank 1 or more"),
                       tf::ValueError);
  // A root that is no rank fails on every rank before any transfer.
  auto bad_root = dist::broadcast(tf::constant(tf::Value({1.0f})), size());
  tf::Session sess(g);
  CHECK_THROWS_WITH_AS(sess.run(bad_root), doctest::Contains("is not a rank of the"),
                       tf::InvalidArgumentError);
  // Without an engine the kernels say what to call.
  auto sum = dist::allreduce(tf::constant(tf::Value({1.0f})), false);
  auto engine = tf::install_collective_engine(nullptr);
  CHECK_THROWS_WITH_AS(sess.run(sum), doctest::Contains("call symflow::distributed::init()"),
                       tf::FailedPreconditionError);
  tf::install_collective_engine(engine);
  CHECK(sess.run(sum).to_vector<float>() == std::vector<float>{static_cast<float>(size())});
}

TEST_CASE("mpi/ops: ranks that disagree on a collective fail on every rank and stay in step") {
  tf::Graph g;
  auto guard = g.as_default();
  // Rank 0 sums 2 floats, the others 3: caught before any data moves.
  auto mismatched =
      dist::allreduce(tf::constant(tf::Value::from_vector(
                          std::vector<float>(rank() == 0 ? 2 : 3, 1.0f), {rank() == 0 ? 2 : 3})),
                      false);
  tf::Session sess(g);
  const std::string expected =
      rank() == 0 ? "rank 0 runs an allreduce of 8 bytes of float32, rank 1 an allreduce of 12 "
                    "bytes of float32"
                  : "rank " + std::to_string(rank()) +
                        " runs an allreduce of 12 bytes of float32, rank 0 an allreduce of 8 "
                        "bytes of float32";
  try {
    sess.run(mismatched);
    FAIL("the mismatched allreduce ran");
  } catch (const tf::InvalidArgumentError& e) {
    CHECK(std::string(e.what()).find("The ranks disagree on this collective") != std::string::npos);
    CHECK(std::string(e.what()).find(expected) != std::string::npos);
    CHECK(e.node_name() == "MpiAllreduce");
  }
  // Rank 0 broadcasts where the others sum.
  auto one = tf::constant(tf::Value({1.0f}));
  auto other_kind = rank() == 0 ? dist::broadcast(one, 0) : dist::allreduce(one, false);
  CHECK_THROWS_WITH_AS(sess.run(other_kind), doctest::Contains("The ranks disagree"),
                       tf::InvalidArgumentError);
  // No data moved, so the ranks are still in step.
  auto sum = dist::allreduce(one, false);
  CHECK(sess.run(sum).to_vector<float>() == std::vector<float>{static_cast<float>(size())});
}

TEST_CASE("mpi/gradients: allreduce, allgather and broadcast") {
  tf::Graph g;
  auto guard = g.as_default();
  const float r1 = static_cast<float>(rank() + 1);
  const float t = triangle();
  SUBCASE("allreduce: the gradients summed over the ranks") {
    auto x = tf::constant(tf::Value({1.0f, 2.0f, 3.0f}));
    auto loss = tf::reduce_sum(dist::allreduce(x, false) * r1);
    auto grad = tf::gradients(loss, {x}).at(0);
    tf::Session sess(g);
    CHECK(sess.run(grad).to_vector<float>() == std::vector<float>{t, t, t});
  }
  SUBCASE("allgather: this rank's rows of the summed gradient") {
    // Rank r gives r + 1 rows; the loss weighs gathered row i by (i + 1)(rank + 1).
    auto x = tf::constant(
        tf::Value::from_vector(std::vector<float>(2 * (rank() + 1), 1.0f), {rank() + 1, 2}));
    auto gathered = dist::allgather(x);
    auto rows = tf::cast(tf::range(1, tf::shape(gathered)[0] + 1), tf::float32);
    auto loss = tf::reduce_sum(gathered * tf::reshape(rows, tf::Dims{-1, 1})) * r1;
    auto grad = tf::gradients(loss, {x}).at(0);
    tf::Session sess(g);
    const int offset = rank() * (rank() + 1) / 2;  // the rows of ranks 0 .. rank-1
    std::vector<float> expected;
    for (int i = 0; i <= rank(); ++i) {
      const float row = static_cast<float>(offset + i + 1);
      expected.insert(expected.end(), {row * t, row * t});
    }
    CHECK(sess.run(grad).to_vector<float>() == expected);
  }
  SUBCASE("broadcast: the summed gradient on the root, zeros elsewhere") {
    auto x = tf::constant(tf::Value({1.0f, 2.0f}));
    auto loss = tf::reduce_sum(dist::broadcast(x, 0) * r1);
    auto grad = tf::gradients(loss, {x}).at(0);
    tf::Session sess(g);
    const float expected = rank() == 0 ? t : 0.0f;
    CHECK(sess.run(grad).to_vector<float>() == std::vector<float>{expected, expected});
  }
}

TEST_CASE("mpi/broadcast_global_variables: every rank starts from the root's values") {
  tf::Graph g;
  auto guard = g.as_default();
  tf::Variable w(tf::Value({1.0f * rank(), 2.0f * rank()}), {.name = "w"});
  tf::Variable count(tf::Value(static_cast<std::int64_t>(100 + rank())),
                     {.trainable = false, .name = "count"});
  const int root = size() - 1;
  tf::Operation sync = dist::broadcast_global_variables(root);
  CHECK(sync.name() == "broadcast_global_variables/group");
  // One fused MpiBroadcast for both variables, float32 and int64.
  int broadcasts = 0;
  for (const tf::Operation& op : g.get_operations()) broadcasts += op.type() == "MpiBroadcast";
  CHECK(broadcasts == 1);
  tf::Session sess(g);
  sess.run(tf::global_variables_initializer());
  CHECK(sess.run(w).to_vector<float>() == std::vector<float>{1.0f * rank(), 2.0f * rank()});
  sess.run(sync);
  CHECK(sess.run(w).to_vector<float>() == std::vector<float>{1.0f * root, 2.0f * root});
  CHECK(sess.run(count).scalar<std::int64_t>() == 100 + root);
  CHECK_THROWS_AS(dist::broadcast_global_variables(-1), tf::ValueError);
}

TEST_CASE("mpi/DistributedOptimizer: one allreduce node for the step's gradients") {
  tf::Graph g;
  auto guard = g.as_default();
  auto [x, y] = batch(0, 4);
  Model m = build_model(x, y, 0.0f);
  tf::train::GradientDescentOptimizer sgd(0.1);
  dist::DistributedOptimizer opt(sgd);
  auto grads = opt.compute_gradients(m.loss);
  CHECK(grads.size() == 4);
  std::vector<std::string> allreduces;
  for (const tf::Operation& op : g.get_operations())
    if (op.type() == "MpiAllreduce") allreduces.push_back(op.name());
  CHECK(allreduces ==
        std::vector<std::string>{"DistributedGradientDescent_Allreduce/MpiAllreduce"});
  // A small fusion threshold cuts the gradients into several nodes.
  dist::DistributedOptimizer small(sgd, {.name = "small", .fusion_threshold_bytes = 64});
  small.compute_gradients(m.loss);
  int small_nodes = 0;
  for (const tf::Operation& op : g.get_operations())
    small_nodes += op.type() == "MpiAllreduce" && op.name().starts_with("small/");
  CHECK(small_nodes == 4);  // 128, 32, 96 and 12 bytes: no two fit in 64
  CHECK_THROWS_AS(dist::DistributedOptimizer(sgd, {.fusion_threshold_bytes = 0}), tf::ValueError);
}

TEST_CASE("mpi/DistributedOptimizer: K steps equal one process on the concatenated batch") {
  for (Kind kind : {Kind::gradient_descent, Kind::adam}) {
    CAPTURE(static_cast<int>(kind));
    const int steps = 5;
    auto distributed = train(kind, steps, true);
    auto single = train(kind, steps, false);
    CHECK(max_difference(distributed, single) <= 1e-6f);
    // Training moved the variables (the test could fail).
    auto untrained = train(kind, 0, false);
    CHECK(max_difference(single, untrained) > 1e-3f);
    // Every rank holds the same variables.
    const auto all = gather_from_all(flatten(distributed));
    for (int r = 1; r < size(); ++r) CHECK(max_difference({all[r]}, {all[0]}) <= 1e-6f);
    if (size() == 2) CHECK(all[1] == all[0]);  // a sum of two is the same on both ranks
  }
}

TEST_CASE("mpi/DistributedOptimizer: a gather's IndexedSlices gradient is allgathered") {
  // Rows of an embedding looked up by each rank's ids (some repeated across ranks): the
  // distributed steps equal one process's on every rank's ids, for both optimizers.
  for (Kind kind : {Kind::gradient_descent, Kind::adam}) {
    CAPTURE(static_cast<int>(kind));
    auto run = [&](bool distributed) {
      tf::Graph g;
      auto guard = g.as_default();
      const std::vector<std::int32_t> all_ids = {0, 3, 3, 5, 1, 3, 2, 0, 4, 5, 5, 1};
      const int per_rank = 4;
      std::vector<std::int32_t> ids =
          distributed
              ? std::vector<std::int32_t>(all_ids.begin() + rank() * per_rank,
                                          all_ids.begin() + (rank() + 1) * per_rank)
              : std::vector<std::int32_t>(all_ids.begin(), all_ids.begin() + size() * per_rank);
      const auto n = static_cast<std::int64_t>(ids.size());
      tf::Variable table(tf::Value::from_vector(numbers(6 * 3, 20), {6, 3}), {.name = "table"});
      auto rows = tf::gather(table, tf::constant(tf::Value::from_vector(ids, {n})));
      auto loss = tf::reduce_mean(tf::square(rows - 1.0f));
      auto optimizer = make_optimizer(kind);
      tf::Operation step;
      if (distributed) {
        dist::DistributedOptimizer opt(*optimizer);
        auto grads = opt.compute_gradients(loss);
        CHECK(grads.at(0).first.is_sparse());
        step = opt.apply_gradients(grads);
      } else {
        step = optimizer->minimize(loss);
      }
      tf::Session sess(g);
      sess.run(tf::global_variables_initializer());
      for (int i = 0; i < 3; ++i) sess.run(step);
      return std::vector<std::vector<float>>{sess.run(table).to_vector<float>()};
    };
    const auto distributed = run(true), single = run(false);
    CHECK(max_difference(distributed, single) <= 1e-6f);
    CHECK(max_difference(single, {numbers(6 * 3, 20)}) > 1e-3f);
  }
}

TEST_CASE("mpi/checkpoint: rank 0 writes, every rank restores") {
  // One directory for the job: rank 0's process id, sent with MPI.
  int id = static_cast<int>(getpid());
  MPI_Bcast(&id, 1, MPI_INT, 0, MPI_COMM_WORLD);
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("symflow_mpi_ckpt_" + std::to_string(id));
  if (rank() == 0) std::filesystem::create_directories(dir);
  MPI_Barrier(MPI_COMM_WORLD);

  tf::Graph g;
  auto guard = g.as_default();
  tf::Variable w(tf::Value({1.0f, 2.0f}), {.name = "w"});
  tf::train::Saver saver;
  tf::Session sess(g);
  sess.run(tf::global_variables_initializer());
  sess.run(w.assign(tf::Value({3.0f, 4.0f})));
  // Each rank passes its own prefix: only rank 0's may appear on disk.
  const std::string mine = (dir / ("model_rank" + std::to_string(rank()))).string();
  const std::string saved = dist::save_on_root(saver, sess, mine, 7);
  CHECK(saved == (dir / "model_rank0-7").string());
  MPI_Barrier(MPI_COMM_WORLD);
  for (int r = 1; r < size(); ++r)
    CHECK_FALSE(std::filesystem::exists(dir / ("model_rank" + std::to_string(r) + "-7.index")));
  CHECK(tf::train::latest_checkpoint(dir.string()) == saved);

  sess.run(w.assign(tf::Value({0.0f, 0.0f})));
  saver.restore(sess, *tf::train::latest_checkpoint(dir.string()));
  CHECK(sess.run(w).to_vector<float>() == std::vector<float>{3.0f, 4.0f});

  // A failed save on rank 0: its own error there, AbortedError with its message elsewhere.
  const std::string bad = "/dev/null/not_a_directory/model";
  if (rank() == 0)
    CHECK_THROWS(dist::save_on_root(saver, sess, bad));
  else
    CHECK_THROWS_WITH_AS(dist::save_on_root(saver, sess, bad),
                         doctest::Contains("Rank 0 failed to save the checkpoint"),
                         tf::AbortedError);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank() == 0) std::filesystem::remove_all(dir);
}

// Last: it leaves the waiting ranks' engine out of step.
TEST_CASE("mpi/timeout: a rank that fails makes the others fail within the timeout") {
  tf::Graph g;
  auto guard = g.as_default();
  auto sum = dist::allreduce(tf::constant(tf::Value({1.0f})), false);
  tf::Session sess(g);
  sess.run(sum);  // planned and run once on every rank
  dist::set_timeout(std::chrono::seconds(3));
  const int failing = size() - 1;
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank() == failing) {
    // This rank fails in its own code and never reaches the allreduce.
    CHECK_THROWS_AS(throw std::runtime_error("data file missing"), std::runtime_error);
  } else {
    const auto start = std::chrono::steady_clock::now();
    CHECK_THROWS_WITH_AS(sess.run(sum), doctest::Contains("did not join an allreduce within 3.0 s"),
                         tf::DeadlineExceededError);
    const double waited =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    CHECK(waited >= 2.9);
    CHECK(waited < 8.0);
    try {
      sess.run(sum);
    } catch (const tf::Error& e) {
      CHECK(e.node_name() == "MpiAllreduce");
    }
    // The ranks are out of step: later collectives refuse at once.
    CHECK_THROWS_WITH_AS(sess.run(sum), doctest::Contains("out of step"), tf::AbortedError);
  }
  // Test hygiene only: the failed rank joins late, so that the abandoned collectives complete
  // and MPI can finalize.
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank() == failing) {
    dist::set_timeout(std::chrono::seconds(20));
    CHECK(sess.run(sum).to_vector<float>() == std::vector<float>{static_cast<float>(size())});
    // It learned that the others gave up, so it refuses the next collective as they do.
    CHECK_THROWS_WITH_AS(sess.run(sum), doctest::Contains("another rank gave up"),
                         tf::AbortedError);
  }
}

}  // namespace symflow_test_mpi_distributed_test

int main(int argc, char** argv) {
  symflow::distributed::init({.timeout = std::chrono::seconds(30)});
  doctest::Context context(argc, argv);
  int failed = context.run() != 0 ? 1 : 0;
  // Every rank reports a failure of any.
  MPI_Allreduce(MPI_IN_PLACE, &failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  symflow::distributed::shutdown();
  return failed;
}
