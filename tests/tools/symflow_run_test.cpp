// The symflow-run tool (tools/symflow_run.cpp), run as a user runs it: on TensorFlow's
// files, with .npy inputs, against TensorFlow's own results; and its errors.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <unistd.h>

#include <xtensor/xnpy.hpp>

#include <symflow/symflow.hpp>

namespace symflow_test_tools_symflow_run_test {

namespace fs = std::filesystem;

struct Result {
  int status = -1;
  std::string out;
  std::string err;
};

std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Runs symflow-run with `args`, capturing its exit status, stdout and stderr. ctest runs
// the cases as parallel processes, so each process captures into a folder of its own.
Result run_tool(const std::string& args) {
  const fs::path dir =
      fs::temp_directory_path() / ("symflow_test_symflow_run_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const std::string command = std::string("\"") + SYMFLOW_RUN_PATH + "\" " + args + " >\"" +
                              (dir / "out.txt").string() + "\" 2>\"" + (dir / "err.txt").string() +
                              "\"";
  const int raw = std::system(command.c_str());
  Result r;
  r.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  r.out = slurp(dir / "out.txt");
  r.err = slurp(dir / "err.txt");
  fs::remove_all(dir);
  return r;
}

std::string fixture(const std::string& relative) {
  return std::string(SYMFLOW_SHARED_DIR) + "/fixtures/tf/" + relative;
}

TEST_CASE("tools/symflow-run: --show lists a frozen TensorFlow graph's inputs and outputs") {
  Result r = run_tool("\"" + fixture("tf1_frozen_sru_graphdef/graph.pb") + "\" --show");
  CHECK(r.status == 0);
  CHECK(r.out ==
        "inputs:\n  input_4:0  float32 (?, 5, 12)\noutputs:\n  output_node0:0  float32 (?, 4)\n");
}

TEST_CASE("tools/symflow-run: a TF 2.x text GraphDef fed from .npy files gives TF's result") {
  const std::string dir = fixture("tf2_text_graphdefs/add_1x4x4x4_f32/");
  const fs::path out = fs::temp_directory_path() / "symflow_test_symflow_run_result.npy";
  fs::remove(out);
  Result r = run_tool("\"" + dir + "model.pbtxt\" --feed placeholder_0=\"" + dir +
                      "placeholder_0.npy\" --feed placeholder_1:0=\"" + dir +
                      "placeholder_1.npy\" --fetch Identity=\"" + out.string() + "\"");
  REQUIRE(r.status == 0);
  auto got = xt::load_npy<float>(out.string());
  auto expected = xt::load_npy<float>(dir + "tf_result.npy");
  REQUIRE(got.shape() == expected.shape());
  float worst = 0.0f;
  for (std::size_t i = 0; i < got.size(); ++i)
    worst = std::max(worst, std::abs(got.flat(i) - expected.flat(i)));
  CHECK(worst <= 1e-6f);
  fs::remove(out);
}

TEST_CASE("tools/symflow-run: --run, and fetches printed as NumPy prints them") {
  const fs::path dir = fs::temp_directory_path() / "symflow_test_symflow_run_inputs";
  fs::create_directories(dir);
  xt::dump_npy((dir / "a.npy").string(), xt::xarray<float>{2.0f, 3.0f});
  xt::dump_npy((dir / "b.npy").string(), xt::xarray<float>{4.0f, 5.0f});
  const std::string model = "\"" + fixture("tf1_small_graphdefs/multiplication.pb") + "\"";
  Result r = run_tool(model + " --feed a=\"" + (dir / "a.npy").string() + "\" --feed b=\"" +
                      (dir / "b.npy").string() + "\" --fetch c --fetch a:0");
  CHECK(r.status == 0);
  CHECK(r.out == "c:0 =\n[ 8. 15.]\na:0 =\n[2. 3.]\n");

  // addition.pb's `init` is a NoOp: it runs (twice) without feeds; z needs them.
  const std::string addition = "\"" + fixture("tf1_small_graphdefs/addition.pb") + "\"";
  r = run_tool(addition + " --run init:2");
  CHECK(r.status == 0);
  CHECK(r.out.empty());
  r = run_tool(addition + " --run init --fetch z");
  CHECK(r.status == 1);
  CHECK(r.err.find("placeholder tensor 'x'") != std::string::npos);
  fs::remove_all(dir);
}

TEST_CASE("tools/symflow-run: --checkpoint lists, reads and restores TensorFlow's tensors") {
  const std::string ckpt = "\"" + fixture("tf1_half_plus_two_ckpt/export") + "\"";
  Result r = run_tool("--checkpoint " + ckpt + " --show --fetch Variable_1");
  CHECK(r.status == 0);
  CHECK(r.out == "Variable  DT_FLOAT ()\nVariable_1  DT_FLOAT ()\nVariable_1 =\n2.0\n");
  // A string tensor prints as Python prints bytes (TF: b'\n\x98\x01\n\x05\x12\x01a...').
  const std::string tf2 = "\"" + fixture("tf2_half_plus_two_savedmodel/variables/variables") + "\"";
  r = run_tool("--checkpoint " + tf2 + " --fetch _CHECKPOINTABLE_OBJECT_GRAPH");
  CHECK(r.status == 0);
  CHECK(r.out.rfind("_CHECKPOINTABLE_OBJECT_GRAPH =\nb'\\n\\x98\\x01\\n\\x05\\x12\\x01a", 0) == 0);
  // No variable of the model is in the checkpoint.
  r = run_tool("\"" + fixture("tf1_small_graphdefs/addition.pb") + "\" --checkpoint " + ckpt +
               " --run init");
  CHECK(r.status == 1);
  CHECK(r.err.find("no tensor named like a variable") != std::string::npos);
  r = run_tool("--checkpoint " + ckpt + " --run init");
  CHECK(r.status == 2);
}

TEST_CASE("tools/symflow-run: string feeds and fetches are NumPy's bytes .npy files") {
  const std::string data = std::string(SYMFLOW_SOURCE_DIR) + "/tests/data/tf_strings/";
  const fs::path dir =
      fs::temp_directory_path() / ("symflow_test_symflow_run_npy_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const std::string out = (dir / "text.npy").string();
  const std::string feeds =
      " --feed names:0=\"" + data + "names.npy\" --feed x:0=\"" + data + "x.npy\"";
  Result r =
      run_tool("\"" + data + "graph.pb\"" + feeds + " --fetch text --fetch text:0=\"" + out + "\"");
  CHECK(r.status == 0);
  // TF: [b'ab=1.50' b'width=-0.25']; the file is what NumPy's np.save writes for it.
  CHECK(r.out == "text:0 =\n[b'ab=1.50' b'width=-0.25']\n");
  CHECK(slurp(out) == slurp(data + "text.npy"));
  // A bytes file whose shape promises more strings than it holds is refused.
  std::string bad = slurp(data + "names.npy");
  bad.replace(bad.find("(2,)"), 4, "(9,)");
  const std::string bad_path = (dir / "bad.npy").string();
  std::ofstream(bad_path, std::ios::binary) << bad;
  r = run_tool("\"" + data + "graph.pb\" --feed names:0=\"" + bad_path + "\" --feed x:0=\"" + data +
               "x.npy\" --fetch text");
  CHECK(r.status == 1);
  CHECK(r.err.find("bad.npy") != std::string::npos);
  fs::remove_all(dir);
}

TEST_CASE("tools/symflow-run: SavedModels and .meta files, their signatures and tags") {
  const fs::path dir =
      fs::temp_directory_path() / ("symflow_test_symflow_run_sm_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const std::string x = (dir / "x.npy").string();
  const xt::xarray<float> column = xt::reshape_view(xt::xarray<float>({1.0f, 2.0f, 5.0f}), {3, 1});
  xt::dump_npy(x, column);
  // --show prints what `saved_model_cli show --all` prints (checked with TF 2.21's).
  Result r = run_tool("\"" + fixture("tf1_counter_savedmodel") + "\" --show");
  CHECK(r.status == 0);
  CHECK(r.out.rfind("\nMetaGraphDef with tag-set: 'serve' contains the following SignatureDefs:\n"
                    "\nsignature_def['get_counter']:\n"
                    "  The given SavedModel SignatureDef contains the following input(s):\n"
                    "  The given SavedModel SignatureDef contains the following output(s):\n"
                    "    outputs['output'] tensor_info:\n"
                    "        dtype: DT_FLOAT_REF\n"
                    "        shape: ()\n"
                    "        name: counter:0\n"
                    "  Method name is: tensorflow/serving/predict\n",
                    0) == 0);
  CHECK(r.out.find("    inputs['delta'] tensor_info:\n        dtype: DT_FLOAT\n"
                   "        shape: unknown_rank\n        name: delta:0\n") != std::string::npos);
  // A signature's keys name the feeds; without --fetch every output prints under its key.
  const std::string half = "\"" + fixture("tf1_half_plus_two_savedmodel") + "\"";
  r = run_tool(half + " --signature serving_default --feed x=\"" + x + "\"");
  CHECK(r.status == 0);
  CHECK(r.out == "Result for output key y:\n[[2.5]\n [3. ]\n [4.5]]\n");
  r = run_tool(half + " --signature serving_default --fetch nope");
  CHECK(r.status == 1);
  CHECK(r.err.find("has no output 'nope'; its outputs are ['y']") != std::string::npos);
  r = run_tool(half + " --signature nope --fetch y");
  CHECK(r.status == 1);
  CHECK(r.err.find("has no signature 'nope'") != std::string::npos);
  // Two tags, in any order; a tag-set the model lacks is named.
  const std::string regression = "\"" + fixture("tf1_regression_savedmodel") + "\"";
  r = run_tool(regression +
               " --tag serve,train --signature tensorflow/serving/regress "
               "--feed x=\"" +
               x + "\" --fetch out");
  CHECK(r.status == 0);
  // NumPy: array([[-0.85786223], [-1.7157245 ], [-4.2893114 ]], dtype=float32)
  CHECK(r.out == "Result for output key out:\n[[-0.85786223]\n [-1.7157245 ]\n [-4.2893114 ]]\n");
  r = run_tool(regression + " --show");
  CHECK(r.status == 1);
  CHECK(r.err.find("available tags ['train,serve']") != std::string::npos);
  // A .meta restores through its own Saver ops.
  r = run_tool("\"" + fixture("tf1_half_plus_two_ckpt/export.meta") + "\" --checkpoint \"" +
               fixture("tf1_half_plus_two_ckpt/export") + "\" --feed Placeholder=\"" + x +
               "\" --fetch Add");
  CHECK(r.status == 0);
  CHECK(r.out == "Add:0 =\n[[2.5]\n [3. ]\n [4.5]]\n");
  // A TF2 SavedModel still shows its signatures, then is refused by name.
  r = run_tool("\"" + fixture("tf2_half_plus_two_savedmodel") + "\" --show");
  CHECK(r.status == 1);
  CHECK(r.out.find("name: serving_default_x:0") != std::string::npos);
  CHECK(r.err.find("StatefulPartitionedCall") != std::string::npos);
  r = run_tool("\"" + fixture("tf1_small_graphdefs/addition.pb") + "\" --signature x");
  CHECK(r.status == 2);
  fs::remove_all(dir);
}

TEST_CASE("tools/symflow-run: errors name the file or node, with exit status 1 or 2") {
  Result r = run_tool("");
  CHECK(r.status == 2);
  CHECK(r.err.find("no MODEL given") != std::string::npos);
  r = run_tool("model.pb --frobnicate");
  CHECK(r.status == 2);
  CHECK(r.err.find("unknown option --frobnicate") != std::string::npos);
  r = run_tool("model.pb --run init:0");
  CHECK(r.status == 2);
  r = run_tool("/nonexistent/model.pb --show");
  CHECK(r.status == 1);
  CHECK(r.err.find("/nonexistent/model.pb") != std::string::npos);
  const std::string model = "\"" + fixture("tf1_small_graphdefs/multiplication.pb") + "\"";
  r = run_tool(model + " --fetch nope");
  CHECK(r.status == 1);
  CHECK(r.err.find("'nope'") != std::string::npos);
  r = run_tool(model + " --feed a=/nonexistent/a.npy --fetch c");
  CHECK(r.status == 1);
  CHECK(r.err.find("/nonexistent/a.npy") != std::string::npos);
}

TEST_CASE("tools/symflow-run: --dot draws the loaded graph, pruned, collapsed or with shapes") {
  const fs::path dir =
      fs::temp_directory_path() / ("symflow_test_symflow_run_dot_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const std::string meta = "\"" + fixture("tf1_half_plus_two_ckpt/export.meta") + "\"";
  const std::string dot = (dir / "graph.dot").string();
  // The whole MetaGraph: its variables' clusters and the Saver's ops.
  Result r = run_tool(meta + " --dot \"" + dot + "\"");
  CHECK(r.status == 0);
  std::string text = slurp(dot);
  CHECK(text.rfind("digraph symflow {", 0) == 0);
  CHECK(text.find("subgraph \"cluster_Variable\" {") != std::string::npos);
  CHECK(text.find("\"save/SaveV2\" [label=") != std::string::npos);
  // What Add needs: no Saver, no initialiser; its edges labelled with dtypes and shapes.
  r = run_tool(meta + " --dot \"" + dot + "\" --dot-fetch Add:0 --dot-shapes");
  CHECK(r.status == 0);
  text = slurp(dot);
  CHECK(text.find("save") == std::string::npos);
  CHECK(text.find("\"Variable/read\" -> \"Mul\" [label=\"float32 ()\"];") != std::string::npos);
  // Each top-level scope as one box.
  r = run_tool(meta + " --dot \"" + dot + "\" --dot-collapse");
  CHECK(r.status == 0);
  CHECK(slurp(dot).find("\"save\" [label=\"save\\n14 ops\", shape=box3d") != std::string::npos);
  // An unknown fetch is named; the --dot-* options need --dot.
  r = run_tool(meta + " --dot \"" + dot + "\" --dot-fetch nope");
  CHECK(r.status == 1);
  CHECK(r.err.find("nope is not in graph") != std::string::npos);
  r = run_tool(meta + " --dot-shapes");
  CHECK(r.status == 2);
  CHECK(r.err.find("need --dot OUT.dot") != std::string::npos);
  fs::remove_all(dir);
}

}  // namespace symflow_test_tools_symflow_run_test
