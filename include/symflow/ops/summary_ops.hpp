#pragma once
// tf.summary (TensorFlow 1.x): the graph-building functions of the summary ops, each
// giving a string scalar that holds a serialized Summary proto for TensorBoard, and their
// registry entries. The ops' descriptions are in ops/defs/summary.hpp, their kernels in
// backend/cpu/kernels/summary.hpp; io/summary_writer.hpp writes the summaries to event
// files.

#include <array>
#include <cstdint>
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

// Adds a summary to `collections`, or to GraphKeys::SUMMARIES when they are unset.
inline void add_to_summary_collections(
    Graph& g, const Output& summary, const std::optional<std::vector<CollectionKey>>& collections) {
  const std::vector<CollectionKey> keys =
      collections ? *collections : std::vector<CollectionKey>{CollectionKey(GraphKeys::SUMMARIES)};
  for (const CollectionKey& key : keys) g.add_to_collection(key.name, summary);
}

// The scope name and tag of a summary named `name` under `family` (see build_summary).
inline std::string summary_base(std::string_view name, std::string_view family_name) {
  const std::string family = clean_tag(family_name);
  return family.empty() ? clean_tag(name) : family + "/" + clean_tag(name);
}
inline std::string summary_tag(const name_scope& scope, std::string_view family_name) {
  const std::string family = clean_tag(family_name);
  std::string tag = scope.name().substr(0, scope.name().size() - 1);
  return family.empty() ? tag : family + "/" + tag;
}

// Builds a summary op the way TensorFlow 1.x does: a name scope named after the (cleaned)
// name, under `family` when one is given; the tag is the scope's full name (prefixed with
// the family again), and the op is named exactly after the scope, so that
// scalar("loss", x) in scope "train" is node "train/loss" with tag "train/loss" (a second
// one: "train/loss_1"). The tag is a Const "<scope>/<tag_arg>"; TensorSummaryV2's
// metadata bytes, when given, a Const "<scope>/serialized_summary_metadata".
// `attrs` are the op's besides T (which is the tensor's dtype, for ops that have it).
inline Output build_summary(std::string_view name, const Output& tensor,
                            const SummaryOptions& options, const OpDef& def,
                            std::string_view tag_arg,
                            const std::optional<std::string>& metadata = std::nullopt,
                            AttrMap attrs = {{"T", DType::invalid}}) {
  Graph g = graph_of({tensor});
  name_scope scope(g, summary_base(name, options.family));
  const std::string tag = summary_tag(scope, options.family);
  symflow::detail::OpBuilder b(g, scope.name(), def.type);
  std::vector<Output> inputs{b.constant_arg(Value(tag), tag_arg), tensor};
  if (metadata) inputs.push_back(b.constant_arg(Value(*metadata), "serialized_summary_metadata"));
  if (attrs.contains("T")) attrs["T"] = tensor.dtype();
  Output summary = b.build(def, inputs, std::move(attrs)).output(0);
  add_to_summary_collections(g, summary, options.collections);
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

// Options of image and audio: how many of the batch's first items become images or
// clips (the ops' max_images / max_outputs), and those of scalar.
struct MediaSummaryOptions {
  std::int64_t max_outputs = 3;
  std::optional<std::vector<CollectionKey>> collections = std::nullopt;
  std::string family = {};
};

// tf.summary.image(name, tensor, max_outputs, collections, family): op ImageSummary, the
// first max_outputs images of a [batch, height, width, channels] tensor (channels 1, 3 or
// 4; uint8, float32 or float64) as PNGs, tagged "<tag>/image/<i>" ("<tag>/image" when
// max_outputs is 1). Float images are scaled into [0, 255] as TensorFlow scales them, and
// a pixel with a NaN or infinity is painted bad_color (opaque red). Another rank or
// channel count fails the run: "Tensor must be 4-D with last dim 1, 3, or 4, not [2,3]".
inline Tensor<std::string> image(std::string_view name, const Output& tensor,
                                 const MediaSummaryOptions& options = {}) {
  return Tensor<std::string>(detail::build_summary(
      name, tensor, {.collections = options.collections, .family = options.family},
      symflow::detail::kImageSummaryOp, "tag", std::nullopt,
      {{"max_images", options.max_outputs},
       {"bad_color", Value::from_vector<std::uint8_t>({255, 0, 0, 255}, {4})},
       {"T", DType::invalid}}));
}

namespace detail {

// audio()'s body: the rate as a tensor, or as a number for a new Const.
inline Tensor<std::string> build_audio_summary(std::string_view name, const Output& tensor,
                                               const std::optional<Output>& sample_rate_tensor,
                                               float sample_rate,
                                               const MediaSummaryOptions& options) {
  Graph g = graph_of({tensor});
  name_scope scope(g, summary_base(name, options.family));
  const std::string tag = summary_tag(scope, options.family);
  symflow::detail::OpBuilder b(g, scope.name(), "AudioSummaryV2");
  const Output rate =
      sample_rate_tensor ? *sample_rate_tensor : b.constant_arg(Value(sample_rate), "sample_rate");
  const Output tag_const = b.constant_arg(Value(tag), "tag");
  Output summary = b.build(symflow::detail::kAudioSummaryV2Op, {tag_const, tensor, rate},
                           {{"max_outputs", options.max_outputs}})
                       .output(0);
  add_to_summary_collections(g, summary, options.collections);
  return Tensor<std::string>(summary);
}

}  // namespace detail

// tf.summary.audio(name, tensor, sample_rate, max_outputs, collections, family): op
// AudioSummaryV2, the first max_outputs clips of a float32 [batch, frames] or [batch,
// frames, channels] tensor in [-1, 1] as 16-bit WAVs, tagged "<tag>/audio/<i>"
// ("<tag>/audio" when max_outputs is 1). `sample_rate` is a float32 scalar tensor, or a
// number that becomes the Const "<scope>/sample_rate"; a rate that is not positive
// fails the run ("sample_rate must be > 0").
inline Tensor<std::string> audio(std::string_view name, const Output& tensor, float sample_rate,
                                 const MediaSummaryOptions& options = {}) {
  return detail::build_audio_summary(name, tensor, std::nullopt, sample_rate, options);
}
inline Tensor<std::string> audio(std::string_view name, const Output& tensor,
                                 const Output& sample_rate,
                                 const MediaSummaryOptions& options = {}) {
  return detail::build_audio_summary(name, tensor, sample_rate, 0.0f, options);
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
    {&kImageSummaryOp, not_differentiable},
    {&kAudioSummaryV2Op, not_differentiable},
    {&kMergeSummaryOp, not_differentiable},
});

}  // namespace symflow::detail
