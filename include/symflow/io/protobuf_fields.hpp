#pragma once
// Reading the fields of a parsed protobuf message (io/protobuf_schema.hpp) as the types
// their reader expects, with errors that name the file and where in it: the line of a
// text file, the byte offset of a binary one. The GraphDef reader and the MetaGraphDef
// and SavedModel reader share it.

#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <string>
#include <utility>

#include "symflow/core/errors.hpp"
#include "symflow/io/protobuf_schema.hpp"

namespace symflow::io::proto {

class FieldReader {
 public:
  FieldReader(std::string source, bool binary) : source_(std::move(source)), binary_(binary) {}

  const std::string& source() const { return source_; }
  bool binary() const { return binary_; }

  [[noreturn]] void fail(std::int64_t position, const std::string& what) const {
    if (binary_) throw DataLossError(source_ + " (byte " + std::to_string(position) + "): " + what);
    throw DataLossError(source_ + ":" + std::to_string(position) + ": " + what);
  }

  const Message& message(const Field& f) const {
    if (!f.is_message) fail(f.position, "expected field '" + f.name + "' to be a message");
    return *f.message;
  }
  const std::string& string(const Field& f) const {
    if (f.is_message || !f.is_string)
      fail(f.position, "expected field '" + f.name + "' to be a quoted string");
    return f.scalar;
  }
  const std::string& token(const Field& f) const {
    if (f.is_message || f.is_string)
      fail(f.position, "expected field '" + f.name + "' to be a number or an enum name");
    return f.scalar;
  }
  std::int64_t integer(const Field& f, long long lo = std::numeric_limits<long long>::min(),
                       long long hi = std::numeric_limits<long long>::max()) const {
    const std::string& t = token(f);
    errno = 0;
    char* end = nullptr;
    long long v = std::strtoll(t.c_str(), &end, 10);
    if (t.empty() || *end != '\0' || errno == ERANGE || v < lo || v > hi)
      fail(f.position,
           "expected field '" + f.name + "' to be an integer in range, got '" + t + "'");
    return v;
  }
  // A float or double field; `as_float` rounds as a float field is stored.
  double real(const Field& f, bool as_float = false) const {
    std::string t = token(f);
    // protobuf also writes "inf", "-inf", "nan", and may suffix floats with 'f'.
    if (t.size() > 1 && (t.back() == 'f' || t.back() == 'F') &&
        t.find_first_of("0123456789") != std::string::npos && t != "inf" && t != "-inf")
      t.pop_back();
    char* end = nullptr;
    double v =
        as_float ? static_cast<double>(std::strtof(t.c_str(), &end)) : std::strtod(t.c_str(), &end);
    if (t.empty() || *end != '\0')
      fail(f.position, "expected field '" + f.name + "' to be a number, got '" + t + "'");
    return v;
  }
  bool boolean(const Field& f) const {
    const std::string& t = token(f);
    if (t == "true" || t == "True" || t == "1") return true;
    if (t == "false" || t == "False" || t == "0") return false;
    fail(f.position, "expected field '" + f.name + "' to be true or false, got '" + t + "'");
  }

 private:
  std::string source_;
  bool binary_;
};

}  // namespace symflow::io::proto
