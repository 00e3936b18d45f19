#pragma once
// Device names, as TensorFlow spells them: "/cpu:0", "/gpu:0", "/device:GPU:0" and
// "/job:localhost/replica:0/task:0/device:CPU:0" all parse; to_string() gives the
// canonical form that Operation::device() and the GraphDef carry ("/device:GPU:0").

#include <cctype>
#include <charconv>
#include <string>
#include <string_view>

#include "symflow/core/errors.hpp"

namespace symflow {

struct DeviceSpec {
  std::string job;   // empty: unset
  int replica = -1;  // -1: unset
  int task = -1;     // -1: unset
  std::string type;  // "CPU", "GPU"; empty: unset
  int index = -1;    // -1: unset or "*"

  // ValueError naming the spec and the part it cannot read.
  static DeviceSpec parse(std::string_view spec) {
    DeviceSpec d;
    std::string_view rest = spec;
    auto fail = [&](std::string_view part, std::string_view why) -> DeviceSpec {
      throw ValueError("Cannot parse device specification '" + std::string(spec) + "': part '" +
                       std::string(part) + "' " + std::string(why));
    };
    auto number = [&](std::string_view part, std::string_view text, int& out) {
      if (text == "*") return;
      int n = 0;
      auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
      if (ec != std::errc() || end != text.data() + text.size() || n < 0)
        fail(part, "needs a non-negative number");
      out = n;
    };
    auto device = [&](std::string_view part, std::string_view type_and_index) {
      const auto colon = type_and_index.find(':');
      std::string_view type = type_and_index.substr(0, colon);
      if (type.empty()) fail(part, "has no device type");
      d.type.clear();
      for (char c : type) d.type += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
      if (d.type != "CPU" && d.type != "GPU")
        fail(part, "names device type " + std::string(type) + "; symflow knows CPU and GPU");
      if (colon != std::string_view::npos) number(part, type_and_index.substr(colon + 1), d.index);
    };
    while (!rest.empty()) {
      if (rest.front() != '/') fail(rest, "must start with '/'");
      rest.remove_prefix(1);
      const auto slash = rest.find('/');
      std::string_view part = rest.substr(0, slash);
      rest = slash == std::string_view::npos ? std::string_view{} : rest.substr(slash);
      const auto colon = part.find(':');
      std::string_view key = part.substr(0, colon);
      std::string_view value =
          colon == std::string_view::npos ? std::string_view{} : part.substr(colon + 1);
      if (key == "job") {
        if (value.empty()) fail(part, "has no job name");
        d.job = std::string(value);
      } else if (key == "replica") {
        number(part, value, d.replica);
      } else if (key == "task") {
        number(part, value, d.task);
      } else if (key == "device") {
        device(part, value);
      } else {
        device(part, part);  // "/cpu:0", "/GPU:1"
      }
    }
    return d;
  }

  bool empty() const { return job.empty() && replica < 0 && task < 0 && type.empty(); }

  // The fields of `inner` that are set, over these (nested tf.device scopes).
  DeviceSpec merged_with(const DeviceSpec& inner) const {
    DeviceSpec d = *this;
    if (!inner.job.empty()) d.job = inner.job;
    if (inner.replica >= 0) d.replica = inner.replica;
    if (inner.task >= 0) d.task = inner.task;
    if (!inner.type.empty()) {
      d.type = inner.type;
      d.index = inner.index;
    }
    return d;
  }

  std::string to_string() const {
    std::string s;
    if (!job.empty()) s += "/job:" + job;
    if (replica >= 0) s += "/replica:" + std::to_string(replica);
    if (task >= 0) s += "/task:" + std::to_string(task);
    if (!type.empty()) s += "/device:" + type + ":" + (index >= 0 ? std::to_string(index) : "*");
    return s;
  }
};

// The canonical spelling of a device name ("/gpu:0" -> "/device:GPU:0"; "" stays "").
inline std::string canonical_device(std::string_view spec) {
  return DeviceSpec::parse(spec).to_string();
}

}  // namespace symflow
