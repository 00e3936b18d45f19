// tf.scatter_nd and tf.math.confusion_matrix against TensorFlow (graph mode): values, node
// names and errors.

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include <symflow/ops/sparse_ops.hpp>
#include <symflow/symflow.hpp>

#include "../test_util.hpp"

namespace symflow_test_ops_sparse_ops_test {

using namespace symflow;
using namespace symflow::test;

TEST_CASE("ops/sparse: scatter_nd adds slices at their indices") {
  // TF: scatter_nd([[1], [3], [1]], [[1, 2], [3, 4], [5, 6]], [4, 2]) is "ScatterNd:0",
  //     shape (4, 2): [[0, 0], [6, 8], [0, 0], [3, 4]] (repeated indices add up); with
  //     indices [[0, 1], [2, 2], [0, 1]], updates [1, 2, 3] (float64) and shape [3, 3]:
  //     [[0, 4, 0], [0, 0, 0], [0, 0, 2]].
  Graph g;
  auto guard = g.as_default();
  auto rows = scatter_nd(constant(Value::from_vector<std::int32_t>({1, 3, 1}, {3, 1})),
                         constant(Value::from_vector<float>({1, 2, 3, 4, 5, 6}, {3, 2})),
                         constant(Value::from_vector<std::int32_t>({4, 2}, {2})));
  CHECK(rows.name() == "ScatterNd:0");
  CHECK(rows.get_shape().to_string() == "(4, 2)");
  CHECK(rows.op().get_attr<DType>("Tindices") == DType::int32);
  CHECK(run_vector<float>(rows) == std::vector<float>{0, 0, 6, 8, 0, 0, 3, 4});

  auto indices = placeholder<std::int64_t>(Shape{-1, 2});
  auto updates = placeholder<double>(Shape{-1});
  auto cells =
      scatter_nd(indices, updates, constant(Value::from_vector<std::int64_t>({3, 3}, {2})));
  CHECK(cells.get_shape().to_string() == "(3, 3)");
  Session sess(g);
  CHECK(sess.run(cells, {{indices, Value::from_vector<std::int64_t>({0, 1, 2, 2, 0, 1}, {3, 2})},
                         {updates, Value::from_vector<double>({1, 2, 3}, {3})}})
            .to_vector<double>() == std::vector<double>{0, 4, 0, 0, 0, 0, 0, 0, 2});
  // TF: InvalidArgumentError "indices[1] = [3, 2] does not index into shape [3,3]".
  auto e = thrown<InvalidArgumentError>([&] {
    sess.run(cells, {{indices, Value::from_vector<std::int64_t>({0, 1, 3, 2}, {2, 2})},
                     {updates, Value::from_vector<double>({1, 2}, {2})}});
  });
  REQUIRE(e);
  CHECK(contains(e->what(), "indices[1] = [3, 2] does not index into shape [3,3]"));
}

TEST_CASE("ops/sparse: scatter_nd shape errors") {
  // TF: "Dimensions [0,1) of indices[shape=[4,2]] = [4] must match dimensions [0,1) of
  //     updates[shape=[3]] = [3]: Dimension 0 in both shapes must be equal, but are 4 and 3.
  //     Shapes are [4] and [3]."
  Graph g;
  auto guard = g.as_default();
  auto shape = constant(Value::from_vector<std::int32_t>({3, 3}, {2}));
  auto e = thrown<ValueError>([&] {
    scatter_nd(placeholder<std::int32_t>(Shape{4, 2}), placeholder<float>(Shape{3}), shape);
  });
  REQUIRE(e);
  CHECK(contains(e->what(),
                 "Dimensions [0,1) of indices[shape=[4,2]] = [4] must match dimensions [0,1) of "
                 "updates[shape=[3]] = [3]: Dimension 0 in both shapes must be equal, but are 4 "
                 "and 3. Shapes are [4] and [3]."));
  // TF: updates [4, 2] for indices [4, 2] into [3, 3]: "... must match dimensions [1,2) of
  //     updates[shape=[4,2]] = [2]: Shapes must be equal rank, but are 0 and 1".
  e = thrown<ValueError>([&] {
    scatter_nd(placeholder<std::int32_t>(Shape{4, 2}), placeholder<float>(Shape{4, 2}), shape);
  });
  REQUIRE(e);
  CHECK(contains(e->what(),
                 "must match dimensions [1,2) of updates[shape=[4,2]] = [2]: Shapes "
                 "must be equal rank, but are 0 and 1"));
  // Float indices are a TypeError.
  CHECK(thrown<TypeError>([&] {
    scatter_nd(placeholder<float>(Shape{4, 2}), placeholder<float>(Shape{4}), shape);
  }));
}

TEST_CASE("ops/sparse: confusion_matrix against TensorFlow") {
  // TF: confusion_matrix(l, p, num_classes=4) is "confusion_matrix/ScatterNd:0" (4, 4) int32,
  //     its shape the int32 Const "confusion_matrix/stack" cast to int64 ("Cast_2"), indices
  //     the Pack "stack_1", updates the Fill "ones_like"; for l = [0, 3, 3], p = [1, 3, 3]:
  //     [[0,1,0,0],[0,0,0,0],[0,0,0,0],[0,0,0,2]]. With weights [1, 2, 3], float32 and no
  //     num_classes, shape (?, ?); l = [0, 3, 3], p = [1, 3, 0]: [[0,1,0,0],[0,0,0,0],
  //     [0,0,0,0],[3,0,0,2]].
  Graph g;
  auto guard = g.as_default();
  auto labels = placeholder<std::int32_t>(Shape{-1});
  auto predictions = placeholder<std::int64_t>(Shape{-1});
  auto cm = confusion_matrix(labels, predictions, 4);
  CHECK(cm.name() == "confusion_matrix/ScatterNd:0");
  CHECK(cm.dtype() == DType::int32);
  CHECK(cm.get_shape().to_string() == "(4, 4)");
  CHECK(g.get_operation_by_name("confusion_matrix/stack").type() == "Const");
  CHECK(input_names(cm.op()) == std::vector<std::string>{"confusion_matrix/stack_1:0",
                                                         "confusion_matrix/ones_like:0",
                                                         "confusion_matrix/Cast_2:0"});
  CHECK(g.get_operation_by_name("confusion_matrix/ones_like").type() == "Fill");
  auto weighted = confusion_matrix(labels, predictions, 4, constant({1.f, 2.f, 3.f}));
  CHECK(weighted.get_shape().to_string() == "(4, 4)");
  auto unsized = confusion_matrix(labels, predictions, std::nullopt, constant({1.f, 2.f, 3.f}),
                                  DType::float32);
  CHECK(unsized.name() == "confusion_matrix_2/ScatterNd:0");
  CHECK(unsized.get_shape().to_string() == "(?, ?)");
  Session sess(g);
  CHECK(sess.run(cm, {{labels, Value::from_vector<std::int32_t>({0, 3, 3}, {3})},
                      {predictions, Value::from_vector<std::int64_t>({1, 3, 3}, {3})}})
            .to_vector<std::int32_t>() ==
        std::vector<std::int32_t>{0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2});
  CHECK(sess.run(unsized, {{labels, Value::from_vector<std::int32_t>({0, 3, 3}, {3})},
                           {predictions, Value::from_vector<std::int64_t>({1, 3, 0}, {3})}})
            .to_vector<float>() ==
        std::vector<float>{0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 3, 0, 0, 2});
  // TF: labels and predictions of different lengths fail in the Pack: "Dimension 0 in both
  //     shapes must be equal, but are 2 and 3".
  auto e = thrown<ValueError>([] {
    confusion_matrix(constant(Value::from_vector<std::int32_t>({0, 1}, {2})),
                     constant(Value::from_vector<std::int32_t>({0, 1, 2}, {3})));
  });
  REQUIRE(e);
  CHECK(contains(e->what(), "Dimension 0 in both shapes must be equal, but are 2 and 3"));
}

}  // namespace symflow_test_ops_sparse_ops_test
