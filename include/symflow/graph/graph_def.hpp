#pragma once
// GraphDef and NodeDef as plain data: the serialised form of a graph, the boundary
// between graphs and the file formats in io/.

#include <string>
#include <vector>

#include "symflow/core/attr_value.hpp"

namespace symflow {

struct NodeDef {
  std::string name;
  std::string op;
  std::vector<std::string> input;  // "x", "x:1", and "^x" for control inputs
  std::string device;
  AttrMap attr;
};

// The producer version written into GraphDefs.
inline constexpr int kGraphDefVersion = 26;

struct GraphDef {
  std::vector<NodeDef> node;
  int producer = kGraphDefVersion;
};

}  // namespace symflow
