// A killed data-parallel job resumes from its last checkpoint with the result of a job that
// was never killed, bit for bit. resume_test.sh (ctest mpi.resume) runs this program under
// mpirun three times: uninterrupted, killed midway, and relaunched on the killed job's
// directory; it compares the variables the first and the last runs wrote.
//
//   resume_test DIR STEPS [KILL_AT]
//
// Every rank builds a two-layer regression model trained with DistributedOptimizer(Adam),
// restores the newest checkpoint of DIR if there is one (else starts from rank 0's initial
// variables), then trains until the global step is STEPS, rank 0 saving after each step.
// Each step's batch depends on the global step and the rank only, so a resumed job sees the
// batches an uninterrupted one would. With KILL_AT, rank 0 kills itself (SIGKILL: no
// handler, no cleanup) once the step that makes the global step KILL_AT has run everywhere,
// before that step's checkpoint is written: the job loses a step of work, as a crash does.
// At the end rank 0 writes DIR/final.bin: the bytes of every global variable (weights,
// Adam's slots and powers, the global step), in the order of global_variables().
#include <mpi.h>

#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <fstream>
#include <iostream>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include <symflow/distributed/distributed.hpp>
#include <symflow/symflow.hpp>
#include <symflow/train/train.hpp>

namespace tf = symflow;
namespace dist = symflow::distributed;

namespace {

constexpr std::int64_t kRows = 8, kInputs = 4, kHidden = 16, kOutputs = 3;

tf::Value normal_values(tf::Dims dims, std::uint64_t seed, float scale) {
  std::mt19937_64 gen(seed);
  std::normal_distribution<float> normal(0.0f, scale);
  tf::Value out(tf::DType::float32, dims);
  float* p = out.data<float>();
  for (std::int64_t i = 0; i < out.size(); ++i) p[i] = normal(gen);
  return out;
}

// The rows a rank trains on at a step: the same for the same (step, rank) in every run.
std::pair<tf::Value, tf::Value> batch(std::int64_t step, int rank) {
  const auto seed = static_cast<std::uint64_t>(step * 1000 + rank);
  return {normal_values({kRows, kInputs}, 2 * seed + 1, 1.0f),
          normal_values({kRows, kOutputs}, 2 * seed + 2, 1.0f)};
}

int run(const std::string& dir, std::int64_t steps, std::optional<std::int64_t> kill_at) {
  dist::init({.timeout = std::chrono::seconds(60)});
  const int rank = dist::rank();

  auto x = tf::placeholder<float>(tf::Shape{-1, kInputs}, "x");
  auto y = tf::placeholder<float>(tf::Shape{-1, kOutputs}, "y");
  // Different initial values on every rank: the broadcast (or the restore) makes them equal.
  const auto init_seed = static_cast<std::uint64_t>(100 + rank);
  tf::Variable w1(normal_values({kInputs, kHidden}, init_seed, 0.5f), {.name = "w1"});
  tf::Variable b1(normal_values({kHidden}, init_seed + 10, 0.1f), {.name = "b1"});
  tf::Variable w2(normal_values({kHidden, kOutputs}, init_seed + 20, 0.5f), {.name = "w2"});
  tf::Variable b2(normal_values({kOutputs}, init_seed + 30, 0.1f), {.name = "b2"});
  auto hidden = tf::nn::relu(tf::matmul(x, w1) + b1);
  auto loss = tf::reduce_mean(tf::square(tf::matmul(hidden, w2) + b2 - y));
  auto global_step = tf::train::get_or_create_global_step();
  tf::train::AdamOptimizer adam(0.01);
  dist::DistributedOptimizer optimizer(adam);
  tf::Operation train = optimizer.minimize(loss, {.global_step = global_step});
  tf::Operation sync = dist::broadcast_global_variables(0);
  tf::train::Saver saver(tf::train::SaverOptions{.max_to_keep = 100});

  tf::Session sess;
  sess.run(tf::global_variables_initializer());
  if (std::optional<std::string> last = tf::train::latest_checkpoint(dir)) {
    saver.restore(sess, *last);
    if (rank == 0)
      std::printf("resumed from %s at step %lld\n", last->c_str(),
                  static_cast<long long>(sess.run(global_step).scalar<std::int64_t>()));
  }
  sess.run(sync);

  for (std::int64_t step = sess.run(global_step).scalar<std::int64_t>(); step < steps;) {
    auto [xs, ys] = batch(step, rank);
    sess.run(train, {{x, xs}, {y, ys}});
    step = sess.run(global_step).scalar<std::int64_t>();
    if (kill_at && step == *kill_at && rank == 0) {
      std::printf("killing rank 0 at step %lld, before its checkpoint\n",
                  static_cast<long long>(step));
      std::fflush(stdout);
      std::raise(SIGKILL);
    }
    dist::save_on_root(saver, sess, dir + "/model", step);
  }

  if (rank == 0) {
    std::ofstream out(dir + "/final.bin", std::ios::binary);
    for (const tf::Variable& v : tf::global_variables()) {
      const tf::Value value = sess.run(v);
      out.write(static_cast<const char*>(value.raw_data()),
                static_cast<std::streamsize>(value.nbytes()));
    }
    std::printf("final step %lld, %zu variables\n",
                static_cast<long long>(sess.run(global_step).scalar<std::int64_t>()),
                tf::global_variables().size());
  }
  dist::shutdown();
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3 && argc != 4) {
    std::cerr << "usage: resume_test DIR STEPS [KILL_AT]\n";
    return 2;
  }
  try {
    std::optional<std::int64_t> kill_at;
    if (argc == 4) kill_at = std::stoll(argv[3]);
    return run(argv[1], std::stoll(argv[2]), kill_at);
  } catch (const std::exception& e) {
    std::cerr << "resume_test error: " << e.what() << "\n";
    MPI_Abort(MPI_COMM_WORLD, 1);
    return 1;
  }
}
