// Trains a classifier on Fashion-MNIST the TensorFlow 1.x way: build the graph once,
// minimize the loss, run the train op batch after batch, and measure test accuracy.
//
//   fashion_mnist --model mlp|cnn --epochs N [--train-limit K] [--batch B]
//                 [--data DIR] [--seed S] [--save DIR] [--logdir DIR] [--distributed]
//
// The data is the IDX files of Debian's dataset-fashion-mnist package. The last line
// printed is "test accuracy: 0.xxxx", after "test predictions crc32c: 0x...", a
// checksum of the predicted classes of the whole test set. With --save, a checkpoint
// (and its MetaGraph) is written to DIR after every epoch; examples/fashion_mnist_restore
// restores the newest one without this program's model code. With --logdir, TensorBoard's
// event file goes to DIR: the graph, the training loss every 100 steps, a histogram of
// each weight, and the test accuracy after each epoch (tensorboard --logdir DIR).
//
// With --distributed, under `mpirun -np N` (a build with symflow::mpi), the N processes
// train one model as Horovod does: process r takes the training examples r, r + N, r + 2N,
// ... (all with the same count, the few left over are skipped), the gradients are averaged
// over the processes at every step (DistributedOptimizer), so one step covers N batches of
// B images, and every process starts from process 0's variables. Process 0 alone prints and
// writes the checkpoints and the event file.

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <symflow/data/idx.hpp>
#include <symflow/io/summary_writer.hpp>  // summary::FileWriter: not in the umbrella
#include <symflow/symflow.hpp>
#include <symflow/train/saver.hpp>

#ifdef SYMFLOW_HAVE_MPI
#include <symflow/distributed/distributed.hpp>
#endif

#include "test_predictions.hpp"

namespace tf = symflow;

namespace {

struct Options {
  std::string model = "mlp";
  int epochs = 5;
  std::int64_t train_limit = 0;
  std::int64_t batch = 64;
  std::string data = "/usr/share/datasets/fashion-mnist";
  std::int64_t seed = 1;
  std::string save;    // checkpoint directory; empty: no checkpoints
  std::string logdir;  // TensorBoard's event files; empty: none
  bool distributed = false;
};

Options parse(int argc, char** argv) {
  Options o;
  auto value = [&](int& i) -> std::string {
    if (i + 1 >= argc) throw std::invalid_argument(std::string(argv[i]) + " needs a value");
    return argv[++i];
  };
  auto number = [&](int& i) -> std::int64_t {
    std::string flag = argv[i], text = value(i);
    std::size_t used = 0;
    std::int64_t n = 0;
    try {
      n = std::stoll(text, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used == 0 || used != text.size())
      throw std::invalid_argument(flag + " needs an integer, got '" + text + "'");
    return n;
  };
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--model") {
      o.model = value(i);
    } else if (a == "--epochs") {
      o.epochs = static_cast<int>(std::clamp<std::int64_t>(number(i), 0, 1'000'000));
    } else if (a == "--train-limit") {
      o.train_limit = number(i);
    } else if (a == "--batch") {
      o.batch = number(i);
    } else if (a == "--data") {
      o.data = value(i);
    } else if (a == "--seed") {
      o.seed = number(i);
    } else if (a == "--save") {
      o.save = value(i);
    } else if (a == "--logdir") {
      o.logdir = value(i);
    } else if (a == "--distributed") {
#ifndef SYMFLOW_HAVE_MPI
      throw std::invalid_argument(
          "--distributed needs MPI, and this fashion_mnist was built without it (no "
          "symflow::mpi target: install libopenmpi-dev and openmpi-bin, then reconfigure)");
#endif
      o.distributed = true;
    } else {
      throw std::invalid_argument("unknown argument " + a +
                                  " (expected --model mlp|cnn, --epochs N, --train-limit K, "
                                  "--batch B, --data DIR, --seed S, --save DIR, --logdir DIR, "
                                  "--distributed)");
    }
  }
  if (o.model != "mlp" && o.model != "cnn")
    throw std::invalid_argument("--model must be mlp or cnn, got " + o.model);
  if (o.epochs < 1 || o.batch < 1) throw std::invalid_argument("--epochs and --batch must be >= 1");
  if (o.train_limit < 0)
    throw std::invalid_argument("--train-limit must be >= 0 (0: the whole training set)");
  return o;
}

// A dense layer: x @ w + b, with Glorot-uniform weights as tf.layers.dense.
tf::Output dense(const tf::Output& x, std::int64_t units, const std::string& name) {
  tf::variable_scope scope(name);
  std::int64_t in = x.get_shape().dims().back();
  auto w = tf::get_variable("kernel", tf::Shape{in, units},
                            {.initializer = tf::glorot_uniform_initializer()});
  auto b = tf::get_variable("bias", tf::Shape{units}, {.initializer = tf::zeros_initializer()});
  return tf::add(tf::matmul(x, w), b);
}

tf::Output conv(const tf::Output& x, std::int64_t filters, const std::string& name) {
  tf::variable_scope scope(name);
  std::int64_t in = x.get_shape().dims().back();
  auto w = tf::get_variable("kernel", tf::Shape{3, 3, in, filters},
                            {.initializer = tf::glorot_uniform_initializer()});
  auto b = tf::get_variable("bias", tf::Shape{filters}, {.initializer = tf::zeros_initializer()});
  return tf::nn::relu(tf::nn::bias_add(tf::nn::conv2d(x, w, {1, 1, 1, 1}, "SAME"), b));
}

// Logits [batch, 10] for images [batch, 784].
tf::Output build_model(const std::string& model, const tf::Output& images) {
  if (model == "mlp") {
    auto h1 = tf::nn::relu(dense(images, 256, "dense"));
    auto h2 = tf::nn::relu(dense(h1, 128, "dense_1"));
    return dense(h2, 10, "dense_2");
  }
  auto x = tf::reshape(images, {-1, 28, 28, 1});
  auto c1 = tf::nn::max_pool(conv(x, 32, "conv2d"), {1, 2, 2, 1}, {1, 2, 2, 1}, "VALID");
  auto c2 = tf::nn::max_pool(conv(c1, 64, "conv2d_1"), {1, 2, 2, 1}, {1, 2, 2, 1}, "VALID");
  auto flat = tf::reshape(c2, {-1, 7 * 7 * 64});
  auto h = tf::nn::relu(dense(flat, 128, "dense"));
  return dense(h, 10, "dense_1");
}

// Rows `order[begin, end)` of `src` ([n, width]) copied into a new batch Value.
tf::Value gather_rows(const tf::Value& src, const std::vector<std::int64_t>& order,
                      std::int64_t begin, std::int64_t end) {
  const std::int64_t width = src.rank() == 2 ? src.dims()[1] : 1;
  tf::Dims dims = src.dims();
  dims[0] = end - begin;
  tf::Value out(src.dtype(), dims);
  const std::size_t row_bytes = static_cast<std::size_t>(width) * tf::dtype_size(src.dtype());
  const auto* s = static_cast<const std::byte*>(src.raw_data());
  auto* d = static_cast<std::byte*>(out.raw_data());
  for (std::int64_t i = begin; i < end; ++i)
    std::copy_n(s + static_cast<std::size_t>(order[static_cast<std::size_t>(i)]) * row_bytes,
                row_bytes, d + static_cast<std::size_t>(i - begin) * row_bytes);
  return out;
}

// Progress within an epoch: a redrawn bar on a terminal, a line per quarter otherwise.
class Progress {
 public:
  Progress(int epoch, std::int64_t total) : epoch_(epoch), total_(total), tty_(isatty(1) != 0) {}
  void update(std::int64_t done, double loss, double images_per_second) {
    int quarter = static_cast<int>(4 * done / total_);
    if (tty_) {
      const int width = 30;
      int filled = static_cast<int>(width * done / total_);
      std::printf("\repoch %d [%s%s] %3d%% loss %.4f %7.0f img/s", epoch_,
                  std::string(static_cast<std::size_t>(filled), '=').c_str(),
                  std::string(static_cast<std::size_t>(width - filled), ' ').c_str(),
                  static_cast<int>(100 * done / total_), loss, images_per_second);
      std::fflush(stdout);
    } else if (quarter > last_quarter_ && done < total_) {
      std::printf("epoch %d: %3d%% loss %.4f %.0f img/s\n", epoch_, 25 * quarter, loss,
                  images_per_second);
      std::fflush(stdout);
    }
    last_quarter_ = std::max(last_quarter_, quarter);
  }
  void finish() {
    if (tty_) std::printf("\n");
  }

 private:
  int epoch_;
  std::int64_t total_;
  bool tty_;
  int last_quarter_ = 0;
};

// This process among the job's: process 0 of 1 without --distributed.
struct Job {
  int rank = 0;
  int size = 1;
  bool root() const { return rank == 0; }
};

// Ends every process of the job after an error in one (the others would wait for it in
// their next allreduce); nothing without --distributed.
void abort_job([[maybe_unused]] bool distributed) {
#ifdef SYMFLOW_HAVE_MPI
  if (distributed && tf::distributed::is_initialized()) MPI_Abort(MPI_COMM_WORLD, 1);
#endif
}

}  // namespace

int main(int argc, char** argv) try {
  using Clock = std::chrono::steady_clock;
  const Options opt = parse(argc, argv);
  const auto start = Clock::now();
  Job job;
#ifdef SYMFLOW_HAVE_MPI
  if (opt.distributed) {
    tf::distributed::init();
    job = {tf::distributed::rank(), tf::distributed::size()};
  }
#endif

  auto train =
      tf::data::load_idx_dataset(opt.data + "/train-images-idx3-ubyte.gz",
                                 opt.data + "/train-labels-idx1-ubyte.gz", opt.train_limit);
  auto test = tf::data::load_idx_dataset(opt.data + "/t10k-images-idx3-ubyte.gz",
                                         opt.data + "/t10k-labels-idx1-ubyte.gz");
  // This process's examples: all of them, or every size-th from its rank on (the same count
  // in every process, so that they all run the same number of steps).
  const std::int64_t shard_size = train.size() / job.size;
  std::vector<std::int64_t> order(static_cast<std::size_t>(shard_size));
  for (std::int64_t i = 0; i < shard_size; ++i)
    order[static_cast<std::size_t>(i)] = job.rank + i * job.size;
  const std::int64_t images_per_epoch = shard_size * job.size;
  if (job.root()) {
    std::printf("fashion_mnist: model %s, %lld training and %lld test images, batch %lld\n",
                opt.model.c_str(), static_cast<long long>(train.size()),
                static_cast<long long>(test.size()), static_cast<long long>(opt.batch));
    if (opt.distributed)
      std::printf(
          "distributed: %d processes of %lld training images, batch %lld per process "
          "(%lld per step)\n",
          job.size, static_cast<long long>(shard_size), static_cast<long long>(opt.batch),
          static_cast<long long>(opt.batch * job.size));
  }

  tf::set_random_seed(opt.seed);
  auto images = tf::placeholder<float>(tf::Shape{-1, 784}, "images");
  auto labels = tf::placeholder<std::int32_t>(tf::Shape{-1}, "labels");
  auto logits = tf::identity(build_model(opt.model, images), "logits");
  // What a program without this code needs to use the model (fashion_mnist_restore).
  tf::add_to_collection("inputs", images);
  tf::add_to_collection("inputs", labels);
  tf::add_to_collection("outputs", logits);
  auto loss = tf::reduce_mean(tf::nn::sparse_softmax_cross_entropy_with_logits(labels, logits), {},
                              false, "loss");
  auto global_step = tf::train::get_or_create_global_step();
  tf::train::AdamOptimizer adam({.learning_rate = 1e-3});
  tf::Operation train_op;
  std::optional<tf::Operation> sync;  // every process takes process 0's initial variables
  if (opt.distributed) {
#ifdef SYMFLOW_HAVE_MPI
    train_op =
        tf::distributed::DistributedOptimizer(adam).minimize(loss, {.global_step = global_step});
    sync = tf::distributed::broadcast_global_variables(0);
#endif
  } else {
    train_op = adam.minimize(loss, {.global_step = global_step});
  }
  if (job.root())
    std::printf("graph: %zu nodes, %lld trainable parameters\n",
                tf::get_default_graph().num_nodes(),
                static_cast<long long>(tf::count_params(tf::trainable_variables())));

  // tf.summary ops and a FileWriter, only when asked for (the graph is otherwise the model
  // alone, as fashion_mnist_restore's checks expect).
  std::optional<tf::Tensor<std::string>> summaries;
  std::optional<tf::summary::FileWriter> writer;
  if (!opt.logdir.empty()) {
    tf::summary::scalar("train_loss", loss);
    for (const tf::Variable& v : tf::trainable_variables())
      tf::summary::histogram(v.op().name() + "_weights", v.value());
    summaries = tf::summary::merge_all();
    if (job.root()) writer.emplace(opt.logdir, tf::get_default_graph());
  }

  tf::Session sess;
  sess.run(tf::global_variables_initializer());
  if (sync) sess.run(*sync);
  std::optional<tf::train::Saver> saver;
  if (!opt.save.empty()) {
    if (job.root()) std::filesystem::create_directories(opt.save);
    saver.emplace(tf::train::SaverOptions{.max_to_keep = 3});
  }
  // Every process saves alike without --distributed; with it, process 0 writes and the
  // others wait for its checkpoint.
  auto save = [&]() -> std::string {
#ifdef SYMFLOW_HAVE_MPI
    if (opt.distributed)
      return tf::distributed::save_on_root(*saver, sess, opt.save + "/model.ckpt",
                                           sess.run(global_step).scalar<std::int64_t>());
#endif
    return saver->save(sess, opt.save + "/model.ckpt", global_step);
  };

  auto evaluate = [&] {
    return example::predict_test_set(test, [&](const tf::Value& batch) {
      return sess.run(logits, {{images, batch}});
    });
  };

  std::mt19937_64 rng(static_cast<std::uint64_t>(opt.seed));
  example::TestPredictions result;
  std::int64_t step = 0;
  for (int epoch = 1; epoch <= opt.epochs; ++epoch) {
    std::shuffle(order.begin(), order.end(), rng);
    const auto epoch_start = Clock::now();
    Progress progress(epoch, images_per_epoch);
    double loss_sum = 0;
    std::int64_t batches = 0;
    for (std::int64_t b = 0; b < shard_size; b += opt.batch) {
      std::int64_t e = std::min(shard_size, b + opt.batch);
      std::vector<tf::Fetch> fetches{loss};
      const bool summarize = writer && step % 100 == 0;
      if (summarize) fetches.emplace_back(*summaries);
      auto out = sess.run(fetches,
                          {{images, gather_rows(train.images, order, b, e)},
                           {labels, gather_rows(train.labels, order, b, e)}},
                          {train_op});
      if (summarize) writer->add_summary(out[1], step);
      ++step;
      loss_sum += out[0].data<float>()[0];
      ++batches;
      if (!job.root()) continue;
      double seconds = std::chrono::duration<double>(Clock::now() - epoch_start).count();
      // Images of every process: each ran its batch of this step.
      progress.update(e * job.size, loss_sum / static_cast<double>(batches),
                      static_cast<double>(e * job.size) / std::max(seconds, 1e-9));
    }
    double seconds = std::chrono::duration<double>(Clock::now() - epoch_start).count();
    if (job.root()) progress.finish();
    // Every process evaluates (their variables are equal), so none waits for process 0.
    result = evaluate();
    if (job.root()) {
      // The loss is process 0's mean over its own batches.
      std::printf("epoch %d: loss %.4f, test accuracy %.4f, %.1f s (%.0f img/s)\n", epoch,
                  loss_sum / static_cast<double>(batches), result.accuracy, seconds,
                  static_cast<double>(images_per_epoch) / seconds);
    }
    if (writer) {
      std::string accuracy;
      tf::io::summary_proto::append_simple_value(accuracy, "test_accuracy",
                                                 static_cast<float>(result.accuracy));
      writer->add_summary(accuracy, step);
      writer->flush();
    }
    if (saver) {
      const std::string path = save();
      if (job.root()) std::printf("saved %s\n", path.c_str());
    }
  }
  if (job.root()) {
    std::printf("global step: %lld\n",
                static_cast<long long>(sess.run(global_step).data<std::int64_t>()[0]));
    std::printf("total time: %.1f s\n",
                std::chrono::duration<double>(Clock::now() - start).count());
    std::printf("test predictions crc32c: 0x%08x\n", static_cast<unsigned>(result.crc32c));
    std::printf("test accuracy: %.4f\n", result.accuracy);
  }
#ifdef SYMFLOW_HAVE_MPI
  if (opt.distributed) tf::distributed::shutdown();
#endif
  return 0;
} catch (const std::exception& e) {
  std::cerr << "fashion_mnist error: " << e.what() << "\n";
  abort_job(std::find(argv + 1, argv + argc, std::string_view("--distributed")) != argv + argc);
  return 1;
}
