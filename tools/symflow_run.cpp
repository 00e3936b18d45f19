// symflow-run: runs a model file from the command line, the C++ cousin of TensorFlow's
// `saved_model_cli run`.
//
//   symflow-run MODEL [--tag TAGS] [--signature KEY] [--checkpoint PREFIX] [--run OP[:N]]...
//               [--feed NAME=FILE.npy]... [--fetch NAME[=OUT.npy]]... [--show]
//               [--write-graph OUT] [--save PREFIX]
//               [--dot OUT.dot [--dot-fetch NAME]... [--dot-collapse] [--dot-shapes]]
//   symflow-run --checkpoint PREFIX [--fetch NAME[=OUT.npy]]... [--show]
//
// MODEL is a SavedModel folder (TensorFlow 1.x's; `--tag` picks the MetaGraphDef, "serve"
// by default, "train,serve" for several tags), a MetaGraphDef (a `.meta` file, binary or
// text, TensorFlow's or symflow's), or a GraphDef: TensorFlow's binary `.pb` or text
// `.pbtxt`, or symflow's JSON. A SavedModel restores its variables and runs its init op.
// `--checkpoint` (a prefix or a folder with a `checkpoint` file; TensorFlow's V2
// checkpoints or symflow's) restores the variables before anything runs: through a
// MetaGraphDef's Saver, else every variable of the graph that the checkpoint has, by name.
// Without a MODEL, the fetches are the checkpoint's tensors and `--show` lists them, as
// TensorFlow's inspect_checkpoint does.
// NAME is a tensor ("x:0") or an op ("x", meaning its output 0); with `--signature`, a key
// of that signature's inputs or outputs, and without `--fetch` every output is printed.
// `--run OP[:N]` runs a
// target op N times (default 1), in the order given, before the fetches. Inputs and
// outputs are NumPy `.npy` files; a fetch without a file is printed as NumPy prints it.
// `--show` lists the model's inputs (placeholders) and outputs (tensors nothing reads),
// and for a SavedModel or MetaGraphDef its signatures, as `saved_model_cli show --all`.
// `--save PREFIX`, after the runs, saves the variables as a TensorFlow V2 checkpoint with
// its binary `.meta` (through the model's own Saver ops when it has them), which
// TensorFlow's import_meta_graph and Saver.restore read.
// `--write-graph OUT` writes the graph as symflow holds it, in the format OUT's extension
// names: `.pb` binary, `.json` symflow's JSON, anything else protobuf text.
// `--dot OUT.dot` draws the loaded graph in Graphviz's DOT language (io/graph_dot.hpp; render
// it with `dot -Tsvg OUT.dot -o OUT.svg`): `--dot-fetch NAME` (repeatable, a node or tensor
// of the graph) draws only what NAME needs, `--dot-collapse` draws each top-level name scope
// as one box, and `--dot-shapes` labels the edges with dtypes and shapes.
// Every error names the file or node and what was expected; the exit status is 1 on any
// error and 2 on a usage error.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <xtensor/xnpy.hpp>

#include <symflow/core/xtensor_interop.hpp>
#include <symflow/io/graph_dot.hpp>  // write_dot: not in the umbrella
#include <symflow/symflow.hpp>

namespace tf = symflow;

namespace {

constexpr const char* kUsage =
    "usage: symflow-run MODEL [--tag TAGS] [--signature KEY] [--checkpoint PREFIX]\n"
    "                   [--run OP[:N]]... [--feed NAME=FILE.npy]... [--fetch NAME[=OUT.npy]]...\n"
    "                   [--show] [--write-graph OUT] [--save PREFIX]\n"
    "                   [--dot OUT.dot [--dot-fetch NAME]... [--dot-collapse] [--dot-shapes]]\n"
    "       symflow-run --checkpoint PREFIX [--fetch NAME[=OUT.npy]]... [--show]\n"
    "  MODEL  a SavedModel folder, a MetaGraphDef (.meta), or a GraphDef (.pb, .pbtxt, .json)\n"
    "  TAGS   the SavedModel's tag-set, comma-separated (default: serve)\n"
    "  NAME   a tensor (\"x:0\") or an op (\"x\", its output 0); with --signature, a key of\n"
    "         its inputs or outputs\n";

struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct Options {
  std::string model;
  std::vector<std::pair<std::string, int>> runs;
  std::vector<std::pair<std::string, std::string>> feeds;
  std::vector<std::pair<std::string, std::string>> fetches;  // file empty: print
  bool show = false;
  std::string write_graph;  // .pb, .pbtxt or .json
  std::string checkpoint;
  std::vector<std::string> tags = {"serve"};
  std::string signature;
  std::string save;  // a checkpoint prefix
  std::string dot;   // a Graphviz DOT file of the graph
  tf::DotOptions dot_options;
};

// "NAME=VALUE" of a flag; VALUE may be required.
std::pair<std::string, std::string> split_assignment(const std::string& arg, const char* flag,
                                                     bool value_required) {
  const auto eq = arg.find('=');
  if (eq == std::string::npos) {
    if (value_required)
      throw UsageError(std::string(flag) + " expects NAME=FILE.npy, got '" + arg + "'");
    return {arg, ""};
  }
  if (eq == 0 || eq + 1 == arg.size())
    throw UsageError(std::string(flag) + " expects NAME=FILE.npy, got '" + arg + "'");
  return {arg.substr(0, eq), arg.substr(eq + 1)};
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw UsageError(a + " needs a value");
      return argv[++i];
    };
    if (a == "--show") {
      o.show = true;
    } else if (a == "--run") {
      const std::string v = value();
      const auto colon = v.rfind(':');
      int times = 1;
      std::string op = v;
      if (colon != std::string::npos) {
        const std::string count = v.substr(colon + 1);
        char* end = nullptr;
        const long n = std::strtol(count.c_str(), &end, 10);
        if (count.empty() || *end != '\0' || n < 1 || n > 1000000000)
          throw UsageError("--run expects OP or OP:N with N a positive count, got '" + v + "'");
        times = static_cast<int>(n);
        op = v.substr(0, colon);
      }
      o.runs.emplace_back(op, times);
    } else if (a == "--feed") {
      o.feeds.push_back(split_assignment(value(), "--feed", true));
    } else if (a == "--fetch") {
      o.fetches.push_back(split_assignment(value(), "--fetch", false));
    } else if (a == "--checkpoint") {
      o.checkpoint = value();
    } else if (a == "--tag") {
      o.tags.clear();
      const std::string v = value();
      for (std::size_t at = 0; at <= v.size();) {
        const auto comma = std::min(v.find(',', at), v.size());
        if (comma > at) o.tags.push_back(v.substr(at, comma - at));
        at = comma + 1;
      }
    } else if (a == "--signature") {
      o.signature = value();
    } else if (a == "--save") {
      o.save = value();
    } else if (a == "--write-graph") {
      o.write_graph = value();
    } else if (a == "--dot") {
      o.dot = value();
    } else if (a == "--dot-fetch") {
      o.dot_options.fetches.push_back(value());
    } else if (a == "--dot-collapse") {
      o.dot_options.collapse_scopes = true;
    } else if (a == "--dot-shapes") {
      o.dot_options.show_shapes = true;
    } else if (a == "--help" || a == "-h") {
      std::cout << kUsage;
      std::exit(0);
    } else if (a.starts_with("--")) {
      throw UsageError("unknown option " + a);
    } else if (o.model.empty()) {
      o.model = a;
    } else {
      throw UsageError("one MODEL only, got '" + o.model + "' and '" + a + "'");
    }
  }
  if (o.model.empty() && o.checkpoint.empty()) throw UsageError("no MODEL given");
  if (o.model.empty() && (!o.runs.empty() || !o.feeds.empty() || !o.write_graph.empty() ||
                          !o.save.empty() || !o.dot.empty()))
    throw UsageError("--run, --feed, --save, --write-graph and --dot need a MODEL");
  const tf::DotOptions& dot = o.dot_options;
  if (o.dot.empty() && (!dot.fetches.empty() || dot.collapse_scopes || dot.show_shapes))
    throw UsageError("--dot-fetch, --dot-collapse and --dot-shapes need --dot OUT.dot");
  if (!o.show && o.runs.empty() && o.fetches.empty() && o.write_graph.empty() &&
      o.signature.empty() && o.save.empty() && o.dot.empty())
    throw UsageError(
        "nothing to do: give --show, --run, --fetch, --signature, --save, --write-graph or "
        "--dot");
  return o;
}

std::string tensor_name(const std::string& name) {
  return name.find(':') == std::string::npos ? name + ":0" : name;
}

// The dtype a .npy file holds, from its header's 'descr' ('<f4', '|b1', ...).
tf::DType npy_dtype(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw tf::NotFoundError(path + ": cannot open the .npy file");
  char head[10];
  in.read(head, sizeof head);
  if (in.gcount() != 10 || std::memcmp(head, "\x93NUMPY", 6) != 0)
    throw tf::DataLossError(path + ": not a NumPy .npy file (no \\x93NUMPY magic)");
  std::string header(4096, '\0');
  in.read(header.data(), static_cast<std::streamsize>(header.size()));
  header.resize(static_cast<std::size_t>(in.gcount()));
  const auto key = header.find("'descr'");
  const auto open = key == std::string::npos ? key : header.find('\'', key + 7);
  const auto close = open == std::string::npos ? open : header.find('\'', open + 1);
  if (close == std::string::npos)
    throw tf::DataLossError(path + ": the .npy header has no 'descr'");
  const std::string descr = header.substr(open + 1, close - open - 1);
  if (descr == "<f4") return tf::float32;
  if (descr == "<f8") return tf::float64;
  if (descr == "<i4") return tf::int32;
  if (descr == "<i8") return tf::int64;
  if (descr == "|u1") return tf::uint8;
  if (descr == "|b1") return tf::bool_;
  if (descr.rfind("|S", 0) == 0) return tf::string;
  throw tf::InvalidArgumentError(path + ": element type '" + descr +
                                 "' is not one symflow has: expected <f4, <f8, <i4, <i8, |u1, "
                                 "|b1 (little-endian) or |S<n> (bytes)");
}

// A .npy file of NumPy bytes ('|S<n>': each element n bytes, NUL-padded), which xtensor
// does not read: version 1 or 2 header, C order.
tf::Value load_string_npy(const std::string& path) {
  const std::string bytes = tf::io::read_file(path);
  auto corrupt = [&](const std::string& why) -> tf::DataLossError {
    return tf::DataLossError(path + ": " + why);
  };
  if (bytes.size() < 10) throw corrupt("the .npy header is cut off");
  const int major = static_cast<unsigned char>(bytes[6]);
  const std::size_t size_bytes = major == 1 ? 2 : 4;
  std::size_t header_len = 0;
  for (std::size_t b = size_bytes; b-- > 0;)
    header_len = header_len << 8 | static_cast<unsigned char>(bytes[8 + b]);
  const std::size_t start = 8 + size_bytes + header_len;
  if (start > bytes.size()) throw corrupt("the .npy header is cut off");
  const std::string header = bytes.substr(8 + size_bytes, header_len);
  if (header.find("'fortran_order': False") == std::string::npos)
    throw corrupt("only C-ordered .npy files are read");
  const auto descr = header.find("'|S");
  if (descr == std::string::npos) throw corrupt("the .npy header has no '|S<n>' descr");
  const std::size_t width = std::strtoull(header.c_str() + descr + 3, nullptr, 10);
  const auto key = header.find("'shape'");
  const auto open = header.find('(', key);
  const auto close = header.find(')', open);
  if (key == std::string::npos || open == std::string::npos || close == std::string::npos)
    throw corrupt("the .npy header has no 'shape'");
  tf::Dims dims;
  for (std::size_t at = open + 1; at < close;) {
    char* end = nullptr;
    const long long d = std::strtoll(header.c_str() + at, &end, 10);
    if (end == header.c_str() + at) break;
    dims.push_back(d);
    at = static_cast<std::size_t>(end - header.c_str()) + 1;
  }
  // The shape must account for exactly the bytes that follow, checked before allocating
  // (a '|S0' file has no bytes to bound it: a million empty strings at most).
  const std::size_t remaining = bytes.size() - start;
  const std::size_t limit = width ? remaining / width : std::size_t{1} << 20;
  std::size_t count = 1;
  for (const long long d : dims) {
    if (d < 0) throw corrupt("the .npy shape has a negative dimension");
    const auto ud = static_cast<std::size_t>(d);
    if (ud != 0 && count > limit / ud)
      throw corrupt("the .npy shape holds more strings than the file has bytes");
    count *= ud;
  }
  if (count * width != remaining)
    throw corrupt("expected " + std::to_string(count * width) + " bytes of strings, found " +
                  std::to_string(remaining));
  tf::Value v(tf::string, dims);
  std::string* out = v.data<std::string>();
  for (std::int64_t i = 0; i < v.size(); ++i) {
    std::string s = bytes.substr(start + static_cast<std::size_t>(i) * width, width);
    s.erase(s.find_last_not_of('\0') + 1);  // NumPy strips the padding
    out[i] = std::move(s);
  }
  return v;
}

// Strings as NumPy's bytes dtype, '|S<longest>'.
void save_string_npy(const std::string& path, const tf::Value& v) {
  std::size_t width = 1;
  for (const std::string& s : v.flat<std::string>()) width = std::max(width, s.size());
  std::string shape = "(";
  for (std::size_t i = 0; i < v.dims().size(); ++i)
    shape +=
        std::to_string(v.dims()[i]) + (v.dims().size() == 1 || i + 1 < v.dims().size() ? "," : "");
  shape += ")";
  std::string header = "{'descr': '|S" + std::to_string(width) +
                       "', 'fortran_order': False, 'shape': " + shape + ", }";
  header.resize(((10 + header.size() + 1 + 63) / 64) * 64 - 10 - 1, ' ');
  header += '\n';
  std::string out = "\x93NUMPY";
  out += '\x01';
  out += '\x00';
  out += static_cast<char>(header.size() & 0xff);
  out += static_cast<char>(header.size() >> 8);
  out += header;
  for (const std::string& s : v.flat<std::string>()) out += s + std::string(width - s.size(), '\0');
  tf::io::write_file_atomically(path, out);
}

tf::Value load_npy(const std::string& path) {
  const tf::DType dtype = npy_dtype(path);
  if (dtype == tf::string) return load_string_npy(path);
  return tf::visit_dtype(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    return tf::from_xarray(xt::load_npy<T>(path));
  });
}

void save_npy(const std::string& path, const tf::Value& v) {
  if (v.dtype() == tf::string) return save_string_npy(path, v);
  tf::visit_dtype(v.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    xt::dump_npy(path, tf::to_xarray<T>(v));
  });
  std::ifstream check(path, std::ios::binary);
  if (!check) throw tf::FailedPreconditionError(path + ": could not write the .npy file");
}

std::string describe(const tf::Output& t) {
  return t.name() + "  " + std::string(tf::dtype_name(t.dtype())) + " " + t.shape().to_string();
}

void show(const tf::Graph& g, std::ostream& os) {
  std::set<std::string> read;
  for (const tf::Operation& op : g.get_operations())
    for (const tf::Output& in : op.inputs()) read.insert(in.name());
  os << "inputs:\n";
  for (const tf::Operation& op : g.get_operations())
    if (op.type() == "Placeholder" || op.type() == "PlaceholderWithDefault")
      os << "  " << describe(op.output(0)) << "\n";
  os << "outputs:\n";
  for (const tf::Operation& op : g.get_operations())
    for (const tf::Output& out : op.outputs())
      if (!read.count(out.name())) os << "  " << describe(out) << "\n";
}

void print_or_save(const std::string& name, const std::string& file, const tf::Value& value) {
  if (file.empty())
    std::cout << name << " =\n" << value << "\n";
  else
    save_npy(file, value);
}

// A checkpoint alone: list its tensors, or fetch them.
int inspect_checkpoint(const Options& o) {
  const tf::train::CheckpointReader reader = tf::train::load_checkpoint(o.checkpoint);
  if (o.show) {
    const auto dtypes = reader.get_variable_to_tf_dtype_map();
    for (const auto& [name, dims] : reader.get_variable_to_shape_map())
      std::cout << name << "  " << dtypes.at(name) << " " << tf::Shape(dims).to_string() << "\n";
  }
  for (const auto& [name, file] : o.fetches) print_or_save(name, file, reader.get_tensor(name));
  return 0;
}

// Restores every variable of `g` that the checkpoint holds, by its op's name.
void restore(const tf::Graph& g, tf::Session& sess, const std::string& checkpoint) {
  const tf::train::CheckpointReader reader = tf::train::load_checkpoint(checkpoint);
  std::vector<tf::Variable> variables;
  for (const tf::Operation& op : g.get_operations())
    if ((op.type() == "VariableV2" || op.type() == "Variable") && reader.has_tensor(op.name()))
      variables.push_back(tf::Variable::from_op(op));
  if (variables.empty())
    throw tf::NotFoundError(checkpoint +
                            ": the checkpoint has no tensor named like a variable "
                            "of the model");
  tf::train::Saver(variables).restore(sess, reader.prefix());
}

// A MetaGraphDef file, by name: TensorFlow's `.meta` (or its text form).
bool is_meta_graph_file(const std::string& path) {
  return path.ends_with(".meta") || path.ends_with(".meta.txt") || path.ends_with(".metatxt");
}

// A shape as saved_model_cli prints it: "(-1, 1)", "()", "unknown_rank".
std::string cli_shape(const tf::Shape& s) {
  if (!s.has_rank()) return "unknown_rank";
  std::string out = "(";
  for (std::size_t i = 0; i < s.dims().size(); ++i)
    out += (i ? ", " : "") + std::to_string(s.dims()[i]);
  return out + ")";
}

// The signatures of a MetaGraphDef, as `saved_model_cli show --all` lists them.
void show_signatures(const tf::train::MetaGraphDef& m, std::ostream& os) {
  std::string tags;
  for (const std::string& t : m.meta_info_def.tags) tags += (tags.empty() ? "" : ", ") + t;
  os << "\nMetaGraphDef with tag-set: '" << tags << "' contains the following SignatureDefs:\n";
  auto infos = [&](const char* kind, const std::map<std::string, tf::train::TensorInfo>& map) {
    os << "  The given SavedModel SignatureDef contains the following " << kind << "(s):\n";
    for (const auto& [key, info] : map)
      os << "    " << kind << "s['" << key << "'] tensor_info:\n"
         << "        dtype: " << tf::dtype_enum_name(info.dtype) << (info.is_ref ? "_REF" : "")
         << "\n        shape: " << cli_shape(info.tensor_shape) << "\n        name: " << info.name
         << "\n";
  };
  for (const auto& [key, sig] : m.signature_def) {
    os << "\nsignature_def['" << key << "']:\n";
    infos("input", sig.inputs);
    infos("output", sig.outputs);
    os << "  Method name is: " << sig.method_name << "\n";
  }
}

// The tensor a signature key names.
std::string signature_tensor(const tf::train::SignatureDef& sig, const std::string& signature,
                             const std::string& key, bool input) {
  const auto& map = input ? sig.inputs : sig.outputs;
  auto it = map.find(key);
  if (it != map.end()) return it->second.name;
  std::string keys;
  for (const auto& [k, info] : map) keys += (keys.empty() ? "'" : ", '") + k + "'";
  throw tf::InvalidArgumentError("signature '" + signature + "' has no " +
                                 (input ? "input" : "output") + " '" + key + "'; its " +
                                 (input ? "inputs" : "outputs") + " are [" + keys + "]");
}

// Saves the variables as TensorFlow's files: through the model's own TensorFlow Saver
// when it has one, else every variable of the graph under its name.
void save(tf::Graph& g, tf::Session& sess, std::optional<tf::train::Saver>& saver,
          const std::string& prefix) {
  if (!saver || !saver->runs_graph_ops()) {
    std::vector<tf::Variable> variables;
    for (const tf::Operation& op : g.get_operations())
      if (op.type() == "VariableV2") variables.push_back(tf::Variable::from_op(op));
    if (variables.empty()) throw tf::NotFoundError("--save: the model has no variables");
    // A GraphDef has no collections: TensorFlow's import_meta_graph finds the variables
    // through this one.
    if (g.get_collection(tf::GraphKeys::GLOBAL_VARIABLES).empty())
      for (const tf::Variable& v : variables)
        g.add_to_collection(tf::GraphKeys::GLOBAL_VARIABLES, v.op());
    saver.emplace(variables, tf::train::SaverOptions{.format = tf::train::FileFormat::tensorflow});
  }
  saver->save(sess, prefix);
}

int run(const Options& o) {
  if (o.model.empty()) return inspect_checkpoint(o);
  tf::Graph g;
  tf::Session sess(g);
  std::optional<tf::train::MetaGraphDef> meta;
  std::optional<tf::train::Saver> saver;
  if (std::filesystem::is_directory(o.model)) {
    // The signatures show even for a model that then fails to load (a TF2 SavedModel).
    if (o.show)
      show_signatures(tf::saved_model::meta_graph_for_tags(
                          tf::saved_model::read_saved_model(o.model), o.tags, o.model),
                      std::cout);
    meta = tf::saved_model::load(sess, o.tags, o.model);
  } else if (is_meta_graph_file(o.model)) {
    meta = tf::train::read_meta_graph_file(o.model);
    if (o.show) show_signatures(*meta, std::cout);
    saver = tf::train::import_meta_graph(*meta, {.graph = g});
  } else {
    tf::import_graph_def(tf::read_graph(o.model), {.name = ""}, g);
  }
  if (o.show) show(g, std::cout);
  if (!o.write_graph.empty()) {
    const std::filesystem::path out(o.write_graph);
    const std::string ext = out.extension().string();
    const tf::GraphFormat format = ext == ".pb"     ? tf::GraphFormat::binary
                                   : ext == ".json" ? tf::GraphFormat::json
                                                    : tf::GraphFormat::text;
    const std::string dir = out.parent_path().empty() ? "." : out.parent_path().string();
    tf::write_graph(g.as_graph_def(), dir, out.filename().string(), format);
  }
  if (!o.dot.empty()) tf::write_dot(g, o.dot, o.dot_options);

  const tf::train::SignatureDef* sig = nullptr;
  if (!o.signature.empty()) {
    if (!meta) throw UsageError("--signature needs a SavedModel or a MetaGraphDef (.meta)");
    auto it = meta->signature_def.find(o.signature);
    if (it == meta->signature_def.end()) {
      std::string keys;
      for (const auto& [k, s] : meta->signature_def) keys += (keys.empty() ? "'" : ", '") + k + "'";
      throw tf::NotFoundError(o.model + " has no signature '" + o.signature +
                              "'; its signatures are [" + keys + "]");
    }
    sig = &it->second;
  }
  auto tensor = [&](const std::string& name, bool input) {
    return sig ? signature_tensor(*sig, o.signature, name, input) : tensor_name(name);
  };

  tf::FeedDict feeds;
  for (const auto& [name, file] : o.feeds) {
    const std::string t = tensor(name, true);
    (void)g.get_tensor_by_name(t);  // an unknown name fails before any file is read
    feeds.emplace_back(t, load_npy(file));
  }
  if (!o.checkpoint.empty()) {
    if (saver && (saver->runs_graph_ops() || !saver->var_list().empty()))
      saver->restore(sess, tf::train::load_checkpoint(o.checkpoint).prefix());
    else
      restore(g, sess, o.checkpoint);
  }
  for (const auto& [op, times] : o.runs) {
    const tf::Operation target = g.get_operation_by_name(op);
    for (int i = 0; i < times; ++i) sess.run(target, feeds);
  }
  if (!o.save.empty()) save(g, sess, saver, o.save);
  // With a signature and no --fetch, every output, printed under its key.
  std::vector<std::pair<std::string, std::string>> wanted = o.fetches;
  if (sig && wanted.empty())
    for (const auto& [key, info] : sig->outputs) wanted.emplace_back(key, "");
  if (wanted.empty()) return 0;
  std::vector<tf::Output> fetches;
  std::vector<tf::Fetch> targets;
  for (const auto& [name, file] : wanted) {
    fetches.push_back(g.get_tensor_by_name(tensor(name, false)));
    targets.emplace_back(fetches.back());
  }
  const std::vector<tf::Value> values = sess.run(targets, feeds);
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (sig && wanted[i].second.empty())
      std::cout << "Result for output key " << wanted[i].first << ":\n" << values[i] << "\n";
    else
      print_or_save(fetches[i].name(), wanted[i].second, values[i]);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(parse(argc, argv));
  } catch (const UsageError& e) {
    std::cerr << "symflow-run: " << e.what() << "\n" << kUsage;
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "symflow-run: " << e.what() << "\n";
    return 1;
  }
}
