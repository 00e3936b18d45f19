// Pictures of graphs (io/graph_dot.hpp): the DOT text's clusters, edges, pruning,
// collapsed scopes, escaping and errors, and the SVG Graphviz's `dot` draws from it.
#include <doctest/doctest.h>

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include <symflow/io/graph_dot.hpp>
#include <symflow/symflow.hpp>

namespace symflow_test_io_graph_dot_test {

namespace tf = symflow;
namespace fs = std::filesystem;

bool has(const std::string& text, const std::string& piece) {
  return text.find(piece) != std::string::npos;
}

std::size_t count(const std::string& text, const std::string& piece) {
  std::size_t n = 0;
  for (auto at = text.find(piece); at != std::string::npos; at = text.find(piece, at + 1)) ++n;
  return n;
}

// The line of the DOT text that draws the edge from `a` to `b`, or "".
std::string edge_line(const std::string& dot, const std::string& a, const std::string& b) {
  const std::string head = "  \"" + a + "\" -> \"" + b + "\"";
  for (auto at = dot.find(head); at != std::string::npos; at = dot.find(head, at + 1))
    if (dot[at + head.size()] == ' ' || dot[at + head.size()] == ';')
      return dot.substr(at, dot.find('\n', at) - at);
  return "";
}

tf::NodeDef node_def(std::string name, std::string op, std::vector<std::string> inputs = {}) {
  tf::NodeDef node;
  node.name = std::move(name);
  node.op = std::move(op);
  node.input = std::move(inputs);
  return node;
}

// A one-layer model trained by gradient descent: name scopes, variables (Assign takes
// its variable by reference), control edges (the gradients' tuple, the train op's group).
struct Model {
  tf::Graph graph;
  tf::Operation train;
  Model() {
    auto guard = graph.as_default();
    auto x = tf::placeholder<float>(tf::Shape{-1, 3}, "x");
    tf::Output logits;
    {
      tf::variable_scope scope("dense");
      auto w = tf::get_variable("kernel", tf::Shape{3, 2});
      logits = tf::matmul(x, w);
    }
    auto loss = tf::reduce_mean(logits, {}, false, "loss");
    train = tf::train::GradientDescentOptimizer(0.1).minimize(loss);
  }
};

// A unique scratch folder per process (ctest runs the cases in parallel processes).
fs::path scratch(const std::string& what) {
  const fs::path dir =
      fs::temp_directory_path() / ("symflow_test_graph_dot_" + what + std::to_string(::getpid()));
  fs::create_directories(dir);
  return dir;
}

TEST_CASE("io/dot: name scopes are nested clusters; a node named like a scope is inside it") {
  Model m;
  const std::string dot = tf::to_dot(m.graph);
  CHECK(dot.rfind("digraph symflow {\n  graph [rankdir=BT,", 0) == 0);
  // dense/kernel/Initializer/random_uniform/... nests four clusters deep.
  const auto dense = dot.find("subgraph \"cluster_dense\" {");
  const auto kernel = dot.find("subgraph \"cluster_dense/kernel\" {");
  const auto initializer = dot.find("subgraph \"cluster_dense/kernel/Initializer\" {");
  REQUIRE(dense != std::string::npos);
  REQUIRE(kernel != std::string::npos);
  REQUIRE(initializer != std::string::npos);
  CHECK(dense < kernel);
  CHECK(kernel < initializer);
  // The scope's name on top (labelloc=b under rankdir=BT, which flips it).
  CHECK(has(dot, "label=\"kernel\"; labelloc=b;"));
  CHECK(has(tf::to_dot(m.graph, {.rankdir = "TB"}), "label=\"kernel\"; labelloc=t;"));
  // The variable and its Assign are in the kernel cluster, the MatMul beside it in dense's.
  const auto variable = dot.find("\"dense/kernel\" [label=\"kernel\\nVariableV2\", shape=cylinder");
  const auto matmul = dot.find("\"dense/MatMul\" [label=\"MatMul\", shape=ellipse");
  REQUIRE(variable != std::string::npos);
  REQUIRE(matmul != std::string::npos);
  CHECK(kernel < variable);
  CHECK(variable < initializer);
  CHECK(dense < matmul);
  CHECK(matmul < kernel);
  // The short name and, where it does not say it, the op type; shapes by kind of op.
  CHECK(has(dot, "\"x\" [label=\"x\\nPlaceholder\", shape=invhouse"));
  CHECK(has(dot, "\"dense/kernel/read\" [label=\"read\\nIdentity\", shape=ellipse"));
  CHECK(has(dot, "\"GradientDescent/learning_rate\" [label=\"learning_rate\\nConst\", shape=box"));
  // One node statement per op.
  const tf::GraphDef def = m.graph.as_graph_def();
  for (const tf::NodeDef& node : def.node)
    CHECK_MESSAGE(count(dot, "\"" + node.name + "\" [label=") == 1, node.name);
  // The same graph gives the same text, whatever the GraphDef's node order.
  tf::GraphDef reversed = def;
  std::reverse(reversed.node.begin(), reversed.node.end());
  CHECK(tf::to_dot(reversed) == tf::to_dot(def));
  CHECK(tf::to_dot(def) == dot);
}

TEST_CASE("io/dot: control edges are dashed, reference inputs orange with a diamond") {
  Model m;
  const std::string dot = tf::to_dot(m.graph);
  // The gradients' tuple waits on both MatMuls; the train op on the update.
  CHECK(edge_line(dot, "gradients/dense/MatMul_grad/MatMul",
                  "gradients/dense/MatMul_grad/tuple/group_deps") ==
        "  \"gradients/dense/MatMul_grad/MatMul\" -> "
        "\"gradients/dense/MatMul_grad/tuple/group_deps\" [style=dashed, color=\"#888888\"];");
  CHECK(has(
      edge_line(dot, "GradientDescent/update_dense/kernel/ApplyGradientDescent", "GradientDescent"),
      "style=dashed"));
  // Assign and ApplyGradientDescent write the variable; Identity (kernel/read) reads it.
  CHECK(edge_line(dot, "dense/kernel", "dense/kernel/Assign") ==
        "  \"dense/kernel\" -> \"dense/kernel/Assign\" [color=\"#d95f02\", arrowhead=diamond, "
        "penwidth=1.4];");
  CHECK(has(
      edge_line(dot, "dense/kernel", "GradientDescent/update_dense/kernel/ApplyGradientDescent"),
      "arrowhead=diamond"));
  CHECK(edge_line(dot, "dense/kernel", "dense/kernel/read") ==
        "  \"dense/kernel\" -> \"dense/kernel/read\";");
  CHECK(edge_line(dot, "x", "dense/MatMul") == "  \"x\" -> \"dense/MatMul\";");
}

TEST_CASE("io/dot: fetches prune the picture to what they need") {
  Model m;
  const std::string dot = tf::to_dot(m.graph, {.fetches = {"loss:0"}});
  CHECK(has(dot, "\"loss\" [label="));
  CHECK(has(dot, "\"x\" [label="));
  CHECK(has(dot, "\"dense/kernel/read\" [label="));
  CHECK(has(dot, "\"dense/kernel\" [label="));
  // Training and initialisation are not on loss's path.
  CHECK_FALSE(has(dot, "gradients"));
  CHECK_FALSE(has(dot, "GradientDescent"));
  CHECK_FALSE(has(dot, "Assign"));
  CHECK_FALSE(has(dot, "Initializer"));
  // The train op reaches everything but the initialisers, over control edges too.
  const std::string train = tf::to_dot(m.graph, {.fetches = {m.train.name()}});
  CHECK(has(train, "\"gradients/dense/MatMul_grad/tuple/group_deps\" [label="));
  CHECK(has(train, "\"GradientDescent\" [label="));
  CHECK_FALSE(has(train, "Initializer"));
  // An op's name and its output's name prune alike; several fetches join.
  CHECK(tf::to_dot(m.graph, {.fetches = {"loss"}}) == dot);
  const std::string both = tf::to_dot(m.graph, {.fetches = {"loss", "dense/kernel/Assign"}});
  CHECK(has(both, "Initializer"));
  CHECK_FALSE(has(both, "gradients"));
}

TEST_CASE("io/dot: collapse_scopes draws each top-level scope as one box") {
  Model m;
  const tf::GraphDef def = m.graph.as_graph_def();
  auto ops_in = [&](const std::string& scope) {
    return std::count_if(def.node.begin(), def.node.end(), [&](const tf::NodeDef& n) {
      return n.name == scope || n.name.rfind(scope + "/", 0) == 0;
    });
  };
  const std::string dot = tf::to_dot(m.graph, {.collapse_scopes = true});
  CHECK_FALSE(has(dot, "subgraph"));
  CHECK(has(dot, "  \"dense\" [label=\"dense\\n" + std::to_string(ops_in("dense")) +
                     " ops\", shape=box3d"));
  CHECK(has(dot, "  \"gradients\" [label=\"gradients\\n" + std::to_string(ops_in("gradients")) +
                     " ops\", shape=box3d"));
  // The train op itself is named like its scope, and counts in it.
  CHECK(has(dot, "  \"GradientDescent\" [label=\"GradientDescent\\n" +
                     std::to_string(ops_in("GradientDescent")) + " ops\", shape=box3d"));
  CHECK(has(dot, "  \"x\" [label=\"x\\nPlaceholder\""));
  // Edges between boxes merge, one per kind; none inside a box.
  CHECK(count(dot, "\"x\" -> \"gradients\"") == 1);
  CHECK(count(dot, "\"dense\" -> \"dense\"") == 0);
  CHECK(has(edge_line(dot, "dense", "GradientDescent"), "arrowhead=diamond"));
  CHECK(has(edge_line(dot, "gradients", "GradientDescent"),
            "  \"gradients\" -> \"GradientDescent\""));
  // Collapsing applies after pruning.
  const std::string pruned = tf::to_dot(m.graph, {.fetches = {"loss"}, .collapse_scopes = true});
  CHECK(has(pruned, "  \"dense\" [label=\"dense\\n3 ops\""));  // kernel, kernel/read, MatMul
  CHECK_FALSE(has(pruned, "gradients"));
}

TEST_CASE("io/dot: show_shapes labels edges with dtypes and shapes") {
  Model m;
  const std::string dot = tf::to_dot(m.graph, {.show_shapes = true});
  CHECK(edge_line(dot, "x", "dense/MatMul") ==
        "  \"x\" -> \"dense/MatMul\" [label=\"float32 (?, 3)\"];");
  CHECK(edge_line(dot, "dense/kernel", "dense/kernel/Assign") ==
        "  \"dense/kernel\" -> \"dense/kernel/Assign\" [color=\"#d95f02\", arrowhead=diamond, "
        "penwidth=1.4, label=\"float32_ref (3, 2)\"];");
  CHECK(edge_line(dot, "Const", "loss") == "  \"Const\" -> \"loss\" [label=\"int32 (2,)\"];");
  CHECK_FALSE(has(edge_line(dot, "gradients/dense/MatMul_grad/MatMul",
                            "gradients/dense/MatMul_grad/tuple/group_deps"),
                  "label"));
  // Without the option, no edge has a label.
  CHECK_FALSE(has(tf::to_dot(m.graph), "label=\"float32"));

  // A TensorFlow GraphDef written with add_shapes=True (TF 2.21, tf.compat.v1) labels its
  // edges from `_output_shapes` and the dtype attrs, with no Graph to infer them.
  const tf::GraphDef tf_def = tf::io::parse_graph_def_text(
      R"pb(node {
             name: "x"
             op: "Placeholder"
             attr {
               key: "shape"
               value {
                 shape {
                   dim { size: -1 }
                   dim { size: 3 }
                 }
               }
             }
             attr {
               key: "dtype"
               value { type: DT_FLOAT }
             }
             attr {
               key: "_output_shapes"
               value {
                 list {
                   shape {
                     dim { size: -1 }
                     dim { size: 3 }
                   }
                 }
               }
             }
           }
           node {
             name: "layer/w"
             op: "Const"
             attr {
               key: "value"
               value {
                 tensor {
                   dtype: DT_FLOAT
                   tensor_shape {
                     dim { size: 3 }
                     dim { size: 1 }
                   }
                   tensor_content: "\000\000\200?\000\000\000@\000\000@@"
                 }
               }
             }
             attr {
               key: "dtype"
               value { type: DT_FLOAT }
             }
             attr {
               key: "_output_shapes"
               value {
                 list {
                   shape {
                     dim { size: 3 }
                     dim { size: 1 }
                   }
                 }
               }
             }
           }
           node {
             name: "layer/y"
             op: "MatMul"
             input: "x"
             input: "layer/w"
             attr {
               key: "transpose_b"
               value { b: false }
             }
             attr {
               key: "transpose_a"
               value { b: false }
             }
             attr {
               key: "_output_shapes"
               value {
                 list {
                   shape {
                     dim { size: -1 }
                     dim { size: 1 }
                   }
                 }
               }
             }
             attr {
               key: "T"
               value { type: DT_FLOAT }
             }
           }
           versions { producer: 2474 })pb",
      "shapes.pbtxt");
  const std::string shaped = tf::to_dot(tf_def, {.show_shapes = true});
  CHECK(edge_line(shaped, "x", "layer/y") == "  \"x\" -> \"layer/y\" [label=\"float32 (?, 3)\"];");
  CHECK(edge_line(shaped, "layer/w", "layer/y") ==
        "  \"layer/w\" -> \"layer/y\" [label=\"float32 (3, 1)\"];");
  CHECK(has(shaped, "subgraph \"cluster_layer\""));
}

TEST_CASE("io/dot: names with quotes, backslashes, ':' and '/' are quoted and escaped") {
  tf::GraphDef def;
  def.node.push_back(node_def("a/b:c", "Placeholder"));
  def.node.push_back(node_def("say \"hi\"", "Identity", {"a/b:c"}));
  def.node.push_back(node_def("back\\slash", "Identity", {"^say \"hi\""}));
  def.node.push_back(node_def("sink", "AddN", {"a/b:c:1", "back\\slash"}));
  const std::string dot = tf::to_dot(def);
  CHECK(has(dot, "subgraph \"cluster_a\" {"));
  CHECK(has(dot, "\"a/b:c\" [label=\"b:c\\nPlaceholder\""));
  CHECK(has(dot, "\"say \\\"hi\\\"\" [label=\"say \\\"hi\\\"\\nIdentity\""));
  CHECK(has(dot, "\"back\\\\slash\" [label=\"back\\\\slash\\nIdentity\""));
  CHECK(edge_line(dot, "a/b:c", "say \\\"hi\\\"") == "  \"a/b:c\" -> \"say \\\"hi\\\"\";");
  CHECK(edge_line(dot, "say \\\"hi\\\"", "back\\\\slash") ==
        "  \"say \\\"hi\\\"\" -> \"back\\\\slash\" [style=dashed, color=\"#888888\"];");
  // "a/b:c:1" is output 1 of "a/b:c".
  CHECK(has(dot, "  \"a/b:c\" -> \"sink\";"));
}

TEST_CASE("io/dot: unknown fetches, broken inputs, bad options and unwritable paths") {
  Model m;
  CHECK_THROWS_WITH_AS(tf::to_dot(m.graph, {.fetches = {"loss", "nope:0"}}),
                       "nope:0 is not in graph", tf::ValueError);
  CHECK_THROWS_WITH_AS(tf::to_dot(m.graph, {.rankdir = "up"}),
                       "DotOptions::rankdir must be BT, TB, LR or RL, got 'up'",
                       tf::InvalidArgumentError);
  // import_graph_def's ValueErrors (TF 2.21) for what no graph can hold.
  tf::GraphDef broken;
  broken.node.push_back(node_def("y", "Identity", {"^missing"}));
  CHECK_THROWS_WITH_AS(tf::to_dot(broken), "Node 'y': Unknown input node '^missing'",
                       tf::ValueError);
  tf::GraphDef twice;
  twice.node.push_back(node_def("x", "NoOp"));
  twice.node.push_back(node_def("x", "NoOp"));
  CHECK_THROWS_WITH_AS(tf::to_dot(twice), "Node 'x' is not unique", tf::ValueError);
  const fs::path dir = scratch("errors");
  const fs::path missing = dir / "no_such_folder" / "graph.dot";
  try {
    tf::write_dot(m.graph, missing);
    FAIL("write_dot wrote into a folder that does not exist");
  } catch (const tf::NotFoundError& e) {
    CHECK(has(e.what(), missing.string()));
  }
  // A failed write leaves an existing file as it was.
  const fs::path kept = dir / "kept.dot";
  tf::write_dot(m.graph, kept, {.fetches = {"x"}});
  const std::string before = tf::io::read_file(kept);
  CHECK_THROWS_AS(tf::write_dot(m.graph, kept, {.fetches = {"nope"}}), tf::ValueError);
  CHECK(tf::io::read_file(kept) == before);
  CHECK(before == tf::to_dot(m.graph, {.fetches = {"x"}}));
  fs::remove_all(dir);
}

// Graphviz draws the file: an <svg> root and a node group per op, titled with its name.
TEST_CASE("io/dot: Graphviz's dot renders the file as an SVG with a node per op") {
  REQUIRE_MESSAGE(std::system("command -v dot >/dev/null 2>&1") == 0,
                  "Graphviz's `dot` is not on the PATH: install it (Debian: apt-get install "
                  "graphviz) to check the DOT output");
  Model m;
  const fs::path dir = scratch("svg");
  auto render = [&](const tf::GraphDef& def, const tf::DotOptions& options) {
    tf::write_dot(def, dir / "graph.dot", options);
    const std::string command = "dot -Tsvg \"" + (dir / "graph.dot").string() + "\" -o \"" +
                                (dir / "graph.svg").string() + "\" 2>\"" +
                                (dir / "dot_errors.txt").string() + "\"";
    const int status = std::system(command.c_str());
    const std::string errors = tf::io::read_file(dir / "dot_errors.txt");
    CHECK_MESSAGE(status == 0, errors);
    // A syntax error is an "Error:" line; a missing font only a warning.
    CHECK_MESSAGE(errors.find("rror") == std::string::npos, errors);
    return tf::io::read_file(dir / "graph.svg");
  };
  const tf::GraphDef def = m.graph.as_graph_def();
  std::string svg = render(def, {.show_shapes = true});
  CHECK(has(svg, "<svg "));
  CHECK(has(svg, "</svg>"));
  CHECK(count(svg, "class=\"node\"") == def.node.size());
  for (const tf::NodeDef& node : def.node)
    CHECK_MESSAGE(has(svg, "<title>" + node.name + "</title>"), node.name);
  CHECK(has(svg, "<title>cluster_dense/kernel</title>"));
  CHECK(has(svg, "stroke-dasharray"));  // the control edges
  CHECK(has(svg, "float32 (?, 3)"));

  // Escaped names come out as the names themselves (XML-escaped in the SVG).
  tf::GraphDef odd;
  odd.node.push_back(node_def("a/b:c", "Placeholder"));
  odd.node.push_back(node_def("say \"hi\"", "Identity", {"a/b:c"}));
  svg = render(odd, {});
  CHECK(count(svg, "class=\"node\"") == 2);
  CHECK(has(svg, "<title>a/b:c</title>"));
  CHECK(has(svg, "<title>say &quot;hi&quot;</title>"));

  // Collapsed: a node per box and per op outside any scope.
  svg = render(def, {.collapse_scopes = true});
  CHECK(count(svg, "class=\"node\"") ==
        static_cast<std::size_t>(std::count_if(def.node.begin(), def.node.end(),
                                               [](const tf::NodeDef& n) {
                                                 return n.name.find('/') == std::string::npos &&
                                                        n.name != "GradientDescent";
                                               })) +
            3);  // dense, gradients, GradientDescent
  fs::remove_all(dir);
}

}  // namespace symflow_test_io_graph_dot_test
