// The error hierarchy (tf.errors) and typed node attributes.
#include <doctest/doctest.h>

#include <cstdint>
#include <iterator>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "symflow/core/attr_value.hpp"
#include "symflow/core/dtype.hpp"
#include "symflow/core/errors.hpp"
#include "symflow/core/shape.hpp"
#include "symflow/core/value.hpp"

namespace symflow_test_core_errors_test {

namespace symflow_errors_test {

using symflow::ErrorCode;

// Checks one tf.errors class: its base classes, its status code (TensorFlow's number,
// tensorflow/core/protobuf/error_codes.proto) and its message with and without a node.
template <class E>
void check_op_error(int tf_code) {
  static_assert(std::is_base_of_v<symflow::OpError, E>);
  static_assert(std::is_base_of_v<symflow::Error, E>);
  static_assert(std::is_base_of_v<std::runtime_error, E>);
  E plain("something failed");
  CHECK(static_cast<int>(plain.code()) == tf_code);
  CHECK(std::string(plain.what()) == "something failed");
  CHECK(plain.message() == "something failed");
  CHECK(plain.node_name().empty());

  E at_node("Incompatible shapes: [2] vs. [3]", "add");
  CHECK(static_cast<int>(at_node.code()) == tf_code);
  CHECK(at_node.node_name() == "add");
  CHECK(at_node.message() == "Incompatible shapes: [2] vs. [3]");
  CHECK(std::string(at_node.what()) == "Incompatible shapes: [2] vs. [3]\n\t [[{{node add}}]]");

  // Caught through every base.
  bool caught = false;
  try {
    throw E("boom", "n");
  } catch (const symflow::OpError& e) {
    caught = true;
    CHECK(static_cast<int>(e.code()) == tf_code);
  }
  CHECK(caught);
  CHECK_THROWS_AS(throw E("boom"), symflow::Error);
  CHECK_THROWS_AS(throw E("boom"), std::runtime_error);
  CHECK_THROWS_WITH_AS(throw E("boom", "x/y"), "boom\n\t [[{{node x/y}}]]", std::exception);
}

}  // namespace symflow_errors_test

using namespace symflow_errors_test;  // NOLINT(google-build-using-namespace)

TEST_CASE("core/errors: every tf.errors class carries TensorFlow's status code") {
  check_op_error<symflow::CancelledError>(1);
  check_op_error<symflow::UnknownError>(2);
  check_op_error<symflow::InvalidArgumentError>(3);
  check_op_error<symflow::DeadlineExceededError>(4);
  check_op_error<symflow::NotFoundError>(5);
  check_op_error<symflow::AlreadyExistsError>(6);
  check_op_error<symflow::PermissionDeniedError>(7);
  check_op_error<symflow::ResourceExhaustedError>(8);
  check_op_error<symflow::FailedPreconditionError>(9);
  check_op_error<symflow::AbortedError>(10);
  check_op_error<symflow::OutOfRangeError>(11);
  check_op_error<symflow::UnimplementedError>(12);
  check_op_error<symflow::InternalError>(13);
  check_op_error<symflow::UnavailableError>(14);
  check_op_error<symflow::DataLossError>(15);
  check_op_error<symflow::UnauthenticatedError>(16);
}

TEST_CASE("core/errors: ErrorCode enumerators have the proto's numbers") {
  CHECK(static_cast<int>(ErrorCode::ok) == 0);
  CHECK(static_cast<int>(ErrorCode::invalid_argument) == 3);
  CHECK(static_cast<int>(ErrorCode::failed_precondition) == 9);
  CHECK(static_cast<int>(ErrorCode::out_of_range) == 11);
  CHECK(static_cast<int>(ErrorCode::data_loss) == 15);
  CHECK(static_cast<int>(ErrorCode::unauthenticated) == 16);
}

TEST_CASE("core/errors: ValueError and TypeError are construction errors, not OpErrors") {
  static_assert(std::is_base_of_v<symflow::Error, symflow::ValueError>);
  static_assert(std::is_base_of_v<symflow::Error, symflow::TypeError>);
  CHECK_FALSE(std::is_base_of_v<symflow::OpError, symflow::ValueError>);
  CHECK_FALSE(std::is_base_of_v<symflow::OpError, symflow::TypeError>);
  CHECK_FALSE(std::is_base_of_v<symflow::ValueError, symflow::TypeError>);

  symflow::ValueError v("Shapes (2,) and (3,) are not compatible");
  CHECK(v.code() == ErrorCode::invalid_argument);
  CHECK(std::string(v.what()) == "Shapes (2,) and (3,) are not compatible");
  symflow::TypeError t("Expected float32, got int32", "Const");
  CHECK(t.code() == ErrorCode::invalid_argument);
  CHECK(t.node_name() == "Const");
  CHECK(std::string(t.what()) == "Expected float32, got int32\n\t [[{{node Const}}]]");
  CHECK_THROWS_AS(throw symflow::ValueError("x"), symflow::Error);
  CHECK_THROWS_AS(throw symflow::TypeError("x"), symflow::Error);
  // A TypeError is not caught as a ValueError.
  bool caught_as_value_error = false;
  try {
    try {
      throw symflow::TypeError("x");
    } catch (const symflow::ValueError&) {
      caught_as_value_error = true;
    }
  } catch (const symflow::TypeError&) {
  }
  CHECK_FALSE(caught_as_value_error);
}

TEST_CASE("core/errors: the base Error keeps an explicit code") {
  symflow::Error e(ErrorCode::internal, "broken", "n1");
  CHECK(e.code() == ErrorCode::internal);
  CHECK(std::string(e.what()) == "broken\n\t [[{{node n1}}]]");
  symflow::Error no_node(ErrorCode::aborted, "stopped");
  CHECK(std::string(no_node.what()) == "stopped");
}

TEST_CASE("core/attr_value: get_attr returns typed attrs") {
  symflow::AttrMap attrs{{"T", symflow::DType::float32},
                         {"value", symflow::Value(2.0f)},
                         {"shape", symflow::Shape{2, -1}},
                         {"N", std::int64_t{3}},
                         {"alpha", 0.5},
                         {"transpose_a", true},
                         {"padding", std::string("SAME")},
                         {"strides", symflow::IntList{{1, 2, 2, 1}}},
                         {"_class", symflow::StringList{{"loc:@Variable"}}}};
  CHECK(symflow::get_attr<symflow::DType>(attrs, "T") == symflow::DType::float32);
  CHECK(symflow::get_attr<symflow::Value>(attrs, "value").scalar<float>() == 2.0f);
  CHECK(symflow::get_attr<symflow::Shape>(attrs, "shape").to_string() == "(2, ?)");
  CHECK(symflow::get_attr<std::int64_t>(attrs, "N") == 3);
  CHECK(symflow::get_attr<double>(attrs, "alpha") == 0.5);
  CHECK(symflow::get_attr<bool>(attrs, "transpose_a"));
  CHECK(symflow::get_attr<std::string>(attrs, "padding") == "SAME");
  CHECK(symflow::get_attr<symflow::IntList>(attrs, "strides") == symflow::IntList{{1, 2, 2, 1}});
  CHECK(symflow::get_attr<symflow::StringList>(attrs, "_class").items.at(0) == "loc:@Variable");
  // Sorted by key, as GraphDef text lists them.
  CHECK(attrs.begin()->first == "N");
  CHECK(std::prev(attrs.end())->first == "value");
}

TEST_CASE("core/attr_value: a missing or mistyped attr names the attr and the node") {
  symflow::AttrMap attrs{{"T", symflow::DType::int32}};
  CHECK_THROWS_WITH_AS(symflow::get_attr<symflow::DType>(attrs, "dtype", "Const"),
                       "No attr named 'dtype' in NodeDef\n\t [[{{node Const}}]]",
                       symflow::NotFoundError);
  CHECK_THROWS_WITH_AS(symflow::get_attr<std::int64_t>(attrs, "T", "Cast"),
                       "Attr 'T' is not of type int\n\t [[{{node Cast}}]]",
                       symflow::InvalidArgumentError);
  CHECK_THROWS_WITH_AS(symflow::get_attr<symflow::IntList>(attrs, "T"),
                       "Attr 'T' is not of type list(int)", symflow::InvalidArgumentError);
}

}  // namespace symflow_test_core_errors_test
