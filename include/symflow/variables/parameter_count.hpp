#pragma once
// Counting the parameters of the trainable variables (seed experiment 7):
//   Total 4 variables, 203,530 params

#include <cstdint>
#include <iostream>
#include <string>
#include <vector>

#include "symflow/variables/variable.hpp"

namespace symflow {

// 203530 -> "203,530" (Python's "{:,}").
inline std::string with_thousands_separators(std::int64_t n) {
  std::string digits = std::to_string(n < 0 ? -n : n);
  std::string out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return n < 0 ? "-" + out : out;
}

// The number of elements of every variable together; a variable whose shape is
// not fully known is a ValueError naming it.
inline std::int64_t count_params(const std::vector<Variable>& variables) {
  std::int64_t total = 0;
  for (const Variable& v : variables) {
    if (!v.shape().is_fully_defined())
      throw ValueError("Cannot count the parameters of " + v.name() + ": its shape " +
                       v.shape().to_string() + " is not fully defined");
    total += v.shape().num_elements();
  }
  return total;
}

// Prints "Total N variables, M params" for the trainable variables, preceded with
// output_detail by one "name shape=count, " entry per variable.
inline void print_num_of_total_parameters(std::ostream& os = std::cout,
                                          bool output_detail = false) {
  std::vector<Variable> variables = trainable_variables();
  if (output_detail) {
    std::string detail;
    for (const Variable& v : variables) {
      std::int64_t n = count_params({v});
      if (v.shape().rank() == 1)
        detail += v.name() + " " + std::to_string(n) + ", ";
      else
        detail += v.name() + " " + v.shape().to_string() + "=" + std::to_string(n) + ", ";
    }
    os << detail << "\n";
  }
  os << "Total " << variables.size() << " variables, "
     << with_thousands_separators(count_params(variables)) << " params\n";
}

}  // namespace symflow
