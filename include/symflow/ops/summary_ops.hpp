#pragma once
// tf.summary (TensorFlow 1.x): the graph-building functions of the summary ops, each
// giving a string scalar that holds a serialized Summary proto for TensorBoard, and their
// registry entries. The ops' descriptions are in ops/defs/summary.hpp, their kernels in
// backend/cpu/kernels/summary.hpp; io/summary_writer.hpp writes the summaries to event
// files.

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "symflow/graph/collections.hpp"
#include "symflow/graph/scopes.hpp"
#include "symflow/ops/const_op.hpp"
#include "symflow/ops/defs/summary.hpp"
#include "symflow/ops/grad_context.hpp"
#include "symflow/ops/op_builder.hpp"

namespace symflow::summary {

// Options of scalar and histogram: the collections the summary joins (GraphKeys::SUMMARIES
// when unset, none when empty), and a `family` that prefixes the tag and the node's scope.
struct SummaryOptions {
  std::optional<std::vector<CollectionKey>> collections = std::nullopt;
  std::string family = {};
};

namespace detail {

// A tag as TensorBoard takes it: every character but letters, digits, '_', '-', '/' and
// '.' turned into '_', and leading slashes dropped. Bytes of UTF-8 sequences count as
// letters.
inline std::string clean_tag(std::string_view name) {
  std::string out;
  for (char ch : name) {
    const auto byte = static_cast<unsigned char>(ch);
    const bool keep = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
                      (ch >= '0' && ch <= '9') || ch == '_' || ch == '-' || ch == '/' ||
                      ch == '.' || byte >= 0x80;
    out += keep ? ch : '_';
  }
  const auto first = out.find_first_not_of('/');
  return first == std::string::npos ? std::string() : out.substr(first);
}

// Builds a summary op the way TensorFlow 1.x does: a name scope named after the (cleaned)
// name, under `family` when one is given; the tag is the scope's full name (prefixed with
// the family again), and the op is named exactly after the scope, so that
// scalar("loss", x) in scope "train" is node "train/loss" with tag "train/loss" (a second
// one: "train/loss_1"). The tag is a Const "<scope>/<tag_arg>"; TensorSummaryV2's
// metadata bytes, when given, a Const "<scope>/serialized_summary_metadata".
inline Output build_summary(std::string_view name, const Output& tensor,
                            const SummaryOptions& options, const OpDef& def,
                            std::string_view tag_arg,
                            const std::optional<std::string>& metadata = std::nullopt) {
  const std::string cleaned = clean_tag(name);
  const std::string family = clean_tag(options.family);
  const std::string base = family.empty() ? cleaned : family + "/" + cleaned;
  Graph g = graph_of({tensor});
  name_scope scope(g, base);
  std::string tag = scope.name().substr(0, scope.name().size() - 1);
  if (!family.empty()) tag = family + "/" + tag;
  symflow::detail::OpBuilder b(g, scope.name(), def.type);
  std::vector<Output> inputs{b.constant_arg(Value(tag), tag_arg), tensor};
  if (metadata) inputs.push_back(b.constant_arg(Value(*metadata), "serialized_summary_metadata"));
  Output summary = b.build(def, inputs, {{"T", tensor.dtype()}}).output(0);
  const std::vector<CollectionKey> keys =
      options.collections ? *options.collections
                          : std::vector<CollectionKey>{CollectionKey(GraphKeys::SUMMARIES)};
  for (const CollectionKey& key : keys) g.add_to_collection(key.name, summary);
  return summary;
}

}  // namespace detail

// tf.summary.scalar(name, tensor, collections, family): a Summary with one simple value,
// the tensor's (a number tensor of one element, checked when it runs: any other shape is
// InvalidArgumentError "tags and values are not the same shape: [] != [2] (tag '...')").
inline Tensor<std::string> scalar(std::string_view name, const Output& tensor,
                                  const SummaryOptions& options = {}) {
  return Tensor<std::string>(
      detail::build_summary(name, tensor, options, symflow::detail::kScalarSummaryOp, "tags"));
}

// tf.summary.histogram(name, values, collections, family): a Summary with the histogram
// of every element in TensorFlow's default buckets. A NaN or infinite element fails the
// run ("Nan in summary histogram for: <node>").
inline Tensor<std::string> histogram(std::string_view name, const Output& values,
                                     const SummaryOptions& options = {}) {
  return Tensor<std::string>(
      detail::build_summary(name, values, options, symflow::detail::kHistogramSummaryOp, "tag"));
}

// What tensor_summary's SummaryMetadata says besides the plugin: a display name and a
// description.
struct TensorSummaryOptions {
  std::string summary_description = {};
  std::string display_name = {};
  std::optional<std::vector<CollectionKey>> collections = std::nullopt;
  std::string family = {};
};

namespace detail {

// A SummaryMetadata's bytes: plugin_data { plugin_name } (1), display_name (2),
// summary_description (3), each left out when empty.
inline std::string summary_metadata(std::string_view plugin_name, std::string_view display_name,
                                    std::string_view description) {
  auto append_bytes = [](std::string& out, unsigned field, std::string_view bytes) {
    out += static_cast<char>((field << 3) | 2);
    for (std::size_t n = bytes.size();; n >>= 7) {  // a varint length
      out += static_cast<char>((n & 0x7f) | (n >= 0x80 ? 0x80 : 0));
      if (n < 0x80) break;
    }
    out.append(bytes);
  };
  std::string out;
  if (!plugin_name.empty()) {
    std::string plugin;
    append_bytes(plugin, 1, plugin_name);
    append_bytes(out, 1, plugin);
  }
  if (!display_name.empty()) append_bytes(out, 2, display_name);
  if (!description.empty()) append_bytes(out, 3, description);
  return out;
}

}  // namespace detail

// tf.summary.tensor_summary(name, tensor, summary_description, collections, family,
// display_name): the tensor itself, of any dtype and shape, as a TensorProto in the
// Summary (op TensorSummaryV2), with a SummaryMetadata of the description and display
// name.
inline Tensor<std::string> tensor_summary(std::string_view name, const Output& tensor,
                                          const TensorSummaryOptions& options = {}) {
  return Tensor<std::string>(detail::build_summary(
      name, tensor, {.collections = options.collections, .family = options.family},
      symflow::detail::kTensorSummaryV2Op, "tag",
      detail::summary_metadata({}, options.display_name, options.summary_description)));
}

// tf.summary.text(name, tensor, collections): a string tensor for TensorBoard's Text tab
// (a tensor summary for the "text" plugin). Another dtype is a ValueError.
inline Tensor<std::string> text(
    std::string_view name, const Output& tensor,
    const std::optional<std::vector<CollectionKey>>& collections = std::nullopt) {
  if (tensor.dtype() != DType::string)
    throw ValueError("Expected tensor " + tensor.name() + " to have dtype string, got <dtype: '" +
                     std::string(dtype_name(tensor.dtype())) + "'>");
  return Tensor<std::string>(detail::build_summary(name, tensor, {.collections = collections},
                                                   symflow::detail::kTensorSummaryV2Op, "tag",
                                                   detail::summary_metadata("text", {}, {})));
}

// tf.summary.merge(inputs, collections, name): one Summary holding the values of every
// input summary, in order (node "Merge/MergeSummary"); a tag found twice fails the run.
// The result joins `collections` (none by default).
inline Tensor<std::string> merge(const std::vector<Output>& inputs,
                                 const std::vector<CollectionKey>& collections = {},
                                 std::string_view name = {}) {
  if (inputs.empty())
    throw ValueError(
        "List argument 'inputs' to 'MergeSummary' Op with length 0 shorter than minimum "
        "length 1.");
  Graph g = graph_of(inputs);
  name_scope scope(g, name.empty() ? "Merge" : name);
  symflow::detail::OpBuilder b(g, {}, "MergeSummary");
  Output merged = b.build(symflow::detail::kMergeSummaryOp, inputs,
                          {{"N", static_cast<std::int64_t>(inputs.size())}})
                      .output(0);
  for (const CollectionKey& key : collections) g.add_to_collection(key.name, merged);
  return Tensor<std::string>(merged);
}

// tf.summary.merge_all(key, scope, name): merge() of the default graph's collection `key`
// (the summaries whose names start with `scope`), or std::nullopt when it holds none.
inline std::optional<Tensor<std::string>> merge_all(std::string_view key = GraphKeys::SUMMARIES,
                                                    std::string_view scope = {},
                                                    std::string_view name = {}) {
  std::vector<Output> summaries;
  for (const CollectionValue& item : get_collection(key, scope))
    if (const Output* out = std::get_if<Output>(&item)) summaries.push_back(*out);
  if (summaries.empty()) return std::nullopt;
  return merge(summaries, {}, name);
}

}  // namespace symflow::summary

namespace symflow::detail {

// The registry's entries of the summary ops (ops/registry.hpp): nothing flows back
// through a summary.
inline constexpr auto kSummaryOpEntries = std::to_array<OpEntry>({
    {&kScalarSummaryOp, not_differentiable},
    {&kHistogramSummaryOp, not_differentiable},
    {&kTensorSummaryV2Op, not_differentiable},
    {&kMergeSummaryOp, not_differentiable},
});

}  // namespace symflow::detail
