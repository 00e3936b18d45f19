// tf.TensorArray (the TensorArrayV3 ops), checked against TensorFlow 2.21 in tf.compat.v1
// graph mode with control flow v1 (tf.disable_v2_behavior()): node names and op types,
// attrs, static shapes, values, the element shape that writes infer, TensorArrays as
// while loop variables, and the messages of build-time and run-time errors. Every
// expected value below was printed by TensorFlow. TensorFlow numbers its arrays with a
// counter of the process ("TensorArray_11"); symflow with one of the run, so that the
// first array a run makes from node "TensorArray_3" is "TensorArray_3_0".

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#include <symflow/symflow.hpp>

#include "../test_util.hpp"

namespace symflow_test_ops_tensor_array_test {

namespace tf = symflow;
using tf::Output;
using tf::Shape;
using tf::TensorArray;
using tf::Value;

static_assert(!std::is_convertible_v<TensorArray, Output>,
              "a TensorArray is no tensor: its flow or handle is");

// "name:type" of every node made since node `first`.
std::vector<std::string> names_since(const tf::Graph& g, std::size_t first = 0) {
  std::vector<std::string> out;
  const auto ops = g.get_operations();
  for (std::size_t i = first; i < ops.size(); ++i)
    out.push_back(ops[i].name() + ":" + ops[i].type());
  return out;
}

// The names of the graph's nodes, sorted.
std::vector<std::string> sorted_names(const tf::Graph& g) {
  std::vector<std::string> out;
  for (const tf::Operation& op : g.get_operations()) out.push_back(op.name());
  std::sort(out.begin(), out.end());
  return out;
}

// Runs `f`, which must throw E with `message` about node `node`.
template <class E, class F>
void check_error(F&& f, const std::string& message, const std::string& node) {
  try {
    f();
    FAIL("no error");
  } catch (const E& e) {
    CHECK(e.message() == message);
    CHECK(e.node_name() == node);
  }
}

std::vector<float> floats(const Value& v) { return v.to_vector<float>(); }

TEST_CASE("tensor_array: the graph TensorFlow builds, with attrs and static shapes") {
  tf::Graph g;
  auto guard = g.as_default();
  TensorArray ta(tf::float32, {.size = 3});
  CHECK(ta.handle().name() == "TensorArray:0");
  CHECK(ta.handle().dtype() == tf::DType::resource);
  CHECK(ta.flow().name() == "TensorArray:1");
  CHECK(ta.flow().get_shape() == Shape{});
  Output x = tf::constant({{1.f, 2.f}, {3.f, 4.f}, {5.f, 6.f}});
  TensorArray t2 = ta.unstack(x);
  CHECK(ta.element_shape() == Shape{2});  // shared by the arrays made from one another
  Output r = t2.read(1);
  Output s = t2.stack();
  TensorArray w = ta.write(0, Value{1.f, 2.f});
  Output gathered = w.gather(Value{0, 2});
  Output c = t2.concat();
  Output size = ta.size();
  tf::Operation closed = ta.close();
  TensorArray sp = ta.split(tf::constant({1.f, 2.f, 3.f, 4.f, 5.f, 6.f}), Value{2, 2, 2});
  TensorArray sc = ta.scatter(Value{0, 1}, Value{{1.f, 1.f}, {2.f, 2.f}});
  TensorArray gr = ta.grad("gradients");

  CHECK(r.name() == "TensorArrayReadV3:0");
  CHECK(r.get_shape() == Shape{2});
  CHECK(s.name() == "TensorArrayStack/TensorArrayGatherV3:0");
  CHECK(s.get_shape() == Shape{3, 2});
  CHECK(gathered.get_shape() == Shape{-1, 2});
  CHECK(c.get_shape() == Shape{6});
  CHECK(size.name() == "Const_2:0");
  CHECK(sp.flow().name() == "TensorArraySplit/TensorArraySplitV3:0");
  CHECK(sp.element_shape() == Shape{2});
  CHECK(gr.handle().name() == "TensorArrayGrad/TensorArrayGradV3:0");
  CHECK(gr.flow().name() == "TensorArrayGrad/gradient_flow:0");
  CHECK(closed.type() == "TensorArrayCloseV3");
  (void)sc;
  CHECK(names_since(g) ==
        std::vector<std::string>{"TensorArray/size:Const",
                                 "TensorArray:TensorArrayV3",
                                 "Const:Const",
                                 "TensorArrayUnstack/Shape:Const",
                                 "TensorArrayUnstack/strided_slice/stack:Const",
                                 "TensorArrayUnstack/strided_slice/stack_1:Const",
                                 "TensorArrayUnstack/strided_slice/stack_2:Const",
                                 "TensorArrayUnstack/strided_slice:StridedSlice",
                                 "TensorArrayUnstack/range/start:Const",
                                 "TensorArrayUnstack/range/delta:Const",
                                 "TensorArrayUnstack/range:Range",
                                 "TensorArrayUnstack/TensorArrayScatter/TensorArrayScatterV3:"
                                 "TensorArrayScatterV3",
                                 "TensorArrayReadV3/index:Const",
                                 "TensorArrayReadV3:TensorArrayReadV3",
                                 "TensorArrayStack/Const:Const",
                                 "TensorArrayStack/range/start:Const",
                                 "TensorArrayStack/range/delta:Const",
                                 "TensorArrayStack/range:Range",
                                 "TensorArrayStack/TensorArrayGatherV3:TensorArrayGatherV3",
                                 "TensorArrayWrite/value:Const",
                                 "TensorArrayWrite/TensorArrayWriteV3/index:Const",
                                 "TensorArrayWrite/TensorArrayWriteV3:TensorArrayWriteV3",
                                 "TensorArrayGatherV3/indices:Const",
                                 "TensorArrayGatherV3:TensorArrayGatherV3",
                                 "TensorArrayConcatV3:TensorArrayConcatV3",
                                 "Const_1:Const",
                                 "Const_2:Const",
                                 "TensorArrayCloseV3:TensorArrayCloseV3",
                                 "Const_3:Const",
                                 "TensorArraySplit/Cast/x:Const",
                                 "TensorArraySplit/Cast:Cast",
                                 "TensorArraySplit/TensorArraySplitV3:TensorArraySplitV3",
                                 "TensorArrayScatter/value:Const",
                                 "TensorArrayScatter/TensorArrayScatterV3/indices:Const",
                                 "TensorArrayScatter/TensorArrayScatterV3:TensorArrayScatterV3",
                                 "TensorArrayGrad/TensorArrayGradV3:TensorArrayGradV3",
                                 "TensorArrayGrad/gradient_flow:Identity"});
  const tf::Operation array = ta.handle().op();
  CHECK(array.get_attr<tf::DType>("dtype") == tf::float32);
  CHECK(array.get_attr<bool>("identical_element_shapes"));
  CHECK(!array.get_attr<bool>("dynamic_size"));
  CHECK(array.get_attr<bool>("clear_after_read"));
  CHECK(array.get_attr<std::string>("tensor_array_name").empty());
  CHECK(!array.get_attr<Shape>("element_shape").has_rank());
  CHECK(s.op().get_attr<Shape>("element_shape") == Shape{2});
  CHECK(c.op().get_attr<Shape>("element_shape_except0") == Shape{});
  CHECK(gr.handle().op().get_attr<std::string>("source") == "gradients");
  CHECK(gr.flow().op().control_inputs().at(0) == gr.handle().op());
  // The gradient array's flow is an Identity of the forward one, yet leads to its own handle.
  CHECK(TensorArray::from_flow(gr.flow()).handle() == gr.handle());
  CHECK(TensorArray::from_flow(t2.flow()).handle() == ta.handle());
  CHECK_THROWS_WITH_AS(TensorArray::from_flow(x),
                       "Tensor Const:0 (op Const) is not the flow of a TensorArray",
                       tf::ValueError);
}

TEST_CASE("tensor_array: unstack, read, stack, gather and concat give TensorFlow's values") {
  tf::Graph g;
  auto guard = g.as_default();
  Output x = tf::constant({{1.f, 2.f}, {3.f, 4.f}, {5.f, 6.f}});
  TensorArray ta = TensorArray(tf::float32, {.size = 3, .clear_after_read = false}).unstack(x);
  Output r = ta.read(1), s = ta.stack(), ga = ta.gather(Value{2, 0}), c = ta.concat();
  tf::Session sess(g);
  CHECK(floats(sess.run(r)) == std::vector<float>{3, 4});
  CHECK(floats(sess.run(s)) == std::vector<float>{1, 2, 3, 4, 5, 6});
  CHECK(sess.run(s).dims() == tf::Dims{3, 2});
  CHECK(floats(sess.run(ga)) == std::vector<float>{5, 6, 1, 2});
  CHECK(floats(sess.run(c)) == std::vector<float>{1, 2, 3, 4, 5, 6});
  // All four in one run: a read does not clear when clear_after_read is off.
  const std::vector<Value> all = sess.run(std::vector<Output>{r, s, ga, c});
  CHECK(floats(all[0]) == std::vector<float>{3, 4});
  CHECK(floats(all[3]) == std::vector<float>{1, 2, 3, 4, 5, 6});

  // An int32 array: the number written becomes an int32 Const.
  TensorArray ints = TensorArray(tf::int32, {.size = 2}).write(0, 7);
  Output seven = ints.read(0);
  CHECK(seven.get_shape() == Shape{});
  CHECK(sess.run(seven).scalar<std::int32_t>() == 7);
}

TEST_CASE("tensor_array: split and concat, lengths, uneven pieces") {
  tf::Graph g;
  auto guard = g.as_default();
  Output v = tf::constant(Value::from_vector(std::vector<float>{1, 2, 3, 4, 5, 6}, {6, 1}));
  TensorArray ta =
      TensorArray(tf::float32, {.size = 3, .infer_shape = false}).split(v, tf::constant({1, 3, 2}));
  Output c = ta.concat("cc2");
  CHECK(!c.get_shape().has_rank());
  Output lengths = c.op().output(1);
  CHECK(lengths.dtype() == tf::int64);
  CHECK(lengths.get_shape() == Shape{-1});
  tf::Session sess(g);
  const std::vector<Value> out = sess.run(std::vector<Output>{c, lengths});
  CHECK(floats(out[0]) == std::vector<float>{1, 2, 3, 4, 5, 6});
  CHECK(out[0].dims() == tf::Dims{6, 1});
  CHECK(out[1].to_vector<std::int64_t>() == std::vector<std::int64_t>{1, 3, 2});
  TensorArray again =
      TensorArray(tf::float32, {.size = 3, .infer_shape = false}).split(v, tf::constant({1, 3, 2}));
  Output piece = again.read(1);
  CHECK(floats(sess.run(piece)) == std::vector<float>{2, 3, 4});
  CHECK(sess.run(piece).dims() == tf::Dims{3, 1});

  // int64 lengths need no Cast; equal pieces fix the element shape.
  const std::size_t first = g.get_operations().size();
  TensorArray even = TensorArray(tf::float32, {.size = 2})
                         .split(tf::constant({1.f, 2.f, 3.f, 4.f}),
                                tf::constant({std::int64_t{2}, std::int64_t{2}}), "sp");
  CHECK(names_since(g, first) ==
        std::vector<std::string>{"TensorArray_2/size:Const", "TensorArray_2:TensorArrayV3",
                                 "Const_3:Const", "Const_4:Const", "sp/sp:TensorArraySplitV3"});
  CHECK(even.element_shape() == Shape{2});
}

TEST_CASE("tensor_array: dynamic_size, names, tensor_array_name, unwritten slots read as zeros") {
  tf::Graph g;
  auto guard = g.as_default();
  TensorArray ta(tf::float32, {.size = 0,
                               .dynamic_size = true,
                               .clear_after_read = false,
                               .tensor_array_name = "foo",
                               .element_shape = Shape{2},
                               .infer_shape = false,
                               .name = "arr"});
  TensorArray ta2 = ta.write(2, Value{1.f, 2.f}, "w");
  Output s = ta2.stack("st"), r = ta2.read(2, "rd"), sz = ta2.size("sz"), c = ta2.concat("cc");
  CHECK(s.name() == "st/st:0");
  CHECK(s.get_shape() == Shape{-1, 2});
  CHECK(r.get_shape() == Shape{2});
  CHECK(sz.get_shape() == Shape{});
  CHECK(c.get_shape() == Shape{-1});
  CHECK(names_since(g) == std::vector<std::string>{
                              "arr/size:Const", "arr:TensorArrayV3", "w/value:Const",
                              "w/w/index:Const", "w/w:TensorArrayWriteV3",
                              "st/TensorArraySizeV3:TensorArraySizeV3", "st/range/start:Const",
                              "st/range/delta:Const", "st/range:Range", "st/st:TensorArrayGatherV3",
                              "rd/index:Const", "rd:TensorArrayReadV3", "sz:TensorArraySizeV3",
                              "cc:TensorArrayConcatV3"});
  CHECK(ta.handle().op().get_attr<std::string>("tensor_array_name") == "foo");
  tf::Session sess(g);
  const std::vector<Value> out = sess.run(std::vector<Output>{r, sz, s});
  CHECK(floats(out[0]) == std::vector<float>{1, 2});
  CHECK(out[1].scalar<std::int32_t>() == 3);
  CHECK(floats(out[2]) == std::vector<float>{0, 0, 0, 0, 1, 2});
  // The run names the array after tensor_array_name.
  check_error<tf::InvalidArgumentError>(
      [&] {
        Output unknown =
            tf::placeholder_with_default(tf::constant({1.f, 2.f, 3.f}), Shape::unknown());
        sess.run(ta.write(1, unknown).flow());
      },
      "TensorArray foo_0: Could not write to TensorArray index 1 because the value shape is [3] "
      "which is incompatible with the TensorArray's inferred element shape: [2] (consider "
      "setting infer_shape=False).",
      "TensorArrayWrite/TensorArrayWriteV3");

  // An unwritten slot of an array whose element shape is known reads as zeros.
  Output zeros = TensorArray(tf::float32, {.size = 2, .element_shape = Shape{2}}).read(1);
  CHECK(floats(sess.run(zeros)) == std::vector<float>{0, 0});
  Output scalar_zero = TensorArray(tf::float32, {.size = 2}).write(0, 1.f).read(1);
  CHECK(sess.run(scalar_zero).scalar<float>() == 0.f);
  Output some = TensorArray(tf::float32, {.size = 3, .element_shape = Shape{2}})
                    .write(1, Value{1.f, 2.f})
                    .gather(Value{0, 1});
  CHECK(floats(sess.run(some)) == std::vector<float>{0, 0, 1, 2});
  Output grown = TensorArray(tf::float32, {.size = 1, .dynamic_size = true}).write(3, 1.f).size();
  CHECK(sess.run(grown).scalar<std::int32_t>() == 4);
}

TEST_CASE("tensor_array: a size-0 array stacks to [0, ...] when its element shape is known") {
  tf::Graph g;
  auto guard = g.as_default();
  TensorArray ta(tf::float32, {.size = 0, .element_shape = Shape{2, 3}});
  Output s = ta.stack(), ga = ta.gather(tf::constant(Value(tf::int32, {0}))), c = ta.concat();
  CHECK(s.get_shape() == Shape{0, 2, 3});
  CHECK(ga.get_shape() == Shape{0, 2, 3});
  CHECK(c.get_shape() == Shape{0, 3});
  tf::Session sess(g);
  CHECK(sess.run(s).dims() == tf::Dims{0, 2, 3});
  CHECK(sess.run(ga).dims() == tf::Dims{0, 2, 3});
  CHECK(sess.run(c).dims() == tf::Dims{0, 3});
  Output unknown = TensorArray(tf::float32, {.size = 0}).stack();
  check_error<tf::UnimplementedError>(
      [&] { sess.run(unknown); },
      "TensorArray has size zero, but element shape <unknown> is not fully defined. Currently "
      "only static shapes are supported when packing zero-size TensorArrays.",
      "TensorArrayStack_1/TensorArrayGatherV3");
  Output unknown_concat = TensorArray(tf::float32, {.size = 0}).concat();
  check_error<tf::UnimplementedError>(
      [&] { sess.run(unknown_concat); },
      "TensorArray has size zero, but element_shape_except0 <unknown> is not fully defined. "
      "Currently only static shapes are supported when concatenating zero-size TensorArrays.",
      "TensorArrayConcatV3_1");
}

TEST_CASE("tensor_array: run-time errors, with TensorFlow's messages and the node") {
  tf::Graph g;
  auto guard = g.as_default();
  tf::Session sess(g);
  auto ta = [](int size) { return TensorArray(tf::float32, {.size = size}); };
  check_error<tf::InvalidArgumentError>(
      [&] { sess.run(ta(2).write(2, 1.f).flow()); },
      "TensorArray TensorArray_0: Tried to write to index 2 but array is not resizeable and "
      "size is: 2",
      "TensorArrayWrite/TensorArrayWriteV3");
  check_error<tf::InvalidArgumentError>([&] { sess.run(ta(2).write(0, 1.f).read(3)); },
                                        "Tried to read from index 3 but array size is: 2",
                                        "TensorArrayReadV3");
  check_error<tf::InvalidArgumentError>([&] { sess.run(ta(2).write(0, 1.f).read(-1)); },
                                        "Tried to read from index -1 but array size is: 2",
                                        "TensorArrayReadV3_1");
  check_error<tf::InvalidArgumentError>(
      [&] {
        sess.run(TensorArray(tf::float32, {.size = 2, .infer_shape = false}).write(0, 1.f).read(1));
      },
      "TensorArray TensorArray_3_0: Could not read from TensorArray index 1.  Furthermore, the "
      "element shape is not fully defined: <unknown>.  It is possible you are working with a "
      "resizeable TensorArray and stop_gradients is not allowing the gradients to be written.  "
      "If you set the full element_shape property on the forward TensorArray, the proper "
      "all-zeros tensor will be returned instead of incurring this error.",
      "TensorArrayReadV3_2");
  {
    TensorArray written = ta(2).write(0, 1.f);
    Output a = written.read(0);
    tf::control_dependencies deps({a.op()});
    Output b = written.read(0);
    check_error<tf::InvalidArgumentError>(
        [&] {
          sess.run(std::vector<Output>{a, b});
        },
        "TensorArray TensorArray_4_0: Could not read index 0 twice because it was cleared after a "
        "previous read (perhaps try setting clear_after_read = false?).",
        b.op().name());
  }
  {
    TensorArray kept =
        TensorArray(tf::float32, {.size = 2, .clear_after_read = false}).write(0, 1.f);
    Output a = kept.read(0);
    tf::control_dependencies deps({a.op()});
    Output b = kept.read(0);
    const std::vector<Value> both = sess.run(std::vector<Output>{a, b});
    CHECK(both[0].scalar<float>() == 1.f);
    CHECK(both[1].scalar<float>() == 1.f);
  }
  check_error<tf::InvalidArgumentError>(
      [&] { sess.run(ta(2).write(0, 1.f).write(0, 2.f).read(0)); },
      "TensorArray TensorArray_6_0: Could not write to TensorArray index 0 because it has already "
      "been written to.",
      "TensorArrayWrite_7/TensorArrayWriteV3");
  // TensorFlow only logs a dtype mismatch when it builds the write; the run refuses it.
  check_error<tf::InvalidArgumentError>(
      [&] { sess.run(ta(2).write(0, tf::constant(1)).flow()); },
      "TensorArray dtype is float but Op is trying to write dtype int32.",
      "TensorArrayWrite_8/TensorArrayWriteV3");
  {
    Output unknown = tf::placeholder_with_default(tf::constant({1.f, 2.f, 3.f}), Shape::unknown());
    check_error<tf::InvalidArgumentError>(
        [&] {
          sess.run(ta(2).write(0, Value{1.f, 2.f}).write(1, unknown).flow());
        },
        "TensorArray TensorArray_8_0: Could not write to TensorArray index 1 because the value "
        "shape is [3] which is incompatible with the TensorArray's inferred element shape: [2] "
        "(consider setting infer_shape=False).",
        "TensorArrayWrite_10/TensorArrayWriteV3");
    TensorArray loose = TensorArray(tf::float32, {.size = 2, .infer_shape = false})
                            .write(0, Value{1.f, 2.f})
                            .write(1, unknown);
    Output stacked = loose.stack();
    check_error<tf::InvalidArgumentError>(
        [&] { sess.run(stacked); },
        "TensorArray has inconsistent shapes.  Index 0 has shape: [2] but index 1 has shape: [3]",
        stacked.op().name());
    check_error<tf::InvalidArgumentError>(
        [&] {
          sess.run(ta(2)
                       .scatter(tf::constant({0}),
                                tf::placeholder_with_default(tf::constant(3.f), Shape::unknown()))
                       .flow());
        },
        "Input value for unpack must be at least a vector but received shape: []",
        "TensorArrayScatter/TensorArrayScatterV3");
  }
  check_error<tf::InvalidArgumentError>(
      [&] {
        sess.run(ta(2).scatter(Value{0, 5}, Value{{1.f}, {2.f}}).flow());
      },
      "Max scatter index must be < array size (5 vs. 2)",
      "TensorArrayScatter_1/TensorArrayScatterV3");
  check_error<tf::InvalidArgumentError>(
      [&] {
        sess.run(ta(2).split(Value{1.f, 2.f, 3.f}, Value{1, 1}).flow());
      },
      "Expected sum of lengths to be equal to values.shape[0], but sum of lengths is 2 and "
      "value's shape is: [3]",
      "TensorArraySplit/TensorArraySplitV3");
  check_error<tf::InvalidArgumentError>(
      [&] {
        sess.run(ta(2).split(Value{1.f, 2.f, 3.f}, Value{1, 1, 1}).flow());
      },
      "TensorArray's size is not equal to the size of lengths (2 vs. 3), and the TensorArray is "
      "not marked as dynamically resizeable",
      "TensorArraySplit_1/TensorArraySplitV3");
  check_error<tf::InvalidArgumentError>(
      [&] {
        sess.run(ta(2).split(Value{1.f, 2.f, 3.f}, Value{1, 2}).concat());
      },
      "TensorArray TensorArray_14_0: Could not write to TensorArray index 1 because the value "
      "shape "
      "is [2] which is incompatible with the TensorArray's inferred element shape: [1] "
      "(consider setting infer_shape=False).",
      "TensorArraySplit_2/TensorArraySplitV3");
  check_error<tf::InvalidArgumentError>(
      [&] {
        sess.run(ta(3).write(1, Value{1.f, 2.f}).gather(Value{1, 4}));
      },
      "Tried to read from index 4 but array size is: 3", "TensorArrayGatherV3");
  {
    TensorArray open = ta(3);
    tf::Operation closed = open.close();
    tf::control_dependencies deps({closed});
    Output after = open.write(0, 1.f).flow();
    check_error<tf::InvalidArgumentError>([&] { sess.run(after); },
                                          "TensorArray TensorArray_16_0 has already been closed.",
                                          after.op().name());
  }
}

TEST_CASE("tensor_array: build-time errors as TensorFlow raises them") {
  tf::Graph g;
  auto guard = g.as_default();
  auto ta = [](int size) { return TensorArray(tf::float32, {.size = size}); };
  CHECK_THROWS_WITH_AS(ta(2).write(0, Value{1.f, 2.f}).write(1, Value{1.f, 2.f, 3.f}),
                       "Inconsistent shapes: saw (3,) but expected (2,) ", tf::ValueError);
  CHECK_THROWS_WITH_AS(
      TensorArray(tf::float32, {.size = 2, .element_shape = Shape{3}}).write(0, Value{1.f, 2.f}),
      "Inconsistent shapes: saw (2,) but expected (3,) ", tf::ValueError);
  CHECK_THROWS_WITH_AS(TensorArray(tf::float32, {.size = 2, .element_shape = Shape{3}})
                           .scatter(Value{0, 1}, Value{{1.f, 2.f}, {3.f, 4.f}}),
                       "Inconsistent shapes: saw (2,) but expected (3,) ", tf::ValueError);
  CHECK_THROWS_WITH_AS(ta(2).write(tf::constant(0.f), 1.f),
                       doctest::Contains("Input 'index' of 'TensorArrayWriteV3' Op has type "
                                         "float32 that does not match expected type of int32."),
                       tf::TypeError);
  CHECK_THROWS_WITH_AS(ta(2).write(tf::constant(std::int64_t{0}), 1.f),
                       doctest::Contains("Input 'index' of 'TensorArrayWriteV3' Op has type "
                                         "int64 that does not match expected type of int32."),
                       tf::TypeError);
  CHECK_THROWS_WITH_AS(ta(2).read(tf::constant(std::int64_t{0})),
                       doctest::Contains("Input 'index' of 'TensorArrayReadV3' Op has type int64 "
                                         "that does not match expected type of int32."),
                       tf::TypeError);
  CHECK_THROWS_WITH_AS(TensorArray(tf::float32, {.size = tf::constant(2.f)}),
                       doctest::Contains("Input 'size' of 'TensorArrayV3' Op has type float32 "
                                         "that does not match expected type of int32."),
                       tf::TypeError);
  CHECK_THROWS_WITH_AS(ta(2).write(tf::constant({0}), 1.f),
                       doctest::Contains("Shape must be rank 0 but is rank 1"), tf::ValueError);
  CHECK_THROWS_WITH_AS(ta(3).scatter(Value{0, 1}, Value{{1.f}, {2.f}, {3.f}}),
                       doctest::Contains("Dimensions must be equal, but are 3 and 2"),
                       tf::ValueError);
  {
    tf::Graph fresh;
    auto fresh_guard = fresh.as_default();
    CHECK_THROWS_WITH_AS(ta(2).split(tf::constant({1, 2}), Value{1, 1}),
                         "value: Tensor conversion requested dtype float32 for Tensor with dtype "
                         "int32: <tf.Tensor 'Const:0' shape=(2,) dtype=int32>",
                         tf::ValueError);
  }
  // A float written to an int32 array stays a float (TensorFlow logs it): the run refuses it.
  TensorArray ints = TensorArray(tf::int32, {.size = 2}).write(0, 1.5f);
  CHECK(ints.flow().op().inputs().at(2).dtype() == tf::float32);
  tf::Session sess(g);
  check_error<tf::InvalidArgumentError>(
      [&] { sess.run(ints.flow()); },
      "TensorArray dtype is int32 but Op is trying to write dtype float.", ints.flow().op().name());
  CHECK_THROWS_WITH_AS(TensorArray(tf::float32, {}),
                       "Argument `size` must be provided if handle is not provided.",
                       tf::ValueError);
}

TEST_CASE("tensor_array: a while loop writes i*i and the array comes back from it") {
  tf::Graph g;
  auto guard = g.as_default();
  TensorArray ta(tf::int32, {.size = 5});
  auto [i, out] = tf::while_loop([](const Output& i, const TensorArray&) { return i < 5; },
                                 [](const Output& i, const TensorArray& t) {
                                   return std::tuple{i + 1, t.write(i, i * i)};
                                 },
                                 std::tuple{tf::constant(0), ta});
  static_assert(std::is_same_v<decltype(out), TensorArray>);
  CHECK(out.flow().name() == "while/Exit_1:0");
  CHECK(out.handle().name() == "TensorArray:0");
  CHECK(out.element_shape() == Shape{});  // the write in the body set it
  Output s = out.stack();
  CHECK(s.get_shape() == Shape{5});
  // The nodes TensorFlow builds (the loop's own nodes come in another order there).
  CHECK(sorted_names(g) ==
        std::vector<std::string>{"Const",
                                 "TensorArray",
                                 "TensorArray/size",
                                 "TensorArrayStack/Const",
                                 "TensorArrayStack/TensorArrayGatherV3",
                                 "TensorArrayStack/range",
                                 "TensorArrayStack/range/delta",
                                 "TensorArrayStack/range/start",
                                 "while/Enter",
                                 "while/Enter_1",
                                 "while/Exit",
                                 "while/Exit_1",
                                 "while/Identity",
                                 "while/Identity_1",
                                 "while/Less",
                                 "while/Less/y",
                                 "while/LoopCond",
                                 "while/Merge",
                                 "while/Merge_1",
                                 "while/NextIteration",
                                 "while/NextIteration_1",
                                 "while/Switch",
                                 "while/Switch_1",
                                 "while/TensorArrayWrite/TensorArrayWriteV3",
                                 "while/TensorArrayWrite/TensorArrayWriteV3/Enter",
                                 "while/add",
                                 "while/add/y",
                                 "while/mul"});
  CHECK(g.get_operation_by_name("while/TensorArrayWrite/TensorArrayWriteV3").type() ==
        "TensorArrayWriteV3");
  tf::Session sess(g);
  const std::vector<Value> got = sess.run(std::vector<Output>{s, i, ta.flow(), out.flow()});
  CHECK(got[0].to_vector<std::int32_t>() == std::vector<std::int32_t>{0, 1, 4, 9, 16});
  CHECK(got[1].scalar<std::int32_t>() == 5);
  CHECK(got[2].scalar<float>() == 0.f);
  CHECK(got[3].scalar<float>() == 0.f);
}

TEST_CASE("tensor_array: the dynamic_rnn pattern, an unstacked input read in a loop") {
  tf::Graph g;
  auto guard = g.as_default();
  std::vector<float> xs(12);
  for (std::size_t k = 0; k < xs.size(); ++k) xs[k] = static_cast<float>(k);
  Output x = tf::constant(Value::from_vector(xs, {3, 2, 2}), "x");
  TensorArray input_ta = TensorArray(tf::float32, {.size = 3}).unstack(x);
  TensorArray output_ta(tf::float32, {.size = 3});
  auto [t, o] = tf::while_loop([](const Output& t, const TensorArray&) { return t < 3; },
                               [&](const Output& t, const TensorArray& o) {
                                 Output xt = input_ta.read(t);
                                 return std::tuple{t + 1, o.write(t, tf::tanh(xt) * 2.f)};
                               },
                               std::tuple{tf::constant(0), output_ta});
  Output y = o.stack();
  CHECK(y.get_shape() == Shape{3, 2, 2});
  const std::vector<std::string> nodes = names_since(g);
  for (const char* node :
       {"while/TensorArrayReadV3:TensorArrayReadV3", "while/TensorArrayReadV3/Enter:Enter",
        "while/TensorArrayReadV3/Enter_1:Enter",
        "while/TensorArrayWrite/TensorArrayWriteV3:TensorArrayWriteV3",
        "while/TensorArrayWrite/TensorArrayWriteV3/Enter:Enter", "while/Tanh:Tanh",
        "TensorArrayStack/TensorArrayGatherV3:TensorArrayGatherV3"}) {
    CAPTURE(node);
    CHECK(std::count(nodes.begin(), nodes.end(), node) == 1);
  }
  tf::Session sess(g);
  const std::vector<float> want{0.0f,
                                1.5231883525848389f,
                                1.9280551671981812f,
                                1.9901094436645508f,
                                1.998658537864685f,
                                1.9998183250427246f,
                                1.9999754428863525f,
                                1.9999966621398926f,
                                2.0f,
                                2.0f,
                                2.0f,
                                2.0f};
  const std::vector<float> got = floats(sess.run(y));
  REQUIRE(got.size() == want.size());
  for (std::size_t k = 0; k < want.size(); ++k) CHECK(got[k] == doctest::Approx(want[k]));
}

TEST_CASE("tensor_array: a dynamic array grows in a loop") {
  tf::Graph g;
  auto guard = g.as_default();
  TensorArray ta(tf::float32, {.size = 0, .dynamic_size = true});
  auto [i, out] = tf::while_loop(
      [](const Output& i, const TensorArray&) { return i < 4; },
      [](const Output& i, const TensorArray& t) {
        return std::tuple{i + 1, t.write(i, tf::cast(i, tf::float32) * tf::constant({1.f, 2.f}))};
      },
      std::tuple{tf::constant(0), ta});
  Output s = out.stack();
  CHECK(s.get_shape() == Shape{-1, 2});
  tf::Session sess(g);
  const std::vector<Value> got = sess.run(std::vector<Output>{s, out.size()});
  CHECK(floats(got[0]) == std::vector<float>{0, 0, 1, 2, 2, 4, 3, 6});
  CHECK(got[1].scalar<std::int32_t>() == 4);
}

TEST_CASE("tensor_array: a cond branch returns a TensorArray of the array outside") {
  tf::Graph g;
  auto guard = g.as_default();
  Output p = tf::placeholder(tf::bool_, Shape{});
  TensorArray ta(tf::float32, {.size = 2});
  TensorArray r = tf::cond(
      p, [&] { return ta.write(0, 1.f); }, [&] { return ta.write(0, 2.f); });
  CHECK(r.handle().name() == "TensorArray:0");
  CHECK(r.flow().name() == "cond/Merge:0");
  CHECK(r.element_shape() == Shape{});
  Output first = r.read(0);
  tf::Session sess(g);
  CHECK(sess.run(first, {{p, Value(true)}}).scalar<float>() == 1.f);
  CHECK(sess.run(first, {{p, Value(false)}}).scalar<float>() == 2.f);
}

// What TensorFlow wrote (tf.io.write_graph, as text) for
//   x = tf.constant([[1., 2.], [3., 4.]], name="x")
//   y = tf.TensorArray(tf.float32, size=2).unstack(x).stack()
constexpr const char* kTensorFlowGraph =
    R"pb(node {
           name: "x"
           op: "Const"
           attr {
             key: "dtype"
             value { type: DT_FLOAT }
           }
           attr {
             key: "value"
             value {
               tensor {
                 dtype: DT_FLOAT
                 tensor_shape {
                   dim { size: 2 }
                   dim { size: 2 }
                 }
                 tensor_content: "\000\000\200?\000\000\000@\000\000@@\000\000\200@"
               }
             }
           }
         }
         node {
           name: "TensorArray/size"
           op: "Const"
           attr {
             key: "dtype"
             value { type: DT_INT32 }
           }
           attr {
             key: "value"
             value {
               tensor {
                 dtype: DT_INT32
                 tensor_shape {}
                 int_val: 2
               }
             }
           }
         }
         node {
           name: "TensorArray"
           op: "TensorArrayV3"
           input: "TensorArray/size"
           attr {
             key: "clear_after_read"
             value { b: true }
           }
           attr {
             key: "dtype"
             value { type: DT_FLOAT }
           }
           attr {
             key: "dynamic_size"
             value { b: false }
           }
           attr {
             key: "element_shape"
             value { shape { unknown_rank: true } }
           }
           attr {
             key: "identical_element_shapes"
             value { b: true }
           }
           attr {
             key: "tensor_array_name"
             value { s: "" }
           }
         }
         node {
           name: "TensorArrayUnstack/Shape"
           op: "Const"
           attr {
             key: "dtype"
             value { type: DT_INT32 }
           }
           attr {
             key: "value"
             value {
               tensor {
                 dtype: DT_INT32
                 tensor_shape { dim { size: 2 } }
                 tensor_content: "\002\000\000\000\002\000\000\000"
               }
             }
           }
         }
         node {
           name: "TensorArrayUnstack/strided_slice/stack"
           op: "Const"
           attr {
             key: "dtype"
             value { type: DT_INT32 }
           }
           attr {
             key: "value"
             value {
               tensor {
                 dtype: DT_INT32
                 tensor_shape { dim { size: 1 } }
                 int_val: 0
               }
             }
           }
         }
         node {
           name: "TensorArrayUnstack/strided_slice/stack_1"
           op: "Const"
           attr {
             key: "dtype"
             value { type: DT_INT32 }
           }
           attr {
             key: "value"
             value {
               tensor {
                 dtype: DT_INT32
                 tensor_shape { dim { size: 1 } }
                 int_val: 1
               }
             }
           }
         }
         node {
           name: "TensorArrayUnstack/strided_slice/stack_2"
           op: "Const"
           attr {
             key: "dtype"
             value { type: DT_INT32 }
           }
           attr {
             key: "value"
             value {
               tensor {
                 dtype: DT_INT32
                 tensor_shape { dim { size: 1 } }
                 int_val: 1
               }
             }
           }
         }
         node {
           name: "TensorArrayUnstack/strided_slice"
           op: "StridedSlice"
           input: "TensorArrayUnstack/Shape"
           input: "TensorArrayUnstack/strided_slice/stack"
           input: "TensorArrayUnstack/strided_slice/stack_1"
           input: "TensorArrayUnstack/strided_slice/stack_2"
           attr {
             key: "Index"
             value { type: DT_INT32 }
           }
           attr {
             key: "T"
             value { type: DT_INT32 }
           }
           attr {
             key: "begin_mask"
             value { i: 0 }
           }
           attr {
             key: "ellipsis_mask"
             value { i: 0 }
           }
           attr {
             key: "end_mask"
             value { i: 0 }
           }
           attr {
             key: "new_axis_mask"
             value { i: 0 }
           }
           attr {
             key: "shrink_axis_mask"
             value { i: 1 }
           }
         }
         node {
           name: "TensorArrayUnstack/range/start"
           op: "Const"
           attr {
             key: "dtype"
             value { type: DT_INT32 }
           }
           attr {
             key: "value"
             value {
               tensor {
                 dtype: DT_INT32
                 tensor_shape {}
                 int_val: 0
               }
             }
           }
         }
         node {
           name: "TensorArrayUnstack/range/delta"
           op: "Const"
           attr {
             key: "dtype"
             value { type: DT_INT32 }
           }
           attr {
             key: "value"
             value {
               tensor {
                 dtype: DT_INT32
                 tensor_shape {}
                 int_val: 1
               }
             }
           }
         }
         node {
           name: "TensorArrayUnstack/range"
           op: "Range"
           input: "TensorArrayUnstack/range/start"
           input: "TensorArrayUnstack/strided_slice"
           input: "TensorArrayUnstack/range/delta"
           attr {
             key: "Tidx"
             value { type: DT_INT32 }
           }
         }
         node {
           name: "TensorArrayUnstack/TensorArrayScatter/TensorArrayScatterV3"
           op: "TensorArrayScatterV3"
           input: "TensorArray"
           input: "TensorArrayUnstack/range"
           input: "x"
           input: "TensorArray:1"
           attr {
             key: "T"
             value { type: DT_FLOAT }
           }
           attr {
             key: "_class"
             value { list { s: "loc:@x" } }
           }
         }
         node {
           name: "TensorArrayStack/Const"
           op: "Const"
           attr {
             key: "_class"
             value { list { s: "loc:@TensorArray" } }
           }
           attr {
             key: "dtype"
             value { type: DT_INT32 }
           }
           attr {
             key: "value"
             value {
               tensor {
                 dtype: DT_INT32
                 tensor_shape {}
                 int_val: 2
               }
             }
           }
         }
         node {
           name: "TensorArrayStack/range/start"
           op: "Const"
           attr {
             key: "_class"
             value { list { s: "loc:@TensorArray" } }
           }
           attr {
             key: "dtype"
             value { type: DT_INT32 }
           }
           attr {
             key: "value"
             value {
               tensor {
                 dtype: DT_INT32
                 tensor_shape {}
                 int_val: 0
               }
             }
           }
         }
         node {
           name: "TensorArrayStack/range/delta"
           op: "Const"
           attr {
             key: "_class"
             value { list { s: "loc:@TensorArray" } }
           }
           attr {
             key: "dtype"
             value { type: DT_INT32 }
           }
           attr {
             key: "value"
             value {
               tensor {
                 dtype: DT_INT32
                 tensor_shape {}
                 int_val: 1
               }
             }
           }
         }
         node {
           name: "TensorArrayStack/range"
           op: "Range"
           input: "TensorArrayStack/range/start"
           input: "TensorArrayStack/Const"
           input: "TensorArrayStack/range/delta"
           attr {
             key: "Tidx"
             value { type: DT_INT32 }
           }
           attr {
             key: "_class"
             value { list { s: "loc:@TensorArray" } }
           }
         }
         node {
           name: "TensorArrayStack/TensorArrayGatherV3"
           op: "TensorArrayGatherV3"
           input: "TensorArray"
           input: "TensorArrayStack/range"
           input: "TensorArrayUnstack/TensorArrayScatter/TensorArrayScatterV3"
           attr {
             key: "_class"
             value { list { s: "loc:@TensorArray" } }
           }
           attr {
             key: "dtype"
             value { type: DT_FLOAT }
           }
           attr {
             key: "element_shape"
             value { shape { dim { size: 2 } } }
           }
         }
         versions { producer: 2474 }
    )pb";

TEST_CASE("tensor_array: GraphDefs that TensorFlow wrote import and run, and ours go back") {
  const std::filesystem::path dir = tf::test::fresh_dir("tensor_array_graph_def");
  {
    std::ofstream(dir / "tf_ta.pbtxt") << kTensorFlowGraph;
    tf::Graph g;
    auto guard = g.as_default();
    tf::import_graph_def(tf::read_graph((dir / "tf_ta.pbtxt").string()), {.name = ""});
    tf::Session sess(g);
    Output y = g.get_tensor_by_name("TensorArrayStack/TensorArrayGatherV3:0");
    CHECK(floats(sess.run(y)) == std::vector<float>{1, 2, 3, 4});
  }
  // The i*i loop, written as the binary GraphDef that TensorFlow reads (TensorFlow ran it
  // and printed [0 1 4 9 16]), read back and run here.
  tf::Graph g;
  {
    auto guard = g.as_default();
    auto [i, out] =
        tf::while_loop([](const Output& i, const TensorArray&) { return i < 5; },
                       [](const Output& i, const TensorArray& t) {
                         return std::tuple{i + 1, t.write(i, i * i)};
                       },
                       std::tuple{tf::constant(0), TensorArray(tf::int32, {.size = 5})});
    (void)i;
    (void)out.stack();
  }
  const std::string path = tf::write_graph(g.as_graph_def(), dir.string(), "loop.pb", false);
  tf::Graph back;
  auto guard = back.as_default();
  tf::import_graph_def(tf::read_graph(path), {.name = ""});
  const tf::Operation array = back.get_operation_by_name("TensorArray");
  CHECK(array.get_attr<bool>("identical_element_shapes"));
  CHECK(!array.get_attr<Shape>("element_shape").has_rank());
  tf::Session sess(back);
  Output squares = back.get_tensor_by_name("TensorArrayStack/TensorArrayGatherV3:0");
  CHECK(sess.run(squares).to_vector<std::int32_t>() == std::vector<std::int32_t>{0, 1, 4, 9, 16});
  // The imported array is a TensorArray again: its settings come from the op.
  TensorArray again = TensorArray::from_flow(back.get_tensor_by_name("while/Exit_1:0"));
  CHECK(again.dtype() == tf::int32);
  CHECK(again.handle().name() == "TensorArray:0");
  CHECK(sess.run(again.read(3)).scalar<std::int32_t>() == 9);
}

}  // namespace symflow_test_ops_tensor_array_test
