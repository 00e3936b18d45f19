// Elementwise kernels write their output over an input whose buffer nobody else holds
// (KernelContext::forward_input_or_allocate_output): the executor's last reader of a
// tensor lends it, and nothing the user, the graph or a variable still holds is ever
// written.

#include <doctest/doctest.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <symflow/backend/cpu/cpu_backend.hpp>
#include <symflow/backend/kernel_context.hpp>
#include <symflow/ops/registry.hpp>
#include <symflow/symflow.hpp>

namespace symflow_test_backend_input_forwarding_test {

namespace tf = symflow;
using tf::Value;

// Runs the CPU kernel of `type` on `inputs`, lent to it as forwardable when `lend`.
Value run_kernel(std::string_view type, std::vector<Value>& inputs, bool lend,
                 const tf::AttrMap& attrs = {}) {
  const tf::OpDef* def = tf::find_op_def(type);
  REQUIRE(def != nullptr);
  const std::string name(type);
  std::vector<Value> outputs(1);
  tf::KernelContext::Session s;
  if (lend) s.forwardable_inputs = inputs;
  tf::KernelContext ctx(name, attrs, inputs, outputs, s);
  tf::cpu::backend().kernel (*def)(ctx);
  return outputs[0];
}

TEST_CASE("forwarding: Add and Relu write over an input held by the kernel alone") {
  std::vector<Value> in{Value::from_vector<float>({1, -2, 3}, {3}), Value(10.0f)};
  const void* a = in[0].raw_data();
  Value sum = run_kernel("Add", in, true);
  CHECK(sum.raw_data() == a);
  CHECK(sum == Value::from_vector<float>({11, 8, 13}, {3}));
  CHECK(in[0].is_none());  // taken
  CHECK(!in[1].is_none());

  // The second operand is taken when the first cannot be (a scalar broadcast).
  std::vector<Value> swapped{Value(10.0f), Value::from_vector<float>({1, -2, 3}, {3})};
  const void* b = swapped[1].raw_data();
  Value sum2 = run_kernel("Sub", swapped, true);
  CHECK(sum2.raw_data() == b);
  CHECK(sum2 == Value::from_vector<float>({9, 12, 7}, {3}));

  std::vector<Value> one{Value::from_vector<float>({-1, 2, -3, 4}, {2, 2})};
  const void* r = one[0].raw_data();
  Value relu = run_kernel("Relu", one, true);
  CHECK(relu.raw_data() == r);
  CHECK(relu == Value::from_vector<float>({0, 2, 0, 4}, {2, 2}));
}

TEST_CASE("forwarding: BiasAdd adds the bias in the value's own buffer, in either layout") {
  for (const char* format : {"NHWC", "NCHW"}) {
    CAPTURE(format);
    // Rank 2: channels on axis 1 in both layouts, each NCHW plane one element.
    const tf::AttrMap attrs{{"data_format", std::string(format)}};
    std::vector<Value> in{Value::from_vector<float>({1, 2, 3, 4, 5, 6}, {2, 3}),
                          Value::from_vector<float>({10, 20, 30}, {3})};
    const void* a = in[0].raw_data();
    const Value out = run_kernel("BiasAdd", in, true, attrs);
    CHECK(out.raw_data() == a);
    CHECK(in[0].is_none());
    CHECK(out == Value::from_vector<float>({11, 22, 33, 14, 25, 36}, {2, 3}));

    std::vector<Value> ints{Value::from_vector<std::int32_t>({1, 2, 3, 4, 5, 6}, {2, 3}),
                            Value::from_vector<std::int32_t>({10, 20, 30}, {3})};
    const Value kept = ints[0];  // another owner: a new buffer
    const Value sum = run_kernel("BiasAdd", ints, true, attrs);
    CHECK(!sum.shares_buffer_with(kept));
    CHECK(kept == Value::from_vector<std::int32_t>({1, 2, 3, 4, 5, 6}, {2, 3}));
    CHECK(sum == Value::from_vector<std::int32_t>({11, 22, 33, 14, 25, 36}, {2, 3}));
  }
}

TEST_CASE("forwarding: a buffer with another owner, another dtype or shape is not taken") {
  SUBCASE("another owner") {
    const Value kept = Value::from_vector<float>({1, 2, 3}, {3});
    std::vector<Value> in{kept, Value(1.0f)};
    const Value out = run_kernel("Add", in, true);
    CHECK(!out.shares_buffer_with(kept));
    CHECK(kept == Value::from_vector<float>({1, 2, 3}, {3}));
    CHECK(out == Value::from_vector<float>({2, 3, 4}, {3}));
  }
  SUBCASE("another dtype: Equal's bool output") {
    std::vector<Value> in{Value::from_vector<float>({1, 2}, {2}), Value(2.0f)};
    const void* a = in[0].raw_data();
    const Value out = run_kernel("Equal", in, true);
    CHECK(out.raw_data() != a);
    CHECK(out == Value::from_vector<bool>({false, true}, {2}));
  }
  SUBCASE("a broadcast output larger than either input") {
    std::vector<Value> in{Value::from_vector<float>({1, 2}, {2, 1}),
                          Value::from_vector<float>({10, 20}, {1, 2})};
    const void* a = in[0].raw_data();
    const void* b = in[1].raw_data();
    const Value out = run_kernel("Add", in, true);
    CHECK(out.raw_data() != a);
    CHECK(out.raw_data() != b);
    CHECK(out == Value::from_vector<float>({11, 21, 12, 22}, {2, 2}));
  }
  SUBCASE("inputs not lent") {
    std::vector<Value> in{Value::from_vector<float>({1, 2, 3}, {3}), Value(1.0f)};
    const void* a = in[0].raw_data();
    const Value out = run_kernel("Add", in, false);
    CHECK(out.raw_data() != a);
    CHECK(in[0] == Value::from_vector<float>({1, 2, 3}, {3}));
  }
  SUBCASE("a buffer not aligned as a new one (a view past its start)") {
    auto block = std::make_shared<std::vector<float>>(std::vector<float>{0, 1, 2, 3, 4});
    std::vector<Value> in{Value::wrap(tf::DType::float32, {4}, block->data() + 1, block),
                          Value(1.0f)};
    block.reset();
    const Value out = run_kernel("Add", in, true);
    CHECK(out == Value::from_vector<float>({2, 3, 4, 5}, {4}));
    CHECK(out.raw_data() != in[0].raw_data());
  }
}

TEST_CASE("forwarding: a Session never writes over a feed, a fetch, a Const or a variable") {
  tf::Graph g;
  auto guard = g.as_default();
  auto x = tf::placeholder<float>(tf::Shape{3}, "x");
  auto c = tf::constant({1.0f, 2.0f, 3.0f});
  auto v = tf::Variable(tf::constant({5.0f, 6.0f, 7.0f}), {.name = "v"});
  tf::Tensor<float> y = x + 1.0f;                // fetched: kept
  tf::Tensor<float> z = tf::nn::relu(y * 2.0f);  // y's last reader is inside
  tf::Tensor<float> w = (c + 1.0f) + (tf::Tensor<float>(v) + 1.0f);
  tf::ConfigProto config;
  config.graph_options.optimizer_options.do_fusion = false;  // kernels one by one
  tf::Session sess(g, config);
  sess.run(tf::global_variables_initializer());
  const Value fed = Value::from_vector<float>({-1, 0, 1}, {3});
  const Value fed_copy = fed.clone();
  for (int run = 0; run < 3; ++run) {
    const auto out = sess.run({y, z, w}, {{x, fed}});
    CHECK(fed == fed_copy);
    CHECK(out[0] == Value::from_vector<float>({0, 1, 2}, {3}));
    CHECK(out[1] == Value::from_vector<float>({0, 2, 4}, {3}));
    CHECK(out[2] == Value::from_vector<float>({8, 10, 12}, {3}));
  }
  CHECK(sess.run(c) == Value::from_vector<float>({1, 2, 3}, {3}));
  CHECK(sess.run(tf::Tensor<float>(v)) == Value::from_vector<float>({5, 6, 7}, {3}));
}

}  // namespace symflow_test_backend_input_forwarding_test
