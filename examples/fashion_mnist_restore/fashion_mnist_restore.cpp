// Uses a Fashion-MNIST model without the code that built it: the second and third
// programs of the save-and-restore story (docs/saving.md).
//
//   fashion_mnist_restore --checkpoint-dir DIR [--freeze FILE] [--data DIR]
//       restores the newest checkpoint of DIR (written by fashion_mnist --save DIR) from
//       its MetaGraph, finds the model's input and output through the "inputs" and
//       "outputs" collections, and evaluates the test set; with --freeze it also writes
//       the frozen GraphDef (variables turned into constants) to FILE.
//   fashion_mnist_restore --frozen FILE [--data DIR]
//       evaluates a frozen GraphDef, finding "images:0" and "logits:0" by name.
//
// Both print "test predictions crc32c: 0x..." and "test accuracy: 0.xxxx", which match
// the training program's last lines exactly.

#include <cstdio>
#include <filesystem>
#include <iostream>
#include <stdexcept>
#include <string>

#include <symflow/data/idx.hpp>
#include <symflow/io/graph_io.hpp>
#include <symflow/io/importer.hpp>
#include <symflow/symflow.hpp>
#include <symflow/train/checkpoint_state.hpp>
#include <symflow/train/graph_util.hpp>
#include <symflow/train/import_meta_graph.hpp>

#include "../fashion_mnist/test_predictions.hpp"

namespace tf = symflow;

namespace {

struct Options {
  std::string checkpoint_dir;
  std::string freeze;
  std::string frozen;
  std::string data = "/usr/share/datasets/fashion-mnist";
};

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (i + 1 >= argc) throw std::invalid_argument(a + " needs a value");
    std::string v = argv[++i];
    if (a == "--checkpoint-dir")
      o.checkpoint_dir = v;
    else if (a == "--freeze")
      o.freeze = v;
    else if (a == "--frozen")
      o.frozen = v;
    else if (a == "--data")
      o.data = v;
    else
      throw std::invalid_argument("unknown argument " + a +
                                  " (expected --checkpoint-dir DIR [--freeze FILE], or --frozen "
                                  "FILE; and --data DIR)");
  }
  if (o.checkpoint_dir.empty() == o.frozen.empty())
    throw std::invalid_argument("give either --checkpoint-dir DIR or --frozen FILE");
  if (!o.freeze.empty() && o.checkpoint_dir.empty())
    throw std::invalid_argument("--freeze needs --checkpoint-dir");
  return o;
}

template <class T>
T collection_item(const std::string& key, std::size_t i) {
  auto items = tf::get_collection(key);
  if (i >= items.size() || !std::holds_alternative<T>(items[i]))
    throw std::runtime_error("the MetaGraph has no collection '" + key + "' with the model's " +
                             (key == "inputs" ? "input" : "output"));
  return std::get<T>(items[i]);
}

}  // namespace

int main(int argc, char** argv) try {
  const Options opt = parse(argc, argv);
  auto test = tf::data::load_idx_dataset(opt.data + "/t10k-images-idx3-ubyte.gz",
                                         opt.data + "/t10k-labels-idx1-ubyte.gz");
  example::TestPredictions result;
  if (!opt.checkpoint_dir.empty()) {
    auto latest = tf::train::latest_checkpoint(opt.checkpoint_dir);
    if (!latest) throw std::runtime_error("no checkpoint in " + opt.checkpoint_dir);
    auto saver = tf::train::import_meta_graph(*latest + ".meta");
    if (!saver) throw std::runtime_error(*latest + ".meta has no variables to restore");
    tf::Session sess;
    saver->restore(sess, *latest);
    auto images = collection_item<tf::Output>("inputs", 0);
    auto logits = collection_item<tf::Output>("outputs", 0);
    auto step = tf::train::get_global_step();
    std::printf("restored %s (global step %lld): %zu nodes, input %s, output %s\n",
                std::filesystem::path(*latest).filename().c_str(),
                static_cast<long long>(step ? sess.run(*step).scalar<std::int64_t>() : -1),
                tf::get_default_graph().num_nodes(), images.name().c_str(), logits.name().c_str());
    result = example::predict_test_set(test, [&](const tf::Value& batch) {
      return sess.run(logits, {{images, batch}});
    });
    if (!opt.freeze.empty()) {
      tf::GraphDef frozen = tf::graph_util::convert_variables_to_constants(
          sess, tf::get_default_graph().as_graph_def(), {logits.op().name()});
      std::filesystem::path file(opt.freeze);
      std::string dir = file.parent_path().empty() ? "." : file.parent_path().string();
      tf::write_graph(frozen, dir, file.filename().string(), /*as_text=*/false);
      std::printf("froze %zu nodes into %s\n", frozen.node.size(), file.filename().c_str());
    }
  } else {
    tf::GraphDef frozen = tf::read_graph(opt.frozen);
    tf::import_graph_def(frozen, {.name = ""});
    std::size_t variables = 0;
    for (const auto& op : tf::get_default_graph().get_operations())
      variables += op.type() == "VariableV2" ? 1 : 0;
    std::printf("frozen graph %s: %zu nodes, %zu variables\n",
                std::filesystem::path(opt.frozen).filename().c_str(), frozen.node.size(),
                variables);
    tf::Session sess;
    result = example::predict_test_set(test, [&](const tf::Value& batch) {
      return sess.run("logits:0", {{"images:0", batch}});
    });
  }
  std::printf("test predictions crc32c: 0x%08x\n", static_cast<unsigned>(result.crc32c));
  std::printf("test accuracy: %.4f\n", result.accuracy);
  return 0;
} catch (const std::exception& e) {
  std::cerr << "fashion_mnist_restore error: " << e.what() << "\n";
  return 1;
}
