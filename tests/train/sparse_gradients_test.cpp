// Sparse gradients: a gather's params get TensorFlow's IndexedSlices, several are
// concatenated or summed with tensors as TensorFlow's _AggregatedGrads does, and each
// optimizer updates only the gathered rows with TensorFlow's graph and values (TF 2.21,
// tf.compat.v1 with ref variables).
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include <symflow/symflow.hpp>

#include "../node_rows.hpp"

namespace symflow_test_train_sparse_gradients_test {

namespace tf = symflow;
using tf::test::check_rows;

namespace {

// w = arange(12).reshape(4, 3) / 10; loss = sum(e * e) for e = embedding_lookup(w, [2, 0, 2]).
struct Lookup {
  tf::Graph g;
  tf::Variable w;
  tf::Output loss;
};

Lookup lookup_model() {
  Lookup m;
  auto guard = m.g.as_default();
  std::vector<float> init;
  for (int i = 0; i < 12; ++i) init.push_back(static_cast<float>(i) / 10.0f);
  m.w = tf::Variable(tf::Value::from_vector(init, {4, 3}), {.name = "w"});
  auto ids = tf::constant({2, 0, 2});
  auto e = tf::nn::embedding_lookup(m.w, ids);
  m.loss = tf::reduce_sum(e * e);
  return m;
}

// The rows of the update scope "<optimizer>/update_w/" built since `first`.
std::vector<std::string> update_rows(const tf::Graph& g, std::size_t first) {
  std::vector<std::string> rows;
  for (const std::string& row : tf::test::rows_since(g, first))
    if (row.substr(0, row.find(' ')).find("/update_w/") != std::string::npos) rows.push_back(row);
  return rows;
}

std::vector<float> after_two_steps(Lookup& m, const tf::Operation& train) {
  auto guard = m.g.as_default();
  tf::Session sess(m.g);
  sess.run(tf::global_variables_initializer());
  sess.run(train);
  sess.run(train);
  return sess.run(m.w).to_vector<float>();
}

void check_near(const std::vector<float>& got, const std::vector<float>& want) {
  REQUIRE(got.size() == want.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    CAPTURE(i);
    CHECK(got[i] == doctest::Approx(want[i]).epsilon(1e-6));
  }
}

}  // namespace

TEST_CASE("sparse gradients: embedding_lookup gives its params IndexedSlices with TF's nodes") {
  Lookup m = lookup_model();
  auto guard = m.g.as_default();
  const std::size_t first = m.g.num_nodes();
  std::vector<tf::Gradient> grads = tf::gradients_with_slices({m.loss}, {m.w.ref()});
  REQUIRE(grads.size() == 1);
  REQUIRE(grads[0].is_sparse());
  std::vector<std::string> rows;
  for (const std::string& row : tf::test::rows_since(m.g, first))
    if (row.find("embedding_lookup_grad") != std::string::npos) rows.push_back(row);
  check_rows(
      rows,
      {"gradients/embedding_lookup_grad/Shape Const [] loc:@w",
       "gradients/embedding_lookup_grad/Size Const [] ",
       "gradients/embedding_lookup_grad/ExpandDims/dim Const [] ",
       "gradients/embedding_lookup_grad/ExpandDims ExpandDims "
       "[gradients/embedding_lookup_grad/Size,gradients/embedding_lookup_grad/ExpandDims/dim] ",
       "gradients/embedding_lookup_grad/strided_slice/stack Const [] ",
       "gradients/embedding_lookup_grad/strided_slice/stack_1 Const [] ",
       "gradients/embedding_lookup_grad/strided_slice/stack_2 Const [] ",
       "gradients/embedding_lookup_grad/strided_slice StridedSlice "
       "[gradients/embedding_lookup_grad/Shape,gradients/embedding_lookup_grad/strided_slice/"
       "stack,gradients/embedding_lookup_grad/strided_slice/stack_1,gradients/"
       "embedding_lookup_grad/strided_slice/stack_2] ",
       "gradients/embedding_lookup_grad/concat/axis Const [] ",
       "gradients/embedding_lookup_grad/concat ConcatV2 "
       "[gradients/embedding_lookup_grad/ExpandDims,gradients/embedding_lookup_grad/"
       "strided_slice,gradients/embedding_lookup_grad/concat/axis] ",
       "gradients/embedding_lookup_grad/Reshape Reshape "
       "[gradients/AddN,gradients/embedding_lookup_grad/concat] ",
       "gradients/embedding_lookup_grad/Reshape_1 Reshape "
       "[Const,gradients/embedding_lookup_grad/ExpandDims] "});
  const tf::IndexedSlices& s = grads[0].sparse();
  tf::Session sess(m.g);
  sess.run(tf::global_variables_initializer());
  auto out = sess.run({s.values, s.indices, s.dense_shape});
  check_near(out[0].to_vector<float>(), {1.2f, 1.4f, 1.6f, 0.0f, 0.2f, 0.4f, 1.2f, 1.4f, 1.6f});
  CHECK(out[1].to_vector<std::int32_t>() == std::vector<std::int32_t>{2, 0, 2});
  CHECK(out[2].to_vector<std::int32_t>() == std::vector<std::int32_t>{4, 3});
  CHECK_THROWS_AS(static_cast<void>(grads[0].dense()), tf::TypeError);
}

TEST_CASE("sparse gradients: gradients() returns the slices summed into a tensor") {
  Lookup m = lookup_model();
  auto guard = m.g.as_default();
  tf::Output dense = tf::gradients(m.loss, {m.w.ref()})[0];
  CHECK(dense.op().type() == "UnsortedSegmentSum");
  tf::Session sess(m.g);
  sess.run(tf::global_variables_initializer());
  // Row 2 is gathered twice: its two rows add up.
  check_near(sess.run(dense).to_vector<float>(),
             {0.0f, 0.2f, 0.4f, 0.0f, 0.0f, 0.0f, 2.4f, 2.8f, 3.2f, 0.0f, 0.0f, 0.0f});
}

TEST_CASE("sparse gradients: slices and a tensor for one variable are summed by an AddN") {
  Lookup m = lookup_model();
  auto guard = m.g.as_default();
  auto loss2 = m.loss + tf::reduce_sum(m.w * m.w);
  const std::size_t first = m.g.num_nodes();
  tf::Gradient grad = tf::gradients_with_slices({loss2}, {m.w.value()})[0];
  CHECK(!grad.is_sparse());
  std::vector<std::string> rows;
  for (const std::string& row : tf::test::rows_since(m.g, first))
    if (row.find("AddN_1") != std::string::npos) rows.push_back(row);
  check_rows(
      rows,
      {"gradients/AddN_1/strided_slice/stack Const [] ",
       "gradients/AddN_1/strided_slice/stack_1 Const [] ",
       "gradients/AddN_1/strided_slice/stack_2 Const [] ",
       "gradients/AddN_1/strided_slice StridedSlice "
       "[gradients/embedding_lookup_grad/Shape,gradients/AddN_1/strided_slice/stack,gradients/"
       "AddN_1/strided_slice/stack_1,gradients/AddN_1/strided_slice/stack_2] ",
       "gradients/AddN_1/inputs_2 UnsortedSegmentSum "
       "[gradients/embedding_lookup_grad/Reshape,gradients/embedding_lookup_grad/"
       "Reshape_1,gradients/AddN_1/strided_slice] ",
       "gradients/AddN_1 AddN "
       "[gradients/mul_1_grad/Mul,gradients/mul_1_grad/Mul_1,gradients/AddN_1/inputs_2] "});
  tf::Session sess(m.g);
  sess.run(tf::global_variables_initializer());
  check_near(sess.run(grad.dense()).to_vector<float>(),
             {0.0f, 0.4f, 0.8f, 0.6f, 0.8f, 1.0f, 3.6f, 4.2f, 4.8f, 1.8f, 2.0f, 2.2f});
}

TEST_CASE("sparse gradients: two sets of slices for one variable are concatenated") {
  Lookup m = lookup_model();
  auto guard = m.g.as_default();
  auto e2 = tf::gather(m.w, tf::constant({1, 3}));
  auto loss3 = m.loss + tf::reduce_sum(e2);
  const std::size_t first = m.g.num_nodes();
  tf::Gradient grad = tf::gradients_with_slices({loss3}, {m.w.value()})[0];
  REQUIRE(grad.is_sparse());
  std::vector<std::string> rows;
  for (const std::string& row : tf::test::rows_since(m.g, first))
    if (row.rfind("gradients/concat", 0) == 0) rows.push_back(row);
  check_rows(rows, {"gradients/concat/axis Const [] ",
                    "gradients/concat ConcatV2 "
                    "[gradients/GatherV2_grad/Reshape,gradients/embedding_lookup_grad/"
                    "Reshape,gradients/concat/axis] ",
                    "gradients/concat_1/axis Const [] ",
                    "gradients/concat_1 ConcatV2 "
                    "[gradients/GatherV2_grad/Reshape_1,gradients/embedding_lookup_grad/"
                    "Reshape_1,gradients/concat_1/axis] "});
  tf::Session sess(m.g);
  sess.run(tf::global_variables_initializer());
  auto out = sess.run({grad.sparse().values, grad.sparse().indices});
  check_near(out[0].to_vector<float>(), {1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.2f, 1.4f, 1.6f, 0.0f,
                                         0.2f, 0.4f, 1.2f, 1.4f, 1.6f});
  CHECK(out[1].to_vector<std::int32_t>() == std::vector<std::int32_t>{1, 3, 2, 0, 2});
}

TEST_CASE(
    "sparse gradients: GradientDescent subtracts the scaled rows with ScatterSub, as TensorFlow "
    "1.x builds and runs it") {
  Lookup m = lookup_model();
  auto guard = m.g.as_default();
  tf::train::GradientDescentOptimizer opt(0.1);
  const std::size_t first = m.g.num_nodes();
  tf::Operation train = opt.minimize(m.loss);
  check_rows(update_rows(m.g, first),
             {"GradientDescent/update_w/mul Mul "
              "[gradients/embedding_lookup_grad/Reshape,GradientDescent/learning_rate] loc:@w",
              "GradientDescent/update_w/ScatterSub ScatterSub "
              "[w,gradients/embedding_lookup_grad/Reshape_1,GradientDescent/update_w/mul] loc:@w"});
  check_near(after_two_steps(m, train),
             {0.0f, 0.0639999956f, 0.127999991f, 0.300000012f, 0.400000006f, 0.5f, 0.216000021f,
              0.252000034f, 0.287999988f, 0.899999976f, 1.0f, 1.10000002f});
}

TEST_CASE(
    "sparse gradients: Momentum: Unique, UnsortedSegmentSum, SparseApplyMomentum, as TensorFlow "
    "1.x builds and runs it") {
  Lookup m = lookup_model();
  auto guard = m.g.as_default();
  tf::train::MomentumOptimizer opt(0.1, 0.9);
  const std::size_t first = m.g.num_nodes();
  tf::Operation train = opt.minimize(m.loss);
  check_rows(update_rows(m.g, first),
             {"Momentum/update_w/Unique Unique [gradients/embedding_lookup_grad/Reshape_1] loc:@w",
              "Momentum/update_w/Shape Shape [Momentum/update_w/Unique] loc:@w",
              "Momentum/update_w/strided_slice/stack Const [] loc:@w",
              "Momentum/update_w/strided_slice/stack_1 Const [] loc:@w",
              "Momentum/update_w/strided_slice/stack_2 Const [] loc:@w",
              "Momentum/update_w/strided_slice StridedSlice "
              "[Momentum/update_w/Shape,Momentum/update_w/strided_slice/stack,Momentum/update_w/"
              "strided_slice/stack_1,Momentum/update_w/strided_slice/stack_2] loc:@w",
              "Momentum/update_w/UnsortedSegmentSum UnsortedSegmentSum "
              "[gradients/embedding_lookup_grad/Reshape,Momentum/update_w/Unique:1,Momentum/"
              "update_w/strided_slice] loc:@w",
              "Momentum/update_w/SparseApplyMomentum SparseApplyMomentum "
              "[w,w/Momentum,Momentum/learning_rate,Momentum/update_w/UnsortedSegmentSum,Momentum/"
              "update_w/Unique,Momentum/momentum] loc:@w"});
  check_near(after_two_steps(m, train),
             {0.0f, 0.0460000001f, 0.0920000002f, 0.300000012f, 0.400000006f, 0.5f, 0.0f, 0.0f,
              0.0f, 0.899999976f, 1.0f, 1.10000002f});
}

TEST_CASE(
    "sparse gradients: Nesterov momentum: SparseApplyMomentum with use_nesterov, as TensorFlow 1.x "
    "builds and runs it") {
  Lookup m = lookup_model();
  auto guard = m.g.as_default();
  tf::train::MomentumOptimizer opt(0.1, 0.9, {.use_nesterov = true});
  const std::size_t first = m.g.num_nodes();
  tf::Operation train = opt.minimize(m.loss);
  check_rows(update_rows(m.g, first),
             {"Momentum/update_w/Unique Unique [gradients/embedding_lookup_grad/Reshape_1] loc:@w",
              "Momentum/update_w/Shape Shape [Momentum/update_w/Unique] loc:@w",
              "Momentum/update_w/strided_slice/stack Const [] loc:@w",
              "Momentum/update_w/strided_slice/stack_1 Const [] loc:@w",
              "Momentum/update_w/strided_slice/stack_2 Const [] loc:@w",
              "Momentum/update_w/strided_slice StridedSlice "
              "[Momentum/update_w/Shape,Momentum/update_w/strided_slice/stack,Momentum/update_w/"
              "strided_slice/stack_1,Momentum/update_w/strided_slice/stack_2] loc:@w",
              "Momentum/update_w/UnsortedSegmentSum UnsortedSegmentSum "
              "[gradients/embedding_lookup_grad/Reshape,Momentum/update_w/Unique:1,Momentum/"
              "update_w/strided_slice] loc:@w",
              "Momentum/update_w/SparseApplyMomentum SparseApplyMomentum "
              "[w,w/Momentum,Momentum/learning_rate,Momentum/update_w/UnsortedSegmentSum,Momentum/"
              "update_w/Unique,Momentum/momentum] loc:@w"});
  check_near(after_two_steps(m, train),
             {0.0f, 0.0222400017f, 0.0444800034f, 0.300000012f, 0.400000006f, 0.5f, -0.159839988f,
              -0.186479986f, -0.213119984f, 0.899999976f, 1.0f, 1.10000002f});
}

TEST_CASE("sparse gradients: Adagrad: SparseApplyAdagrad, as TensorFlow 1.x builds and runs it") {
  Lookup m = lookup_model();
  auto guard = m.g.as_default();
  tf::train::AdagradOptimizer opt(0.1);
  const std::size_t first = m.g.num_nodes();
  tf::Operation train = opt.minimize(m.loss);
  check_rows(update_rows(m.g, first),
             {"Adagrad/update_w/Unique Unique [gradients/embedding_lookup_grad/Reshape_1] loc:@w",
              "Adagrad/update_w/Shape Shape [Adagrad/update_w/Unique] loc:@w",
              "Adagrad/update_w/strided_slice/stack Const [] loc:@w",
              "Adagrad/update_w/strided_slice/stack_1 Const [] loc:@w",
              "Adagrad/update_w/strided_slice/stack_2 Const [] loc:@w",
              "Adagrad/update_w/strided_slice StridedSlice "
              "[Adagrad/update_w/Shape,Adagrad/update_w/strided_slice/stack,Adagrad/update_w/"
              "strided_slice/stack_1,Adagrad/update_w/strided_slice/stack_2] loc:@w",
              "Adagrad/update_w/UnsortedSegmentSum UnsortedSegmentSum "
              "[gradients/embedding_lookup_grad/Reshape,Adagrad/update_w/Unique:1,Adagrad/update_w/"
              "strided_slice] loc:@w",
              "Adagrad/update_w/SparseApplyAdagrad SparseApplyAdagrad "
              "[w,w/Adagrad,Adagrad/learning_rate,Adagrad/update_w/UnsortedSegmentSum,Adagrad/"
              "update_w/Unique] loc:@w"});
  check_near(after_two_steps(m, train),
             {0.0f, 0.0224030521f, 0.0785173923f, 0.300000012f, 0.400000006f, 0.5f, 0.437099159f,
              0.535750985f, 0.634789824f, 0.899999976f, 1.0f, 1.10000002f});
}

TEST_CASE(
    "sparse gradients: Adam: Assign and ScatterAdd of the moments, AssignSub of var, as TensorFlow "
    "1.x builds and runs it") {
  Lookup m = lookup_model();
  auto guard = m.g.as_default();
  tf::train::AdamOptimizer opt(0.1);
  const std::size_t first = m.g.num_nodes();
  tf::Operation train = opt.minimize(m.loss);
  check_rows(
      update_rows(m.g, first),
      {"Adam/update_w/Unique Unique [gradients/embedding_lookup_grad/Reshape_1] loc:@w",
       "Adam/update_w/Shape Shape [Adam/update_w/Unique] loc:@w",
       "Adam/update_w/strided_slice/stack Const [] loc:@w",
       "Adam/update_w/strided_slice/stack_1 Const [] loc:@w",
       "Adam/update_w/strided_slice/stack_2 Const [] loc:@w",
       "Adam/update_w/strided_slice StridedSlice "
       "[Adam/update_w/Shape,Adam/update_w/strided_slice/stack,Adam/update_w/strided_slice/"
       "stack_1,Adam/update_w/strided_slice/stack_2] loc:@w",
       "Adam/update_w/UnsortedSegmentSum UnsortedSegmentSum "
       "[gradients/embedding_lookup_grad/Reshape,Adam/update_w/Unique:1,Adam/update_w/"
       "strided_slice] loc:@w",
       "Adam/update_w/sub/x Const [] loc:@w",
       "Adam/update_w/sub Sub [Adam/update_w/sub/x,beta2_power/read] loc:@w",
       "Adam/update_w/Sqrt Sqrt [Adam/update_w/sub] loc:@w",
       "Adam/update_w/mul Mul [Adam/learning_rate,Adam/update_w/Sqrt] loc:@w",
       "Adam/update_w/sub_1/x Const [] loc:@w",
       "Adam/update_w/sub_1 Sub [Adam/update_w/sub_1/x,beta1_power/read] loc:@w",
       "Adam/update_w/truediv RealDiv [Adam/update_w/mul,Adam/update_w/sub_1] loc:@w",
       "Adam/update_w/sub_2/x Const [] loc:@w",
       "Adam/update_w/sub_2 Sub [Adam/update_w/sub_2/x,Adam/beta1] loc:@w",
       "Adam/update_w/mul_1 Mul [Adam/update_w/UnsortedSegmentSum,Adam/update_w/sub_2] loc:@w",
       "Adam/update_w/mul_2 Mul [w/Adam/read,Adam/beta1] loc:@w",
       "Adam/update_w/Assign Assign [w/Adam,Adam/update_w/mul_2] loc:@w",
       "Adam/update_w/ScatterAdd ScatterAdd "
       "[w/Adam,Adam/update_w/Unique,Adam/update_w/mul_1,^Adam/update_w/Assign] loc:@w",
       "Adam/update_w/mul_3 Mul "
       "[Adam/update_w/UnsortedSegmentSum,Adam/update_w/UnsortedSegmentSum] loc:@w",
       "Adam/update_w/sub_3/x Const [] loc:@w",
       "Adam/update_w/sub_3 Sub [Adam/update_w/sub_3/x,Adam/beta2] loc:@w",
       "Adam/update_w/mul_4 Mul [Adam/update_w/mul_3,Adam/update_w/sub_3] loc:@w",
       "Adam/update_w/mul_5 Mul [w/Adam_1/read,Adam/beta2] loc:@w",
       "Adam/update_w/Assign_1 Assign [w/Adam_1,Adam/update_w/mul_5] loc:@w",
       "Adam/update_w/ScatterAdd_1 ScatterAdd "
       "[w/Adam_1,Adam/update_w/Unique,Adam/update_w/mul_4,^Adam/update_w/Assign_1] loc:@w",
       "Adam/update_w/Sqrt_1 Sqrt [Adam/update_w/ScatterAdd_1] loc:@w",
       "Adam/update_w/mul_6 Mul [Adam/update_w/truediv,Adam/update_w/ScatterAdd] loc:@w",
       // AddV2 in TF 2.21: symflow builds TF 1.x's Add (docs/decisions.md).
       "Adam/update_w/add Add [Adam/update_w/Sqrt_1,Adam/epsilon] loc:@w",
       "Adam/update_w/truediv_1 RealDiv [Adam/update_w/mul_6,Adam/update_w/add] loc:@w",
       "Adam/update_w/AssignSub AssignSub [w,Adam/update_w/truediv_1] loc:@w",
       "Adam/update_w/group_deps NoOp "
       "[^Adam/update_w/AssignSub,^Adam/update_w/ScatterAdd,^Adam/update_w/ScatterAdd_1] loc:@w"});
  check_near(after_two_steps(m, train),
             {0.0f, -0.0670054629f, 0.00678247958f, 0.300000012f, 0.400000006f, 0.5f, 0.400883049f,
              0.500694752f, 0.600568652f, 0.899999976f, 1.0f, 1.10000002f});
}

TEST_CASE("sparse gradients: RMSProp: SparseApplyRMSProp, as TensorFlow 1.x builds and runs it") {
  Lookup m = lookup_model();
  auto guard = m.g.as_default();
  tf::train::RMSPropOptimizer opt(0.1, {.momentum = 0.5});
  const std::size_t first = m.g.num_nodes();
  tf::Operation train = opt.minimize(m.loss);
  check_rows(
      update_rows(m.g, first),
      {"RMSProp/update_w/Unique Unique [gradients/embedding_lookup_grad/Reshape_1] loc:@w",
       "RMSProp/update_w/Shape Shape [RMSProp/update_w/Unique] loc:@w",
       "RMSProp/update_w/strided_slice/stack Const [] loc:@w",
       "RMSProp/update_w/strided_slice/stack_1 Const [] loc:@w",
       "RMSProp/update_w/strided_slice/stack_2 Const [] loc:@w",
       "RMSProp/update_w/strided_slice StridedSlice "
       "[RMSProp/update_w/Shape,RMSProp/update_w/strided_slice/stack,RMSProp/update_w/"
       "strided_slice/stack_1,RMSProp/update_w/strided_slice/stack_2] loc:@w",
       "RMSProp/update_w/UnsortedSegmentSum UnsortedSegmentSum "
       "[gradients/embedding_lookup_grad/Reshape,RMSProp/update_w/Unique:1,RMSProp/update_w/"
       "strided_slice] loc:@w",
       "RMSProp/update_w/SparseApplyRMSProp SparseApplyRMSProp "
       "[w,w/RMSProp,w/RMSProp_1,RMSProp/learning_rate,RMSProp/decay,RMSProp/momentum,RMSProp/"
       "epsilon,RMSProp/update_w/UnsortedSegmentSum,RMSProp/update_w/Unique] loc:@w"});
  check_near(after_two_steps(m, train),
             {0.0f, 0.0509651601f, 0.102670416f, 0.300000012f, 0.400000006f, 0.5f, 0.175915956f,
              0.235485896f, 0.302142322f, 0.899999976f, 1.0f, 1.10000002f});
}

TEST_CASE(
    "sparse gradients: centered RMSProp: SparseApplyCenteredRMSProp, as TensorFlow 1.x builds and "
    "runs it") {
  Lookup m = lookup_model();
  auto guard = m.g.as_default();
  tf::train::RMSPropOptimizer opt(0.1, {.momentum = 0.5, .centered = true});
  const std::size_t first = m.g.num_nodes();
  tf::Operation train = opt.minimize(m.loss);
  check_rows(update_rows(m.g, first),
             {"RMSProp/update_w/Unique Unique [gradients/embedding_lookup_grad/Reshape_1] loc:@w",
              "RMSProp/update_w/Shape Shape [RMSProp/update_w/Unique] loc:@w",
              "RMSProp/update_w/strided_slice/stack Const [] loc:@w",
              "RMSProp/update_w/strided_slice/stack_1 Const [] loc:@w",
              "RMSProp/update_w/strided_slice/stack_2 Const [] loc:@w",
              "RMSProp/update_w/strided_slice StridedSlice "
              "[RMSProp/update_w/Shape,RMSProp/update_w/strided_slice/stack,RMSProp/update_w/"
              "strided_slice/stack_1,RMSProp/update_w/strided_slice/stack_2] loc:@w",
              "RMSProp/update_w/UnsortedSegmentSum UnsortedSegmentSum "
              "[gradients/embedding_lookup_grad/Reshape,RMSProp/update_w/Unique:1,RMSProp/update_w/"
              "strided_slice] loc:@w",
              "RMSProp/update_w/SparseApplyCenteredRMSProp SparseApplyCenteredRMSProp "
              "[w,w/RMSProp_1,w/RMSProp,w/RMSProp_2,RMSProp/learning_rate,RMSProp/decay,RMSProp/"
              "momentum,RMSProp/epsilon,RMSProp/update_w/UnsortedSegmentSum,RMSProp/update_w/"
              "Unique] loc:@w"});
  check_near(after_two_steps(m, train),
             {0.0f, 0.0509469621f, 0.102528177f, 0.300000012f, 0.400000006f, 0.5f, 0.164967775f,
              0.220970839f, 0.284148574f, 0.899999976f, 1.0f, 1.10000002f});
}

TEST_CASE("sparse gradients: clip_by_global_norm scales the slices' values and keeps them slices") {
  Lookup m = lookup_model();
  auto guard = m.g.as_default();
  tf::Variable b(tf::constant({1.0f, 2.0f}), {.name = "b"});
  auto loss = m.loss + tf::reduce_sum(b * b);
  tf::train::GradientDescentOptimizer opt(0.1);
  auto grads_and_vars = opt.compute_gradients(loss);
  std::vector<tf::Gradient> grads;
  for (const auto& [grad, var] : grads_and_vars) grads.push_back(grad);
  auto [clipped, norm] = tf::clip_by_global_norm(grads, 1.0);
  REQUIRE(clipped[0].is_sparse());
  REQUIRE(!clipped[1].is_sparse());
  std::vector<tf::train::GradAndVar> clipped_and_vars;
  for (std::size_t i = 0; i < clipped.size(); ++i)
    clipped_and_vars.emplace_back(clipped[i], grads_and_vars[i].second);
  tf::Operation train = opt.apply_gradients(clipped_and_vars);
  tf::Session sess(m.g);
  sess.run(tf::global_variables_initializer());
  auto out =
      sess.run({norm, clipped[0].sparse().values, clipped[0].sparse().indices, clipped[1].dense()});
  CHECK(out[0].scalar<float>() == doctest::Approx(5.667451f).epsilon(1e-6));
  check_near(out[1].to_vector<float>(),
             {0.211735412f, 0.24702464f, 0.282313883f, 0.0f, 0.0352892354f, 0.0705784708f,
              0.211735412f, 0.24702464f, 0.282313883f});
  CHECK(out[2].to_vector<std::int32_t>() == std::vector<std::int32_t>{2, 0, 2});
  check_near(out[3].to_vector<float>(), {0.352892339f, 0.705784678f});
  sess.run(train);
  check_near(sess.run(m.w).to_vector<float>(),
             {0.0f, 0.0964710787f, 0.192942157f, 0.300000012f, 0.400000006f, 0.5f, 0.55765295f,
              0.650595009f, 0.743537247f, 0.899999976f, 1.0f, 1.10000002f});
  check_near(sess.run(b).to_vector<float>(), {0.964710772f, 1.92942154f});
}

TEST_CASE("sparse gradients: int64 ids give SparseApply ops with Tindices int64") {
  tf::Graph g;
  auto guard = g.as_default();
  tf::Variable w(tf::ones({3, 2}), {.name = "w"});
  auto e = tf::nn::embedding_lookup(w, tf::constant({std::int64_t{1}, std::int64_t{1}}));
  auto loss = tf::reduce_sum(e);
  tf::train::AdagradOptimizer opt(0.5);
  tf::Operation train = opt.minimize(loss);
  tf::Session sess(g);
  sess.run(tf::global_variables_initializer());
  sess.run(train);
  // Row 1's two gradients (1 each) are summed to 2 before the update:
  // accum = 0.1 + 4, var = 1 - 0.5 * 2 / sqrt(4.1).
  const float row1 = 1.0f - 0.5f * 2.0f / std::sqrt(4.1f);
  check_near(sess.run(w).to_vector<float>(), {1.0f, 1.0f, row1, row1, 1.0f, 1.0f});
}

TEST_CASE(
    "sparse gradients: a SparseApply index outside var is TensorFlow's InvalidArgumentError") {
  tf::Graph g;
  auto guard = g.as_default();
  tf::Variable w(tf::zeros({3, 2}), {.name = "w"});
  tf::Variable accum(tf::zeros({3, 2}), {.name = "accum"});
  auto update = tf::sparse_apply_momentum(
      w, accum, 0.1f, tf::constant({{1.0f, 1.0f}, {1.0f, 1.0f}}), tf::constant({0, 7}), 0.9f);
  tf::Session sess(g);
  sess.run(tf::global_variables_initializer());
  CHECK_THROWS_WITH_AS(sess.run(update),
                       doctest::Contains("Index 7 at offset 1 in indices is out of range"),
                       tf::InvalidArgumentError);
  // indices must be a vector: a ValueError while building.
  CHECK_THROWS_AS(
      tf::sparse_apply_adagrad(w, accum, 0.1f, tf::constant({{1.0f, 1.0f}}), tf::constant({{0}})),
      tf::ValueError);
  // grad's rows must match var's.
  CHECK_THROWS_AS(tf::sparse_apply_adagrad(w, accum, 0.1f, tf::constant({{1.0f, 1.0f, 1.0f}}),
                                           tf::constant({0})),
                  tf::ValueError);
}

}  // namespace symflow_test_train_sparse_gradients_test
