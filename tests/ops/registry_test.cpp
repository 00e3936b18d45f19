// The op vocabulary: kAllOps lists every op once, each entry complete, and every node the
// op functions build points at its registered entry.

#include <doctest/doctest.h>

#include <algorithm>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <symflow/backend/cpu/cpu_backend.hpp>
#include <symflow/ops/registry.hpp>
#include <symflow/symflow.hpp>

namespace symflow_test_ops_registry_test {

using namespace symflow;

// Compile-time: the registry is a constant table that find_op_def can search (where the
// OpDefs are defined in the source: header-only; SYMFLOW_COMPILED sources only declare them).
#if !defined(SYMFLOW_COMPILED)
static_assert(find_op_def("MatMul") == &detail::kMatMulOp);
static_assert(find_op_def("Softmax") == &detail::kSoftmaxOp);
static_assert(find_op_def("NoSuchOp") == nullptr);
#endif

TEST_CASE("ops/registry: find_op_def finds each op by its type, and nothing else") {
  CHECK(find_op_def("MatMul") == &detail::kMatMulOp);
  CHECK(find_op_def("Softmax") == &detail::kSoftmaxOp);
  CHECK(find_op_def("NoSuchOp") == nullptr);
}

TEST_CASE("ops/registry: every entry is complete and its type is unique") {
  std::set<std::string_view> types;
  for (const OpEntry& entry : kAllOps) {
    const OpDef* def = entry.def;
    REQUIRE(def != nullptr);
    CAPTURE(def->type);
    CHECK_FALSE(def->type.empty());
    CHECK(static_cast<bool>(def->infer));
    CHECK(static_cast<bool>(cpu::backend().kernel(*def)));  // the CPU claims every op
    CHECK(def->num_inputs >= -1);
    CHECK(types.insert(def->type).second);
  }
  CHECK(types.size() == kAllOps.size());
  for (std::string_view type : {"Const",
                                "Placeholder",
                                "Identity",
                                "Reshape",
                                "Fill",
                                "NoOp",
                                "Add",
                                "Sub",
                                "Mul",
                                "RealDiv",
                                "Div",
                                "Pow",
                                "Maximum",
                                "Minimum",
                                "Neg",
                                "Square",
                                "Abs",
                                "Sqrt",
                                "Exp",
                                "Log",
                                "MatMul",
                                "Sum",
                                "Mean",
                                "Max",
                                "Min",
                                "Cast",
                                "Softmax",
                                "VariableV2",
                                "Assign",
                                "AssignAdd",
                                "AssignSub",
                                "ScatterUpdate",
                                "ScatterAdd",
                                "ScatterSub",
                                "IsVariableInitialized",
                                "RandomStandardNormal",
                                "RandomUniform",
                                "TruncatedNormal",
                                "RandomUniformInt",
                                "RandomShuffle"})
    CHECK_MESSAGE(types.count(type) == 1, type);
}

TEST_CASE("ops/registry: find_op_def finds each entry and nothing else") {
  for (const OpEntry& entry : kAllOps) {
    const OpDef* def = entry.def;
    CAPTURE(def->type);
    CHECK(find_op_def(def->type) == def);
    CHECK(find_op_def(std::string(def->type)) == def);
  }
  CHECK(find_op_def("NoSuchOp") == nullptr);
  CHECK(find_op_def("") == nullptr);
  CHECK(find_op_def("matmul") == nullptr);  // types are case-sensitive
  CHECK(find_op_def("AddV3") == nullptr);
  CHECK(find_op_def("Add ") == nullptr);
}

TEST_CASE("ops/registry: the op functions build nodes of registered entries") {
  Graph g;
  auto guard = g.as_default();
  auto x = constant<float>({{1, 2}, {3, 4}});
  auto i = constant<std::int32_t>({1, 2});
  Output p = placeholder(DType::float32);
  (void)identity(x);
  (void)placeholder_with_default(x, Shape{-1, 2});
  (void)reshape(x, {-1});
  (void)fill(Shape{2}, Value(1.0f));
  (void)zeros(Shape{10, 100});
  (void)no_op();
  (void)group({p.op()});
  (void)add(x, x);
  (void)subtract(x, x);
  (void)multiply(x, x);
  (void)divide(x, x);
  (void)divide(i, i);
  (void)pow(x, x);
  (void)maximum(x, x);
  (void)minimum(x, x);
  (void)raw_ops::add_v2(x, x);
  (void)floordiv(x, x);
  (void)floormod(x, x);
  (void)raw_ops::mod(x, x);
  (void)negative(x);
  (void)square(x);
  (void)abs(x);
  (void)sqrt(x);
  (void)exp(x);
  (void)log(x);
  (void)matmul(x, x);
  (void)reduce_sum(x);
  (void)reduce_mean(x, 0);
  (void)reduce_max(x, 1);
  (void)reduce_min(x, {0, 1});
  (void)cast(x, DType::int32);
  (void)sign(x);
  (void)div_no_nan(x, x);
  (void)cos(x);
  (void)sin(x);
  (void)ceil(x);
  (void)round(x);
  (void)shape(x);
  (void)size(x);
  (void)rank(x);
  (void)squeeze(expand_dims(x, 0));
  (void)broadcast_to(x, {3, 2, 2});
  (void)tile(x, {2, 1});
  (void)broadcast_gradient_args(shape(x), shape(x));
  (void)zeros_like(x);
  (void)ones_like(x);
  (void)add_n({x, x});
  (void)stop_gradient(x);
  (void)nn::softmax(x);
  Variable v(Value{1, 2});  // VariableV2, Assign (and Identity, Const)
  (void)assign_add(v, {1, 1});
  (void)assign_sub(v, {1, 1});
  (void)scatter_update(v, {0}, {5});
  (void)scatter_add(v, {0}, {5});
  (void)scatter_sub(v, {0}, {5});
  (void)is_variable_initialized(v);
  (void)v.initialized_value();                                  // IsVariableInitialized, a cond
  (void)variable_or_initial_value(v.ref(), v.initial_value());  // _VariableOrInitialValue
  (void)random_normal({2});
  (void)random_uniform({2});
  (void)random_uniform({2}, DType::int32, {.maxval = 10});
  (void)truncated_normal({2});
  (void)random_shuffle(x);
  (void)is_nan(x);
  (void)is_inf(x);
  (void)is_finite(x);
  (void)check_numerics(x, "m");

  std::set<std::string> built;
  for (const Operation& op : g.get_operations()) {
    CAPTURE(op.name());
    const OpDef* def = find_op_def(op.type());
    REQUIRE(def != nullptr);
    CHECK(&op.op_def() == def);
    built.insert(op.type());
  }
  // Every core, array, shape and math op has a builder that was exercised above (the
  // other areas test their builders beside their kernels).
  std::vector<OpEntry> core(detail::kCoreOpEntries.begin(), detail::kCoreOpEntries.end());
  core.insert(core.end(), detail::kArrayOpEntries.begin(), detail::kArrayOpEntries.end());
  core.insert(core.end(), detail::kShapeOpEntries.begin(), detail::kShapeOpEntries.end());
  core.insert(core.end(), detail::kMathOpEntries.begin(), detail::kMathOpEntries.end());
  for (const OpEntry& entry : core) {
    const OpDef* def = entry.def;
    CAPTURE(def->type);
    CHECK(built.count(std::string(def->type)) == 1);
  }
}

}  // namespace symflow_test_ops_registry_test
