#pragma once
// The CPU kernels of the summary ops (ScalarSummary, HistogramSummary, TensorSummaryV2,
// MergeSummary), and
// kSummaryCpuKernels, the table that maps their OpDefs (ops/defs/summary.hpp) to them.
// Each writes a serialized Summary proto into a string scalar with
// io/summary_protos.hpp (the one include of io/ that these kernels make, reaching no
// graph; tests/architecture).

#include <array>
#include <cmath>
#include <cstdint>
#include <string>
#include <unordered_set>

#include "symflow/backend/cpu/kernel_table.hpp"
#include "symflow/backend/kernel_context.hpp"
#include "symflow/io/summary_protos.hpp"
#include "symflow/ops/defs/summary.hpp"

namespace symflow::detail {

// ScalarSummary: tags and values of one shape (or both scalars), each value as a float.
inline void scalar_summary_kernel(KernelContext& ctx) {
  const Value& tags = ctx.input(0);
  const Value& values = ctx.input(1);
  if (tags.dims() != values.dims()) {
    std::string message = "tags and values are not the same shape: " + dims_to_string(tags.dims()) +
                          " != " + dims_to_string(values.dims());
    if (tags.rank() == 0) message += " (tag '" + tags.scalar<std::string>() + "')";
    ctx.fail(message);
  }
  const auto tag_list = tags.flat<std::string>();
  std::string summary;
  visit_dtype(values.dtype(), [&](auto type_tag) {
    using T = typename decltype(type_tag)::type;
    const auto flat = values.flat<T>();
    for (std::size_t i = 0; i < tag_list.size(); ++i)
      io::summary_proto::append_simple_value(summary, tag_list[i], static_cast<float>(flat[i]));
  });
  ctx.set_output(0, Value(std::move(summary)));
}

// HistogramSummary: every element in TensorFlow's default buckets; NaN and infinities
// fail, named after the node (not the tag), in TensorFlow's two wordings.
inline void histogram_summary_kernel(KernelContext& ctx) {
  const Value& tag = ctx.input(0);
  const Value& values = ctx.input(1);
  if (tag.rank() != 0) ctx.fail("tags must be scalar");
  io::summary_proto::HistogramBuilder histogram;
  visit_dtype(values.dtype(), [&](auto type_tag) {
    using T = typename decltype(type_tag)::type;
    for (const T& x : values.flat<T>()) {
      const auto v = static_cast<double>(x);
      if (std::isnan(v)) ctx.fail("Nan in summary histogram for: " + ctx.node_name());
      if (std::isinf(v)) ctx.fail("Infinity in Histogram for: " + ctx.node_name());
      histogram.add(v);
    }
  });
  std::string summary;
  io::summary_proto::append_histogram_value(summary, tag.scalar<std::string>(),
                                            histogram.to_proto());
  ctx.set_output(0, Value(std::move(summary)));
}

// TensorSummaryV2: the tensor as a TensorProto, and the metadata's bytes as given.
inline void tensor_summary_v2_kernel(KernelContext& ctx) {
  const Value& tag = ctx.input(0);
  const Value& tensor = ctx.input(1);
  const Value& metadata = ctx.input(2);
  if (tag.rank() != 0) ctx.fail("tag must be scalar");
  if (metadata.rank() != 0) ctx.fail("serialized_summary_metadata must be scalar");
  std::string raw;
  std::vector<std::string_view> strings;
  if (tensor.dtype() == DType::string) {
    for (const std::string& s : tensor.flat<std::string>()) strings.push_back(s);
  } else {
    raw.assign(static_cast<const char*>(tensor.raw_data()), tensor.nbytes());
  }
  std::string summary;
  io::summary_proto::append_tensor_value(
      summary, tag.scalar<std::string>(),
      io::summary_proto::serialize_tensor_proto(tensor.dtype(), tensor.dims(), raw, strings),
      metadata.scalar<std::string>());
  ctx.set_output(0, Value(std::move(summary)));
}

// MergeSummary: the values of every input string, in order, each copied as it was
// encoded; two values with one non-empty tag fail.
inline void merge_summary_kernel(KernelContext& ctx) {
  std::string merged;
  std::unordered_set<std::string> tags;
  for (std::size_t i = 0; i < ctx.num_inputs(); ++i) {
    for (const std::string& serialized : ctx.input(i).flat<std::string>()) {
      std::vector<io::summary_proto::DecodedValue> values;
      try {
        values = io::summary_proto::parse_summary(serialized, ctx.node_name());
      } catch (const DataLossError&) {
        ctx.fail("Could not parse one of the summary inputs");
      }
      for (const auto& value : values) {
        if (!value.tag.empty() && !tags.insert(value.tag).second)
          ctx.fail("Duplicate tag " + value.tag + " found in summary inputs ");
        io::summary_proto::append_bytes_field(merged, io::summary_proto::kSummaryValue,
                                              value.bytes);
      }
    }
  }
  ctx.set_output(0, Value(std::move(merged)));
}

inline constexpr auto kSummaryCpuKernels = std::to_array<CpuKernel>({
    {&kScalarSummaryOp, scalar_summary_kernel},
    {&kHistogramSummaryOp, histogram_summary_kernel},
    {&kTensorSummaryV2Op, tensor_summary_v2_kernel},
    {&kMergeSummaryOp, merge_summary_kernel},
});

}  // namespace symflow::detail
