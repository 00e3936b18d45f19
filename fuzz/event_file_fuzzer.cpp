// Fuzz target: the contents of a TensorBoard event file, as summary::summary_iterator
// reads it (io/event_file.hpp: TFRecord framing, Event and Summary protos). Damaged bytes
// must be a DataLossError; events that read must survive being written and read again.
// The same bytes also go through MergeSummary's kernel as one serialized Summary, where
// bytes that are not one must be an InvalidArgumentError. Anything else is a finding.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <symflow/backend/cpu/kernels/summary.hpp>
#include <symflow/io/event_file.hpp>

#include "fuzz_support.hpp"

namespace {

void read_events(std::string_view bytes) {
  std::vector<symflow::io::Event> events;
  try {
    for (const auto& record : symflow::io::split_records(bytes, "fuzz"))
      symflow::fuzz::require(
          record.data.data() >= bytes.data() &&
              record.data.data() + record.data.size() <= bytes.data() + bytes.size(),
          "a record's data lies in the file");
    events = symflow::io::parse_events(bytes, "fuzz");
  } catch (const symflow::DataLossError&) {
    return;
  }
  std::string again;
  for (const auto& e : events) again += symflow::io::frame_record(symflow::io::serialize_event(e));
  const auto reread = symflow::io::parse_events(again, "fuzz again");
  symflow::fuzz::require(reread.size() == events.size(), "as many events read again");
  for (std::size_t i = 0; i < events.size(); ++i) {
    symflow::fuzz::require(reread[i].step == events[i].step, "the same step read again");
    symflow::fuzz::require(reread[i].values.size() == events[i].values.size(),
                           "as many summary values read again");
  }
}

void merge_as_summary(std::string_view bytes) {
  const symflow::AttrMap attrs = {{"N", std::int64_t{1}}};
  std::vector<symflow::Value> inputs = {symflow::Value(std::string(bytes))};
  std::vector<symflow::Value> outputs(1);
  const std::string node = "MergeSummary";
  symflow::KernelContext ctx(node, attrs, inputs, outputs);
  try {
    symflow::detail::merge_summary_kernel(ctx);
  } catch (const symflow::InvalidArgumentError&) {
    return;
  }
  symflow::fuzz::require(outputs[0].dtype() == symflow::DType::string && outputs[0].rank() == 0,
                         "a string scalar");
  symflow::fuzz::require(outputs[0].scalar<std::string>().size() <= bytes.size(),
                         "a merged summary no longer than its input");
}

}  // namespace

SYMFLOW_FUZZ_TARGET(event_file) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  read_events(bytes);
  merge_as_summary(bytes);
  return 0;
}
