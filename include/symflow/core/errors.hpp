#pragma once
// The error hierarchy mirrors tf.errors: run-time failures (OpError and its subclasses)
// carry TensorFlow's status code and the name of the node that failed; client-side
// mistakes are the Python exceptions Python TensorFlow raises for them (ValueError,
// TypeError, LookupError / KeyError, RuntimeError, IOError). docs/decisions.md maps them.

#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

namespace symflow {

// TensorFlow's canonical status codes (tensorflow/core/protobuf/error_codes.proto).
enum class ErrorCode {
  ok = 0,
  cancelled = 1,
  unknown = 2,
  invalid_argument = 3,
  deadline_exceeded = 4,
  not_found = 5,
  already_exists = 6,
  permission_denied = 7,
  resource_exhausted = 8,
  failed_precondition = 9,
  aborted = 10,
  out_of_range = 11,
  unimplemented = 12,
  internal = 13,
  unavailable = 14,
  data_loss = 15,
  unauthenticated = 16,
};

// Base of every error symflow throws.
class Error : public std::runtime_error {
 public:
  Error(ErrorCode code, std::string message, std::string node_name = {})
      : std::runtime_error(format(message, node_name)),
        code_(code),
        message_(std::move(message)),
        node_name_(std::move(node_name)) {}

  ErrorCode code() const noexcept { return code_; }
  // The message without the node annotation.
  const std::string& message() const noexcept { return message_; }
  // The node the error is about, empty when it concerns no single node.
  const std::string& node_name() const noexcept { return node_name_; }

 private:
  static std::string format(const std::string& message, const std::string& node) {
    if (node.empty()) return message;
    return message + "\n\t [[{{node " + node + "}}]]";
  }

  ErrorCode code_;
  std::string message_;
  std::string node_name_;
};

// An error raised while running a graph (tf.errors.OpError and its subclasses).
class OpError : public Error {
 public:
  using Error::Error;
};

#define SYMFLOW_DEFINE_OP_ERROR(Name, code_value)                          \
  class Name : public OpError {                                            \
   public:                                                                 \
    explicit Name(std::string message, std::string node_name = {})         \
        : OpError(code_value, std::move(message), std::move(node_name)) {} \
  };

SYMFLOW_DEFINE_OP_ERROR(CancelledError, ErrorCode::cancelled)
SYMFLOW_DEFINE_OP_ERROR(UnknownError, ErrorCode::unknown)
SYMFLOW_DEFINE_OP_ERROR(InvalidArgumentError, ErrorCode::invalid_argument)
SYMFLOW_DEFINE_OP_ERROR(DeadlineExceededError, ErrorCode::deadline_exceeded)
SYMFLOW_DEFINE_OP_ERROR(NotFoundError, ErrorCode::not_found)
SYMFLOW_DEFINE_OP_ERROR(AlreadyExistsError, ErrorCode::already_exists)
SYMFLOW_DEFINE_OP_ERROR(PermissionDeniedError, ErrorCode::permission_denied)
SYMFLOW_DEFINE_OP_ERROR(ResourceExhaustedError, ErrorCode::resource_exhausted)
SYMFLOW_DEFINE_OP_ERROR(FailedPreconditionError, ErrorCode::failed_precondition)
SYMFLOW_DEFINE_OP_ERROR(AbortedError, ErrorCode::aborted)
SYMFLOW_DEFINE_OP_ERROR(OutOfRangeError, ErrorCode::out_of_range)
SYMFLOW_DEFINE_OP_ERROR(UnimplementedError, ErrorCode::unimplemented)
SYMFLOW_DEFINE_OP_ERROR(InternalError, ErrorCode::internal)
SYMFLOW_DEFINE_OP_ERROR(UnavailableError, ErrorCode::unavailable)
SYMFLOW_DEFINE_OP_ERROR(DataLossError, ErrorCode::data_loss)
SYMFLOW_DEFINE_OP_ERROR(UnauthenticatedError, ErrorCode::unauthenticated)

#undef SYMFLOW_DEFINE_OP_ERROR

// A graph-construction mistake with a bad value (Python's ValueError in TensorFlow).
class ValueError : public Error {
 public:
  explicit ValueError(std::string message, std::string node_name = {})
      : Error(ErrorCode::invalid_argument, std::move(message), std::move(node_name)) {}
};

// A graph-construction mistake with a wrong element type (Python's TypeError).
class TypeError : public Error {
 public:
  explicit TypeError(std::string message, std::string node_name = {})
      : Error(ErrorCode::invalid_argument, std::move(message), std::move(node_name)) {}
};

// A lookup that found nothing at graph-construction time, as Python's LookupError
// ("No gradient defined for operation ...").
class LookupError : public Error {
 public:
  explicit LookupError(std::string message, std::string node_name = {})
      : Error(ErrorCode::not_found, std::move(message), std::move(node_name)) {}
};

// A name or key that is not there (Python's KeyError, a LookupError): a graph lookup of
// an operation or tensor that does not exist.
class KeyError : public LookupError {
 public:
  using LookupError::LookupError;
};

// A call that the object's state forbids (Python's RuntimeError): modifying a finalized
// graph. Its code is failed_precondition, the nearest status code.
class RuntimeError : public Error {
 public:
  explicit RuntimeError(std::string message, std::string node_name = {})
      : Error(ErrorCode::failed_precondition, std::move(message), std::move(node_name)) {}
};

// A file-system failure raised by the client (Python's OSError, whose alias is IOError).
// Its code is unknown: the operating system's error is in the message.
class IOError : public Error {
 public:
  explicit IOError(std::string message, std::string node_name = {})
      : Error(ErrorCode::unknown, std::move(message), std::move(node_name)) {}
};

}  // namespace symflow
