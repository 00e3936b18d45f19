// Gradients of the TensorArray ops (TensorFlow's tensor_array_grad.py): a read's gradient is
// written into the gradient array, a write's is read from it, gather and scatter, concat
// and split are each other's gradients. Checked against central differences in float64,
// and against the graph and values tf.gradients gives in TensorFlow 2.21 (tf.compat.v1
// graph mode, control flow v1). Loops are not covered here.

#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <vector>

#include <symflow/ops/registry.hpp>
#include <symflow/symflow.hpp>
#include <symflow/train/gradients.hpp>

#include "../gradient_check.hpp"

namespace symflow_test_ops_tensor_array_grad_test {

using namespace symflow;
using namespace symflow::test;

// Distinct float64 values of `dims`.
Value sample(const Dims& dims) {
  std::vector<double> v(static_cast<std::size_t>(num_elements(dims)));
  for (std::size_t i = 0; i < v.size(); ++i)
    v[i] = 0.5 + 0.25 * static_cast<double>(i) - 0.07 * static_cast<double>(i * i % 5);
  return Value::from_vector(v, dims);
}

// The names of the nodes made since node `first` that belong to a TensorArray, "name:type".
std::vector<std::string> tensor_array_nodes_since(const Graph& g, std::size_t first) {
  std::vector<std::string> out;
  const auto ops = g.get_operations();
  for (std::size_t i = first; i < ops.size(); ++i)
    if (ops[i].name().find("TensorArray") != std::string::npos)
      out.push_back(ops[i].name() + ":" + ops[i].type());
  return out;
}

// ---- numerical checks -----------------------------------------------------------------

TEST_CASE("tensor_array_grad: unstack, then reads (one index twice, one never)") {
  check_gradients(
      [](const std::vector<Output>& x) {
        TensorArray ta = TensorArray(float64, {.size = 3, .clear_after_read = false}).unstack(x[0]);
        return ta.read(0) * 2.0 + ta.read(2) * ta.read(0);
      },
      {sample({3, 2})});
}

TEST_CASE("tensor_array_grad: writes, then stack") {
  check_gradients(
      [](const std::vector<Output>& x) {
        return TensorArray(float64, {.size = 2}).write(0, x[0]).write(1, x[1]).stack();
      },
      {sample({3}), sample({3})});
}

TEST_CASE("tensor_array_grad: scatter, then gather (an index gathered twice)") {
  check_gradients(
      [](const std::vector<Output>& x) {
        TensorArray ta =
            TensorArray(float64, {.size = 3, .clear_after_read = false}).scatter(Value{2, 0}, x[0]);
        return ta.gather(Value{0, 2, 0});
      },
      {sample({2, 3})});
}

TEST_CASE("tensor_array_grad: split in uneven pieces, then concat") {
  check_gradients(
      [](const std::vector<Output>& x) {
        Output joined = TensorArray(float64, {.size = 3, .infer_shape = false})
                            .split(x[0], Value{1, 2, 3})
                            .concat();
        joined.set_shape(Shape{6, 2});  // unknown to shape inference, as in TensorFlow
        return joined;
      },
      {sample({6, 2})});
}

// ---- tf.gradients' graph and values ----------------------------------------------------

TEST_CASE("tensor_array_grad: the gradient graph and values TensorFlow builds") {
  Graph g;
  auto guard = g.as_default();
  Output x = constant({{1.f, 2.f}, {3.f, 4.f}, {5.f, 6.f}}, "x");
  TensorArray ta = TensorArray(float32, {.size = 3}).unstack(x);
  Output y = ta.read(0) * 2.f + ta.read(2) * 3.f;
  const std::size_t first = g.get_operations().size();
  Output gx = gradients(reduce_sum(y), {x}).at(0);
  // TensorFlow's nodes (symflow differentiates the two reads in the other order).
  std::vector<std::string> want{
      "gradients/TensorArrayReadV3_grad/TensorArrayGrad/TensorArrayGradV3:TensorArrayGradV3",
      "gradients/TensorArrayReadV3_grad/TensorArrayGrad/gradient_flow:Identity",
      "gradients/TensorArrayReadV3_grad/TensorArrayWrite/TensorArrayWriteV3:"
      "TensorArrayWriteV3",
      "gradients/TensorArrayReadV3_1_grad/TensorArrayGrad/TensorArrayGradV3:"
      "TensorArrayGradV3",
      "gradients/TensorArrayReadV3_1_grad/TensorArrayGrad/gradient_flow:Identity",
      "gradients/TensorArrayReadV3_1_grad/TensorArrayWrite/TensorArrayWriteV3:"
      "TensorArrayWriteV3",
      "gradients/TensorArrayUnstack/TensorArrayScatter/TensorArrayScatterV3_grad/"
      "flow_out:Identity",
      "gradients/TensorArrayUnstack/TensorArrayScatter/TensorArrayScatterV3_grad/"
      "write_barrier:Identity",
      "gradients/TensorArrayUnstack/TensorArrayScatter/TensorArrayScatterV3_grad/"
      "TensorArrayGrad/TensorArrayGradV3:TensorArrayGradV3",
      "gradients/TensorArrayUnstack/TensorArrayScatter/TensorArrayScatterV3_grad/"
      "TensorArrayGrad/gradient_flow:Identity",
      "gradients/TensorArrayUnstack/TensorArrayScatter/TensorArrayScatterV3_grad/"
      "TensorArrayGatherV3:TensorArrayGatherV3"};
  std::vector<std::string> got_nodes = tensor_array_nodes_since(g, first);
  std::sort(want.begin(), want.end());
  std::sort(got_nodes.begin(), got_nodes.end());
  CHECK(got_nodes == want);
  // A second tf.gradients call has its own source, so its own gradient array.
  Output gx2 = gradients(reduce_sum(y) * 2.f, {x}).at(0);
  for (const Operation& op : g.get_operations())
    if (op.type() == "TensorArrayGradV3") {
      CAPTURE(op.name());
      CHECK(op.get_attr<std::string>("source") ==
            (op.name().rfind("gradients_1/", 0) == 0 ? "gradients_1" : "gradients"));
    }
  Session sess(g);
  const std::vector<Value> got = sess.run(std::vector<Output>{gx, gx2});
  CHECK(got[0].to_vector<float>() == std::vector<float>{2, 2, 0, 0, 3, 3});
  CHECK(got[1].to_vector<float>() == std::vector<float>{4, 4, 0, 0, 6, 6});
}

TEST_CASE("tensor_array_grad: a scope around tf.gradients is part of the source") {
  Graph g;
  auto guard = g.as_default();
  Output gx;
  {
    name_scope outer("outer");
    Output x = constant({1.f, 2.f}, "x");
    TensorArray ta = TensorArray(float32, {.size = 2}).unstack(x);
    gx = gradients(ta.read(1) * 4.f, {x}).at(0);
  }
  const Operation grad = g.get_operation_by_name(
      "outer/gradients/outer/TensorArrayReadV3_grad/TensorArrayGrad/"
      "TensorArrayGradV3");
  CHECK(grad.get_attr<std::string>("source") == "outer/gradients");
  Session sess(g);
  CHECK(sess.run(gx).to_vector<float>() == std::vector<float>{0, 4});
}

TEST_CASE("tensor_array_grad: gradients of one index read twice add up; the others are zeros") {
  Graph g;
  auto guard = g.as_default();
  Output x = constant({1.f, 2.f}, "x");
  TensorArray ta = TensorArray(float32, {.size = 2, .clear_after_read = false}).unstack(x);
  Output y = ta.read(0) * 2.f + ta.read(0) * 3.f;
  Session sess(g);
  CHECK(sess.run(gradients(y, {x}).at(0)).to_vector<float>() == std::vector<float>{5, 0});
}

TEST_CASE("tensor_array_grad: no gradient for creation, size, close and grad") {
  int found = 0;
  for (const OpEntry& entry : kAllOps) {
    const std::string type(entry.def->type);
    if (type == "TensorArrayV3" || type == "TensorArraySizeV3" || type == "TensorArrayCloseV3" ||
        type == "TensorArrayGradV3") {
      CAPTURE(type);
      const bool none = entry.grad == not_differentiable;
      CHECK(none);
      ++found;
    }
  }
  CHECK(found == 4);
}

TEST_CASE("tensor_array_grad: a gradient built outside tf.gradients has no source") {
  Graph g;
  auto guard = g.as_default();
  TensorArray ta = TensorArray(float32, {.size = 2}).unstack(constant({1.f, 2.f}));
  Output r = ta.read(0);
  name_scope scope("elsewhere");
  CHECK_THROWS_WITH_AS(detail::tensor_array_read_grad(GradContext{r.op(), {constant(1.f)}}),
                       "Expected op/tensor name to start with gradients (excluding scope), got: "
                       "elsewhere",
                       ValueError);
}

}  // namespace symflow_test_ops_tensor_array_grad_test
