// Bad input through the public API: for each mistake a user can make (shapes that do not
// fit an op, attrs out of range, indices out of bounds at run time, wrong feeds, unknown
// names, bad variables, missing files, division by zero), symflow raises the error class
// TensorFlow raises for the same program in tf.compat.v1 graph mode, with the key part of
// its message and the node it names; or, where TensorFlow documents a result instead of an
// error (1/0 is inf, a NaN cast to int32 is INT32_MIN), that result.
// Oracle: TensorFlow 2.21, tf.compat.v1 with eager execution disabled.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include <symflow/io/graph_io.hpp>
#include <symflow/symflow.hpp>
#include <symflow/train/saver.hpp>

#include "../test_util.hpp"

namespace symflow_test_core_bad_inputs_test {

namespace tf = symflow;
using tf::DType;
using tf::Output;
using tf::Value;

namespace {

// A fresh default graph for one case.
struct FreshGraph {
  tf::Graph g;
  tf::DefaultGraphGuard guard{g};
};

Output ones(const tf::Dims& dims, const std::string& name = {}) {
  return tf::constant(Value::filled<float>(dims, 1.0f), name);
}

Output int32s(const std::vector<std::int32_t>& values, const std::string& name = {}) {
  return tf::constant(
      Value::from_vector<std::int32_t>(values, {static_cast<std::int64_t>(values.size())}), name);
}

// Runs `f` and checks that it throws E whose message holds `part`; `node`, when given, is
// the node TensorFlow names: in the message of a graph-construction error ("for '{{node
// X}} = ..."), or as the node of a run-time OpError.
template <class E, class F>
void expect(F&& f, const std::string& part, const std::string& node = {}) {
  try {
    f();
    FAIL_CHECK("no error; TensorFlow raises one with: " << part);
  } catch (const E& e) {
    const std::string what = e.what();
    INFO("message: " << what);
    CHECK(what.find(part) != std::string::npos);
    if (!node.empty()) {
      if constexpr (std::is_base_of_v<tf::OpError, E>)
        CHECK(e.node_name() == node);
      else  // "for 'mm' (op: 'MatMul')" as TensorFlow 1.x writes it, or 2.x's "{{node mm}}"
        CHECK((what.find("for '" + node + "' (op: '") != std::string::npos ||
               what.find("{{node " + node + "}}") != std::string::npos));
    }
  } catch (const std::exception& e) {
    FAIL_CHECK("another exception type: " << std::string(e.what())
                                          << "; TensorFlow raises one with: " << part);
  }
}

// Builds `make` in a fresh graph, then runs its result; an error must come from the run.
template <class E, class Make>
void expect_at_run(Make&& make, const std::string& part, const std::string& node) {
  FreshGraph fresh;
  Output out;
  try {
    out = make();
  } catch (const std::exception& e) {
    FAIL_CHECK("error while building, TensorFlow builds it and fails at run time with: "
               << part << "; symflow: " << std::string(e.what()));
    return;
  }
  tf::Session sess;
  expect<E>([&] { (void)sess.run(out); }, part, node);
}

}  // namespace

TEST_CASE("core/bad_inputs: shapes that do not fit an op are a ValueError naming the node") {
  FreshGraph fresh;
  SUBCASE("matmul inner dimensions") {
    expect<tf::ValueError>(
        [] {
          tf::matmul(ones({2, 3}), ones({4, 5}), false, false, "mm");
        },
        "Dimensions must be equal, but are 3 and 4", "mm");
  }
  SUBCASE("matmul of a vector") {
    expect<tf::ValueError>(
        [] {
          tf::matmul(ones({3}), ones({3, 2}), false, false, "mm");
        },
        "Shape must be rank 2 but is rank 1", "mm");
  }
  SUBCASE("add of shapes that do not broadcast") {
    expect<tf::ValueError>(
        [] {
          tf::add(ones({2, 3}), ones({4}), "sum");
        },
        "Dimensions must be equal, but are 3 and 4", "sum");
  }
  SUBCASE("concat of different ranks") {
    expect<tf::ValueError>(
        [] {
          tf::concat({ones({2, 3}), ones({2})}, 0, "cat");
        },
        "Shape must be rank 2 but is rank 1", "cat");
  }
  SUBCASE("concat of different sizes off the axis") {
    expect<tf::ValueError>(
        [] {
          tf::concat({ones({2, 3}), ones({2, 4})}, 0, "cat");
        },
        "Dimension 0 in both shapes must be equal, but are 3 and 4. Shapes are [3] and [4].",
        "cat");
  }
  SUBCASE("concat axis out of range") {
    expect<tf::ValueError>(
        [] {
          tf::concat({ones({2, 3}), ones({2, 3})}, 2, "cat");
        },
        "Shape must be at least rank 3 but is rank 2", "cat");
  }
  SUBCASE("reshape to another number of elements") {
    expect<tf::ValueError>(
        [] {
          tf::reshape(ones({2, 3}), {4}, "r");
        },
        "Cannot reshape a tensor with 6 elements to shape [4] (4 elements)", "r");
  }
  SUBCASE("reshape with -1 that does not divide") {
    expect<tf::ValueError>(
        [] {
          tf::reshape(ones({2, 3}), {-1, 4}, "r");
        },
        "Dimension size must be evenly divisible by 4 but is 6", "r");
  }
  SUBCASE("transpose perm of the wrong length") {
    expect<tf::ValueError>(
        [] {
          tf::transpose(ones({2, 3}), {0}, "t");
        },
        "Dimension must be 2 but is 1", "t");
  }
  SUBCASE("transpose perm out of range") {
    expect<tf::ValueError>(
        [] {
          tf::transpose(ones({2, 3}), {0, 2}, "t");
        },
        "perm dim 2 is out of range of input rank 2", "t");
  }
  SUBCASE("reduce_sum axis out of range") {
    expect<tf::ValueError>(
        [] {
          tf::reduce_sum(ones({2, 3}), 2, false, "s");
        },
        "Invalid reduction dimension 2 for input with 2 dimensions.", "s");
  }
  SUBCASE("reduce_mean negative axis out of range") {
    expect<tf::ValueError>(
        [] {
          tf::reduce_mean(ones({2, 3}), -3, false, "m");
        },
        "Invalid reduction dimension -3 for input with 2 dimensions.", "m");
  }
  SUBCASE("reduce_max with one axis of a list out of range") {
    expect<tf::ValueError>(
        [] {
          tf::reduce_max(ones({2, 3}), {0, 5}, false, "m");
        },
        "Invalid reduction dimension 5 for input with 2 dimensions.", "m");
  }
  SUBCASE("argmax axis out of range") {
    expect<tf::ValueError>(
        [] {
          tf::argmax(ones({2, 3}), 2, DType::int64, "am");
        },
        "Dimension (2) must be in the range [-2, 2), where 2 is the number "
        "of dimensions in the input.",
        "am");
  }
  SUBCASE("gather axis out of range") {
    expect<tf::ValueError>(
        [] {
          tf::gather(ones({2, 3}), int32s({0}), 2, "g");
        },
        "Shape must be at least rank 3 but is rank 2", "g");
  }
  SUBCASE("slice begin of the wrong length") {
    expect<tf::ValueError>(
        [] {
          tf::slice(ones({2, 3}), {0}, {1}, "sl");
        },
        "Shape must be rank 1 but is rank 2", "sl");
  }
  SUBCASE("strided_slice index out of bounds") {
    expect<tf::ValueError>(
        [] { tf::strided_slice(ones({3}), {5}, {6}, {1}, {.shrink_axis_mask = 1, .name = "ss"}); },
        "slice index 5 of dimension 0 out of bounds.", "ss");
  }
  SUBCASE("strided_slice stride 0") {
    expect<tf::ValueError>([] { tf::strided_slice(ones({3}), {0}, {3}, {0}, {.name = "ss"}); },
                           "strides[0] must be non-zero", "ss");
  }
  SUBCASE("squeeze of a dimension that is not 1") {
    expect<tf::ValueError>(
        [] {
          tf::squeeze(ones({2, 1}), {0}, "sq");
        },
        "Can not squeeze dim[0], expected a dimension of 1, got 2", "sq");
  }
  SUBCASE("stack of different shapes") {
    expect<tf::ValueError>(
        [] {
          tf::stack({ones({2}), ones({3})}, 0, "st");
        },
        "Dimension 0 in both shapes must be equal, but are 2 and 3. Shapes are [2] and [3].");
  }
  SUBCASE("unstack of an unknown shape") {
    expect<tf::ValueError>(
        [] { tf::unstack(tf::placeholder(DType::float32, tf::Shape::unknown(), "x")); },
        "Cannot infer argument `num` from shape <unknown>");
  }
  SUBCASE("tile multiples of the wrong length") {
    expect<tf::ValueError>(
        [] {
          tf::tile(ones({2, 3}), int32s({2}, "m"), "tl");
        },
        "Shape must be rank 2 but is rank 1", "tl");
  }
  SUBCASE("pad paddings of rank 1") {
    expect<tf::ValueError>(
        [] {
          tf::pad(ones({2, 3}), {1, 1}, "p");
        },
        "Shape must be rank 2 but is rank 1", "p");
  }
  SUBCASE("pad paddings with one row for a matrix") {
    expect<tf::ValueError>(
        [] {
          tf::pad(ones({2, 3}), {{1, 1}}, "p");
        },
        "Shape must be rank 1 but is rank 2", "p");
  }
  SUBCASE("pad paddings negative") {
    expect<tf::ValueError>(
        [] {
          tf::pad(ones({2, 3}), {{-1, 0}, {0, 0}}, "p");
        },
        "Paddings must be non-negative", "p");
  }
  SUBCASE("split sizes that do not add up") {
    expect<tf::ValueError>(
        [] {
          tf::split(ones({5}), tf::Dims{2, 2}, 0, "sp");
        },
        "can't split axis of size 5 into pieces of size [2,2]", "sp");
  }
  SUBCASE("split axis out of range") {
    expect<tf::ValueError>([] { tf::split(ones({4}), 2, 1, "sp"); },
                           "Dimension size, given by scalar input 1 must be in range [-1, 1)",
                           "sp");
  }
  SUBCASE("one_hot depth negative") {
    expect<tf::ValueError>(
        [] {
          tf::one_hot(int32s({0, 1}), -1, {.name = "oh"});
        },
        "Dimension size, given by scalar input 1, must be non-negative but is -1", "oh");
  }
  SUBCASE("top_k with k larger than the last dimension") {
    expect<tf::ValueError>(
        [] {
          tf::nn::top_k(ones({2, 3}), 4, true, "tk");
        },
        "input must have last dimension >= k = 4 but is 3", "tk");
  }
  SUBCASE("top_k with k negative") {
    expect<tf::ValueError>(
        [] {
          tf::nn::top_k(ones({2, 3}), -1, true, "tk");
        },
        "Dimension size, given by scalar input 1, must be non-negative but is -1", "tk");
  }
  SUBCASE("softmax of a scalar") {
    expect<tf::ValueError>([] { tf::nn::softmax(tf::constant(Value(1.0f)), "sm"); },
                           "Shape must be at least rank 1 but is rank 0", "sm");
  }
  SUBCASE("bias_add with a bias of another size") {
    expect<tf::ValueError>(
        [] {
          tf::nn::bias_add(ones({2, 3}), ones({4}), "ba");
        },
        "Dimensions must be equal, but are 3 and 4", "ba");
  }
  SUBCASE("softmax_cross_entropy_with_logits_v2 of other shapes") {
    expect<tf::ValueError>(
        [] {
          tf::nn::softmax_cross_entropy_with_logits_v2(ones({2, 4}), ones({2, 3}), -1, "xent");
        },
        "Dimensions must be equal, but are 3 and 4", "xent");
  }
  SUBCASE("sparse_softmax_cross_entropy_with_logits labels of the logits' rank") {
    expect<tf::ValueError>(
        [] {
          tf::nn::sparse_softmax_cross_entropy_with_logits(
              tf::constant(Value::filled<std::int32_t>({2, 2}, 0)), ones({2, 3}), "xent");
        },
        "`labels.shape.rank` must equal `logits.shape.rank - 1`. Received: labels.shape=(2, 2) "
        "of rank 2 and logits.shape=(2, 3) of rank 2");
  }
  SUBCASE("boolean_mask of another rank") {
    expect<tf::ValueError>(
        [] {
          tf::boolean_mask(ones({2}), tf::constant(Value::from_vector<bool>({true, false}, {1, 2})),
                           "bm");
        },
        "Shapes (2,) and (1, 2) are incompatible");
  }
  SUBCASE("boolean_mask with a mask past the tensor's last dimension") {
    expect<tf::ValueError>(
        [] {
          tf::boolean_mask(ones({2, 3}), tf::constant(Value::filled<bool>({3, 3}, true)), "bm", 1);
        },
        "Shapes (3,) and (3, 3) are incompatible");
  }
  SUBCASE("range with delta 0") {
    expect<tf::ValueError>([] { tf::range(0, 5, 0); }, "Requires delta != 0");
  }
  SUBCASE("range from 5 up to 1") {
    expect<tf::ValueError>([] { tf::range(5, 1, 1); },
                           "Requires start <= limit when delta > 0: 5/1");
  }
}

TEST_CASE("core/bad_inputs: convolution and pooling attrs are checked as TensorFlow does") {
  FreshGraph fresh;
  SUBCASE("conv2d strides of length 3") {
    expect<tf::ValueError>(
        [] {
          tf::nn::conv2d(ones({1, 4, 4, 1}), ones({2, 2, 1, 1}), {1, 1, 1}, "SAME");
        },
        "strides should be of length 1, 2 or 4. Received: strides=[1, 1, 1] of length 3");
  }
  SUBCASE("conv2d filter depth that does not divide the input's") {
    expect<tf::ValueError>(
        [] {
          tf::nn::conv2d(ones({1, 4, 4, 3}), ones({2, 2, 4, 1}), {1, 1, 1, 1}, "SAME",
                         {.name = "conv"});
        },
        "Depth of input (3) is not a multiple of input depth of filter (4)", "conv");
  }
  SUBCASE("conv2d of a rank-3 input") {
    expect<tf::ValueError>(
        [] {
          tf::nn::conv2d(ones({4, 4, 1}), ones({2, 2, 1, 1}), {1, 1, 1, 1}, "SAME",
                         {.name = "conv"});
        },
        "Shape must be rank 4 but is rank 3", "conv");
  }
  SUBCASE("conv2d VALID with a filter larger than the input") {
    expect<tf::ValueError>(
        [] {
          tf::nn::conv2d(ones({1, 2, 2, 1}), ones({3, 3, 1, 1}), {1, 1, 1, 1}, "VALID",
                         {.name = "conv"});
        },
        "Negative dimension size caused by subtracting 3 from 2", "conv");
  }
  SUBCASE("max_pool ksize of length 3") {
    expect<tf::ValueError>(
        [] {
          tf::nn::max_pool(ones({1, 4, 4, 1}), {1, 2, 2}, {1, 1, 1, 1}, "SAME");
        },
        "ksize should be of length 1, 2 or 4. Received: ksize=[1, 2, 2] of length 3");
  }
  SUBCASE("max_pool VALID with a window larger than the input") {
    expect<tf::ValueError>(
        [] {
          tf::nn::max_pool(ones({1, 2, 2, 1}), {1, 3, 3, 1}, {1, 1, 1, 1}, "VALID", "pool");
        },
        "Negative dimension size caused by subtracting 3 from 2", "pool");
  }
  SUBCASE("max_pool ksize 0") {
    expect<tf::ValueError>(
        [] {
          tf::nn::max_pool(ones({1, 4, 4, 1}), {1, 0, 2, 1}, {1, 1, 1, 1}, "VALID");
        },
        "`ksize` cannot be zero. Received: ksize=[1, 0, 2, 1]");
  }
  SUBCASE("avg_pool padding in lower case") {
    expect<tf::ValueError>(
        [] {
          tf::nn::avg_pool(ones({1, 4, 4, 1}), {1, 2, 2, 1}, {1, 1, 1, 1}, "same");
        },
        "Attr 'padding' of 'AvgPool' Op passed string 'same' not in: \"SAME\", \"VALID\".");
  }
  SUBCASE("conv2d strides in the batch dimension fail at run time") {
    expect_at_run<tf::UnimplementedError>(
        [] {
          return tf::nn::conv2d(ones({1, 4, 4, 1}), ones({2, 2, 1, 1}), {2, 1, 1, 1}, "SAME",
                                {.name = "conv"});
        },
        "Current implementation does not yet support strides in the batch and depth "
        "dimensions.",
        "conv");
  }
  SUBCASE("max_pool over the batch dimension fails at run time") {
    expect_at_run<tf::UnimplementedError>(
        [] {
          return tf::nn::max_pool(ones({1, 4, 4, 2}), {2, 2, 2, 1}, {1, 1, 1, 1}, "VALID", "pool");
        },
        "Pooling is not yet supported on the batch dimension.", "pool");
  }
}

TEST_CASE("core/bad_inputs: wrong element types are a TypeError") {
  FreshGraph fresh;
  SUBCASE("matmul of float32 and int32") {
    expect<tf::TypeError>(
        [] {
          tf::matmul(ones({2, 2}), tf::constant(Value::filled<std::int32_t>({2, 2}, 1)));
        },
        "Input 'b' of 'MatMul' Op has type int32 that does not match type float32 of argument "
        "'a'.");
  }
  SUBCASE("concat of float32 and int32") {
    expect<tf::TypeError>(
        [] {
          tf::concat({ones({2, 3}), tf::constant(Value::filled<std::int32_t>({2, 3}, 1))}, 0);
        },
        "Tensors in list passed to 'values' of 'ConcatV2' Op have types [float32, int32] that "
        "don't all match.");
  }
  SUBCASE("gather with float indices") {
    expect<tf::TypeError>(
        [] { tf::gather(ones({3}), tf::constant(Value({0.0f}))); },
        "Value passed to parameter 'indices' has DataType float32 not in list of allowed "
        "values: int16, int32, int64");
  }
  SUBCASE("one_hot with float indices") {
    expect<tf::TypeError>(
        [] {
          tf::one_hot(tf::constant(Value({0.0f, 1.0f})), 3);
        },
        "Value passed to parameter 'indices' has DataType float32 not in list of allowed "
        "values: uint8, int8, int32, int64");
  }
  SUBCASE("softmax of int32") {
    expect<tf::TypeError>(
        [] {
          tf::nn::softmax(int32s({1, 2}));
        },
        // TensorFlow's list goes on with float16 and bfloat16, which symflow lacks.
        "Value passed to parameter 'logits' has DataType int32 not in list of allowed values: ");
  }
}

TEST_CASE("core/bad_inputs: values checked at run time are an OpError naming the node") {
  SUBCASE("reshape of a fed tensor to another number of elements") {
    FreshGraph fresh;
    auto x = tf::placeholder(DType::float32, tf::Shape::unknown(), "x");
    auto r = tf::reshape(x, {4}, "r");
    tf::Session sess;
    expect<tf::InvalidArgumentError>(
        [&] {
          sess.run(r, {{x, Value::filled<float>({2, 3}, 1.0f)}});
        },
        "Input to reshape is a tensor with 6 values, but the requested shape has 4", "r");
  }
  SUBCASE("gather index past the end") {
    expect_at_run<tf::InvalidArgumentError>(
        [] {
          return tf::gather(tf::constant(Value({1.0f, 2.0f, 3.0f})), int32s({0, 5}), 0, "g");
        },
        "indices[1] = 5 is not in [0, 3)", "g");
  }
  SUBCASE("gather index negative") {
    expect_at_run<tf::InvalidArgumentError>(
        [] {
          return tf::gather(tf::constant(Value({1.0f, 2.0f, 3.0f})), int32s({-1}), 0, "g");
        },
        "indices[0] = -1 is not in [0, 3)", "g");
  }
  SUBCASE("slice size past the end") {
    expect_at_run<tf::InvalidArgumentError>(
        [] {
          return tf::slice(ones({2, 3}), {0, 0}, {3, 3}, "sl");
        },
        "Expected size[0] in [0, 2], but got 3", "sl");
  }
  SUBCASE("slice begin negative") {
    expect_at_run<tf::InvalidArgumentError>(
        [] {
          return tf::slice(ones({2, 3}), {-1, 0}, {1, 1}, "sl");
        },
        "Expected begin[0] in [0, 2], but got -1", "sl");
  }
  SUBCASE("slice of a fed tensor shorter than the slice") {
    FreshGraph fresh;
    auto x = tf::placeholder(DType::float32, tf::Shape::unknown(), "x");
    auto s = tf::slice(x, {1}, {3}, "sl");
    tf::Session sess;
    expect<tf::InvalidArgumentError>(
        [&] {
          sess.run(s, {{x, Value({1.0f, 2.0f})}});
        },
        "Expected size[0] in [0, 1], but got 3", "sl");
  }
  SUBCASE("transpose perm with a repeated axis") {
    expect_at_run<tf::InvalidArgumentError>(
        [] {
          return tf::transpose(ones({2, 3}), {1, 1}, "t");
        },
        "0 is missing from {1,1}.", "t");
  }
  SUBCASE("tile multiples negative") {
    expect_at_run<tf::InvalidArgumentError>([] { return tf::tile(ones({2}), int32s({-1}), "tl"); },
                                            "Expected multiples[0] >= 0, but got -1", "tl");
  }
  SUBCASE("one_hot with a fed negative depth") {
    FreshGraph fresh;
    auto depth = tf::placeholder(DType::int32, tf::Shape{}, "d");
    auto oh = tf::one_hot(int32s({0, 1}), depth, {.name = "oh"});
    tf::Session sess;
    expect<tf::InvalidArgumentError>(
        [&] {
          sess.run(oh, {{depth, Value(std::int32_t{-1})}});
        },
        "depth must be non-negative, got: -1", "oh");
  }
  SUBCASE("fill with a fed negative dimension") {
    FreshGraph fresh;
    auto dims = tf::placeholder(DType::int32, tf::Shape{2}, "d");
    auto f = tf::fill(dims, tf::constant(Value(1.0f)), "f");
    tf::Session sess;
    expect<tf::InvalidArgumentError>(
        [&] {
          sess.run(f, {{dims, Value::from_vector<std::int32_t>({-1, 2}, {2})}});
        },
        "Dimension -1 must be >= 0", "f");
  }
  SUBCASE("matmul of fed matrices whose inner dimensions differ") {
    FreshGraph fresh;
    auto a = tf::placeholder(DType::float32, tf::Shape::unknown(), "a");
    auto b = tf::placeholder(DType::float32, tf::Shape::unknown(), "b");
    auto mm = tf::matmul(a, b, false, false, "mm");
    tf::Session sess;
    expect<tf::InvalidArgumentError>(
        [&] {
          sess.run(mm, {{a, Value::filled<float>({2, 3}, 1.0f)},
                        {b, Value::filled<float>({4, 5}, 1.0f)}});
        },
        "Matrix size-incompatible: In[0]: [2,3], In[1]: [4,5]", "mm");
  }
  SUBCASE("add of fed tensors that do not broadcast") {
    FreshGraph fresh;
    auto a = tf::placeholder(DType::float32, tf::Shape::unknown(), "a");
    auto b = tf::placeholder(DType::float32, tf::Shape::unknown(), "b");
    auto sum = tf::add(a, b, "sum");
    tf::Session sess;
    expect<tf::InvalidArgumentError>(
        [&] {
          sess.run(sum,
                   {{a, Value::filled<float>({2, 3}, 1.0f)}, {b, Value::filled<float>({4}, 1.0f)}});
        },
        "Incompatible shapes: [2,3] vs. [4]", "sum");
  }
  SUBCASE("cumsum axis out of range") {
    expect_at_run<tf::InvalidArgumentError>(
        [] {
          return tf::cumsum(ones({2, 3}), 2, false, false, "cs");
        },
        "ScanOp: Expected scan axis in the range [-2, 2), but got 2", "cs");
  }
  SUBCASE("assert_equal that does not hold") {
    FreshGraph fresh;
    auto a = tf::placeholder(DType::int32, tf::Shape{2}, "a");
    auto check = tf::debugging::assert_equal(a, int32s({1, 2}), {.name = "check"});
    tf::Session sess;
    expect<tf::InvalidArgumentError>(
        [&] {
          sess.run(std::vector<tf::Fetch>{tf::Fetch(check)},
                   {{a, Value::from_vector<std::int32_t>({1, 3}, {2})}});
        },
        "Condition x == y did not hold element-wise:");
  }
  SUBCASE("integer floordiv by zero") {
    expect_at_run<tf::InvalidArgumentError>(
        [] { return tf::floordiv(int32s({7}), int32s({0}), "fd"); }, "Integer division by zero",
        "fd");
  }
  SUBCASE("integer floormod by zero") {
    expect_at_run<tf::InvalidArgumentError>(
        [] { return tf::floormod(int32s({7}), int32s({0}), "fm"); }, "Integer division by zero",
        "fm");
  }
}

TEST_CASE("core/bad_inputs: the client's feeds and fetches") {
  FreshGraph fresh;
  auto x = tf::placeholder(DType::float32, tf::Shape{-1, 3}, "x");
  auto y = tf::identity(x, "y");
  tf::Session sess;
  SUBCASE("a placeholder not fed") {
    expect<tf::InvalidArgumentError>(
        [&] { sess.run(y); },
        "You must feed a value for placeholder tensor 'x' with dtype float and shape [?,3]", "x");
  }
  SUBCASE("a fetch of a tensor that does not exist") {
    expect<tf::ValueError>([&] { sess.run("nope:0"); },
                           "The name 'nope:0' refers to a Tensor which does not exist. The "
                           "operation, 'nope', does not exist in the graph.");
  }
  SUBCASE("a fetch of a placeholder by its operation's name, not fed") {
    expect<tf::InvalidArgumentError>(
        [&] { sess.run("x"); },
        "You must feed a value for placeholder tensor 'x' with dtype float and shape [?,3]", "x");
  }
  SUBCASE("a float fed to a bool placeholder is true where it is not zero") {
    auto flag = tf::placeholder(DType::bool_, tf::Shape{2}, "flag");
    CHECK(sess.run(flag, {{flag, Value({1.5f, 0.0f})}}) ==
          Value::from_vector<bool>({true, false}, {2}));
  }
  SUBCASE("an int feed too large for int32") {
    auto i = tf::placeholder(DType::int32, tf::Shape{}, "i");
    expect<tf::TypeError>(
        [&] {
          sess.run(i, {{i, Value(std::int64_t{1} << 40)}});
        },
        "Type of feed value 1099511627776");
  }
  SUBCASE("a tensor that does not exist") {
    expect<tf::KeyError>([&] { fresh.g.get_tensor_by_name("nope:0"); },
                         "The name 'nope:0' refers to a Tensor which does not exist. The "
                         "operation, 'nope', does not exist in the graph.");
  }
  SUBCASE("an operation's name given for a tensor") {
    expect<tf::ValueError>([&] { fresh.g.get_tensor_by_name("y"); },
                           "The name 'y' refers to an Operation, not a Tensor. Tensor names must "
                           "be of the form \"<op_name>:<output_index>\".");
  }
  SUBCASE("an output index the operation lacks") {
    expect<tf::KeyError>([&] { fresh.g.get_tensor_by_name("y:1"); },
                         "The name 'y:1' refers to a Tensor which does not exist. The "
                         "operation, 'y', exists but only has 1 outputs.");
  }
  SUBCASE("an operation that does not exist") {
    expect<tf::KeyError>([&] { fresh.g.get_operation_by_name("nope"); },
                         "The name 'nope' refers to an Operation not in the graph.");
  }
}

TEST_CASE("core/bad_inputs: variables, checkpoints and files") {
  FreshGraph fresh;
  SUBCASE("a variable read before it is initialised") {
    tf::Variable v(Value::filled<float>({2}, 1.0f), {.name = "v"});
    auto plus = v + 1.0f;
    tf::Session sess;
    // TensorFlow 2's resource variables say "Could not find variable v"; both name it.
    expect<tf::FailedPreconditionError>([&] { sess.run(plus); }, "uninitialized");
    expect<tf::FailedPreconditionError>([&] { sess.run(plus); }, " v");
  }
  SUBCASE("get_variable without a shape or an initializer") {
    expect<tf::ValueError>(
        [] { tf::get_variable("v"); },
        "Variable v did not get an initializer, so its `shape` argument must be specified.");
  }
  SUBCASE("get_variable of an existing name") {
    tf::get_variable("v", {2});
    expect<tf::ValueError>([] { tf::get_variable("v", {2}); },
                           "Variable v already exists, disallowed. Did you mean to set "
                           "reuse=True or reuse=tf.AUTO_REUSE in VarScope?");
  }
  SUBCASE("get_variable reusing a variable that does not exist") {
    tf::variable_scope scope("s", true);
    expect<tf::ValueError>([] { tf::get_variable("v", {2}); },
                           "Variable s/v does not exist, or was not created with "
                           "tf.get_variable(). Did you mean to set reuse=tf.AUTO_REUSE in "
                           "VarScope?");
  }
  SUBCASE("assign of another shape") {
    tf::Variable v(Value::filled<float>({2}, 1.0f), {.name = "v"});
    // TensorFlow 1.x: "Shapes (2,) and (3,) are incompatible"; 2.x words it longer.
    expect<tf::ValueError>([&] { tf::assign(v, ones({3})); }, "(2,)");
    expect<tf::ValueError>([&] { tf::assign(v, ones({3})); }, "(3,) are incompatible");
  }
  SUBCASE("Saver restore of a checkpoint that does not exist") {
    tf::Variable v(Value(1.0f), {.name = "v"});
    tf::train::Saver saver;
    tf::Session sess;
    const std::string path =
        (std::filesystem::temp_directory_path() / "symflow_bad_inputs_nothere" / "model.ckpt")
            .string();
    expect<tf::ValueError>([&] { saver.restore(sess, path); },
                           "The passed save_path is not a valid checkpoint: " + path);
  }
  SUBCASE("Saver of a graph without variables") {
    expect<tf::ValueError>([] { tf::train::Saver saver; }, "No variables to save");
  }
  SUBCASE("reading a GraphDef file that does not exist") {
    const std::string path =
        (std::filesystem::temp_directory_path() / "symflow_bad_inputs_missing.pb").string();
    expect<tf::NotFoundError>([&] { tf::read_graph(path); }, path + "; No such file or directory");
  }
}

TEST_CASE("core/bad_inputs: arithmetic TensorFlow defines instead of failing") {
  FreshGraph fresh;
  tf::Session sess;
  SUBCASE("float division by zero is inf, -inf and nan") {
    const Value q = sess.run(tf::divide(tf::constant(Value({1.0f, -1.0f, 0.0f})),
                                        tf::constant(Value({0.0f, 0.0f, 0.0f}))));
    const std::vector<float> v = q.to_vector<float>();
    CHECK(v[0] == std::numeric_limits<float>::infinity());
    CHECK(v[1] == -std::numeric_limits<float>::infinity());
    CHECK(std::isnan(v[2]));
  }
  SUBCASE("NaN and infinities cast to int32 are INT32_MIN, 3.7 is 3") {
    const float inf = std::numeric_limits<float>::infinity();
    const Value c = sess.run(
        tf::cast(tf::constant(Value({std::numeric_limits<float>::quiet_NaN(), inf, -inf, 3.7f})),
                 DType::int32));
    const std::int32_t lowest = std::numeric_limits<std::int32_t>::min();
    CHECK(c.to_vector<std::int32_t>() == std::vector<std::int32_t>{lowest, lowest, lowest, 3});
  }
  SUBCASE("NaN cast to bool is true") {
    const Value c = sess.run(tf::cast(
        tf::constant(Value({std::numeric_limits<float>::quiet_NaN(), 0.0f})), DType::bool_));
    CHECK(c == Value::from_vector<bool>({true, false}, {2}));
  }
  SUBCASE("sqrt(-1) is nan and log(0) is -inf") {
    CHECK(std::isnan(sess.run(tf::sqrt(tf::constant(Value({-1.0f})))).to_vector<float>()[0]));
    CHECK(sess.run(tf::log(tf::constant(Value({0.0f})))).to_vector<float>()[0] ==
          -std::numeric_limits<float>::infinity());
  }
}

}  // namespace symflow_test_core_bad_inputs_test
