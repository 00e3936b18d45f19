#pragma once
// GraphDef and NodeDef as plain data: the serialised form of a graph, the boundary
// between graphs and the file formats in io/.

#include <string>
#include <string_view>
#include <vector>

#include "symflow/core/attr_value.hpp"
#include "symflow/core/dtype.hpp"

namespace symflow {

// The enum name of a type attr's value in a GraphDef. DType::invalid there stands for
// DT_RESOURCE, a resource handle's type that the readers keep for io/tf_op_rewrites.hpp,
// so a GraphDef read and written back keeps it.
constexpr std::string_view attr_dtype_enum_name(DType d) {
  return d == DType::invalid ? std::string_view("DT_RESOURCE") : dtype_enum_name(d);
}

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
