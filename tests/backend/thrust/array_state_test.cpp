// The Thrust backend's array and state kernels against the CPU's: each graph runs in a
// session with the GPU and in a CPU-only one; the ops under test must run on the GPU
// and give the CPU's results bit for bit (and fail with the CPU's messages).
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <tuple>
#include <vector>

#include <symflow/symflow.hpp>
#include <symflow/train/gradients.hpp>

#include "thrust_fixture.hpp"

namespace symflow_test_backend_thrust_array_state_test {

namespace tf = symflow;
using namespace tf::test::gpu;

namespace {

// Deterministic pseudo-random numbers of mixed signs and magnitudes.
std::uint32_t next(std::uint32_t& s) {
  s = s * 1664525u + 1013904223u;
  return s >> 8;
}
tf::Value floats(const tf::Dims& dims, std::uint32_t seed) {
  std::vector<float> v(static_cast<std::size_t>(tf::num_elements(dims)));
  for (float& x : v) {
    const float unit = static_cast<float>(next(seed) % 20001) / 10000.0f - 1.0f;
    x = unit * std::pow(10.0f, static_cast<float>(next(seed) % 7) - 3.0f);
  }
  return tf::Value::from_vector(v, dims);
}
tf::Value ints(const tf::Dims& dims, std::uint32_t seed, std::int64_t lo, std::int64_t hi) {
  std::vector<std::int32_t> v(static_cast<std::size_t>(tf::num_elements(dims)));
  for (auto& x : v) {
    const std::uint64_t r = (std::uint64_t{next(seed)} << 24) ^ next(seed);
    x = static_cast<std::int32_t>(
        lo + static_cast<std::int64_t>(r % static_cast<std::uint64_t>(hi - lo)));
  }
  return tf::Value::from_vector(v, dims);
}

// Runs `fetches` with and without the GPU: each fetched op ran on the GPU (and on
// the CPU in the CPU-only session), came back to the host, and equals the CPU's value.
void check_gpu_matches_cpu(const tf::Graph& g, const std::vector<tf::Output>& fetches,
                           const tf::FeedDict& feeds = {}) {
  const GpuAndCpu v = run_on_gpu_and_cpu(g, fetches, feeds);
  for (std::size_t i = 0; i < fetches.size(); ++i) {
    INFO("fetch " << fetches[i].op().name() << " (" << fetches[i].op().type() << ")");
    CHECK(v.gpu[i].dims() == v.cpu[i].dims());
    CHECK(v.gpu[i] == v.cpu[i]);
  }
}

// The first op of `type` in g.
tf::Operation op_of_type(const tf::Graph& g, const std::string& type) {
  for (const tf::Operation& op : g.get_operations())
    if (op.type() == type) return op;
  FAIL("no op of type " << type);
  return g.get_operations().front();
}

}  // namespace

TEST_CASE("thrust/array: reshapes and shape ops run on the GPU and match the CPU") {
  tf::Graph g;
  auto guard = g.as_default();
  auto x = tf::constant(floats({2, 3, 4}, 1), "x");
  auto y = tf::constant(floats({4, 6}, 2), "y");
  std::vector<tf::Output> fetches{
      tf::reshape(x, tf::Dims{4, -1}, "reshape"),
      tf::reshape(x, tf::shape(y, tf::DType::int64, "shape_y"), "reshape_like"),
      tf::expand_dims(x, -2, "expand"),
      tf::squeeze(tf::expand_dims(x, 0, "e0"), {}, "squeeze"),
      tf::shape(x, tf::DType::int32, "shape32"),
      tf::shape(x, tf::DType::int64, "shape64"),
      tf::size(x, tf::DType::int64, "size"),
      tf::rank(x, "rank"),
  };
  check_gpu_matches_cpu(g, fetches);
  tf::Session sess(g);
  CHECK(sess.run(fetches[0]).dims() == tf::Dims{4, 6});
  CHECK(sess.run(fetches[5]).to_vector<std::int64_t>() == std::vector<std::int64_t>{2, 3, 4});
}

TEST_CASE("thrust/array: BroadcastTo, Tile and Transpose over several dtypes") {
  tf::Graph g;
  auto guard = g.as_default();
  auto f = tf::constant(floats({3, 1, 4}, 3), "f");
  auto i = tf::constant(ints({2, 3, 4}, 4, -100, 100), "i");
  auto b = tf::constant(tf::Value{{true, false, true}, {false, false, true}}, "b");
  auto d = tf::constant(floats({2, 3, 4, 5}, 5).astype(tf::DType::float64), "d");
  std::vector<tf::Output> fetches{
      tf::broadcast_to(f, tf::Dims{2, 3, 5, 4}, "bcast"),
      tf::broadcast_to(b, tf::Dims{2, 2, 3}, "bcast_bool"),
      tf::tile(i, tf::Dims{2, 1, 3}, "tile"),
      tf::tile(b, tf::Dims{3, 2}, "tile_bool"),
      tf::transpose(d, tf::Value{3, 1, 0, 2}, "transpose"),
      tf::transpose(i, std::nullopt, "reverse"),
      tf::invert_permutation(tf::Value{2, 4, 0, 3, 1}, "invert"),
  };
  check_gpu_matches_cpu(g, fetches);
}

TEST_CASE("thrust/array: Concat, Pack, Unpack, Split and SplitV") {
  tf::Graph g;
  auto guard = g.as_default();
  auto a = tf::constant(floats({2, 3, 4}, 6), "a");
  auto b = tf::constant(floats({2, 5, 4}, 7), "b");
  auto c = tf::constant(floats({2, 1, 4}, 8), "c");
  auto u = tf::constant(ints({3, 4}, 9, 0, 255).astype(tf::DType::uint8), "u");
  auto v = tf::constant(ints({3, 4}, 10, 0, 255).astype(tf::DType::uint8), "v");
  std::vector<tf::Output> fetches{
      tf::concat({a, b, c}, 1, "concat1"), tf::concat({a, a}, -1, "concat_last"),
      tf::concat({u, v}, 0, "concat_u8"),  tf::stack({u, v, u}, 1, "stack"),
      tf::stack({a, a}, -1, "stack_last"),
  };
  for (const tf::Output& o : tf::unstack(a, std::nullopt, 2)) fetches.push_back(o);
  for (const tf::Output& o : tf::split(b, 2, 0)) fetches.push_back(o);
  for (const tf::Output& o : tf::split(a, 2, 2)) fetches.push_back(o);
  for (const tf::Output& o : tf::split(b, tf::Dims{2, -1, 1}, 1)) fetches.push_back(o);
  check_gpu_matches_cpu(g, fetches);
}

TEST_CASE("thrust/array: Slice and StridedSlice, with masks and negative strides") {
  tf::Graph g;
  auto guard = g.as_default();
  auto x = tf::constant(floats({4, 5, 6}, 11), "x");
  tf::StridedSliceOptions shrink;
  shrink.shrink_axis_mask = 1;
  shrink.new_axis_mask = 4;
  tf::StridedSliceOptions ellipsis;
  ellipsis.ellipsis_mask = 1;
  ellipsis.end_mask = 2;
  std::vector<tf::Output> fetches{
      tf::slice(x, tf::Value{1, 0, 2}, tf::Value{2, -1, 3}, "slice"),
      tf::strided_slice(x, tf::Value{3, 1, 5}, tf::Value{0, 5, 0}, tf::Value{-1, 2, -2}, {}),
      tf::strided_slice(x, tf::Value{2, 1, 0}, tf::Value{3, 4, 0}, tf::Value{1, 1, 1}, shrink),
      tf::strided_slice(x, tf::Value{0, 1}, tf::Value{0, 0}, tf::Value{1, 3}, ellipsis),
  };
  check_gpu_matches_cpu(g, fetches);
}

TEST_CASE(
    "thrust/array: the gradient helpers ConcatOffset, StridedSliceGrad and "
    "BroadcastGradientArgs") {
  tf::Graph g;
  auto guard = g.as_default();
  auto a = tf::constant(floats({2, 3}, 12), "a");
  auto b = tf::constant(floats({2, 4}, 13), "b");
  auto x = tf::constant(floats({5, 6}, 14), "x");
  auto cat = tf::concat({a, b}, 1, "cat");
  auto sl = tf::strided_slice(x, tf::Value{4, 0}, tf::Value{0, 6}, tf::Value{-2, 3}, {});
  auto grads = tf::gradients({cat, sl}, {a, b, x});
  auto args = tf::broadcast_gradient_args(tf::constant(tf::Value{2, 1, 3}, "s0"),
                                          tf::constant(tf::Value{4, 1}, "s1"), "bga");
  tf::Operation offsets = op_of_type(g, "ConcatOffset");
  tf::Operation sgrad = op_of_type(g, "StridedSliceGrad");
  std::vector<tf::Output> fetches{offsets.output(0), offsets.output(1), sgrad.output(0), args.first,
                                  args.second};
  check_gpu_matches_cpu(g, fetches);
  tf::Session sess(g);
  CHECK(sess.run(offsets.output(1)).to_vector<std::int32_t>() == std::vector<std::int32_t>{0, 3});
  CHECK(sess.run(args.first).to_vector<std::int32_t>() == std::vector<std::int32_t>{1});
  CHECK(sess.run(args.second).to_vector<std::int32_t>() == std::vector<std::int32_t>{0, 2});
  // The gradients themselves, wherever their other ops run, equal the CPU's.
  std::vector<tf::Fetch> gf(grads.begin(), grads.end());
  tf::Session cpu(g, cpu_only());
  std::vector<tf::Value> on_gpu = sess.run(gf), on_cpu = cpu.run(gf);
  for (std::size_t i = 0; i < grads.size(); ++i) CHECK(on_gpu[i] == on_cpu[i]);
}

TEST_CASE("thrust/array: GatherV2 and UnsortedSegmentSum (deterministic, the CPU's order)") {
  tf::Graph g;
  auto guard = g.as_default();
  auto params = tf::constant(floats({6, 4, 3}, 15), "params");
  auto idx64 =
      tf::constant(tf::Value::from_vector(std::vector<std::int64_t>{3, 0, 3, 2}, {2, 2}), "idx64");
  // Many rows into few segments, with magnitudes that make the order of additions show.
  auto data = tf::constant(floats({1000, 3}, 16), "data");
  auto ids = tf::constant(ints({1000}, 17, -1, 7), "ids");
  auto idata = tf::constant(ints({10, 2}, 18, -1000000000, 1000000000), "idata");
  std::vector<tf::Output> fetches{
      tf::gather(params, tf::Value{3, 1, 1}, 0, "gather0"),
      tf::gather(params, idx64, 1, "gather1"),
      tf::gather(params, tf::Value{2, 0}, -1, "gather_last"),
      tf::unsorted_segment_sum(data, ids, 9, "segsum"),
      tf::unsorted_segment_sum(idata, tf::Value{0, 1, 0, 1, 0, 1, 0, 1, 0, 0}, 3, "segsum_int"),
  };
  check_gpu_matches_cpu(g, fetches);
}

TEST_CASE("thrust/array: Pad, PadV2, OneHot, Range and Where") {
  tf::Graph g;
  auto guard = g.as_default();
  auto x = tf::constant(floats({3, 4}, 19), "x");
  auto i = tf::constant(ints({2, 3}, 20, -100, 100), "i");
  auto hot = tf::constant(tf::Value{{0, 3, -1}, {2, 5, 1}}, "hot");
  auto hot64 = tf::constant(tf::Value::from_vector(std::vector<std::int64_t>{4, 0, 2}, {3}), "h64");
  tf::Value sparse = floats({3, 4, 5}, 21);
  for (std::int64_t k = 0; k < sparse.size(); k += 2) sparse.data<float>()[k] = 0.0f;
  auto s = tf::constant(sparse, "sparse");
  auto flags = tf::constant(tf::Value{{true, false}, {false, true}, {true, true}}, "flags");
  tf::OneHotOptions axis0;
  axis0.axis = 0;
  axis0.on_value = tf::Value(2.5);
  axis0.off_value = tf::Value(-1.0);
  std::vector<tf::Output> fetches{
      tf::pad(x, {{1, 2}, {0, 3}}, "pad"),
      tf::pad(x, {{0, 1}, {2, 1}}, tf::Value(7.5f), "padv2"),
      tf::pad(i, {{2, 0}, {1, 1}}, tf::Value(std::int32_t{-9}), "padv2_int"),
      tf::one_hot(hot, 4),
      tf::one_hot(hot64, 5, axis0),
      tf::range(3, 1000, 7),
      tf::range(tf::Value(std::int64_t{40}), tf::Value(std::int64_t{-7}),
                tf::Value(std::int64_t{-3})),
      tf::range(0.0f, 100.0f, 0.1f),
      tf::range(-1.0, 3.0, 0.3),
      tf::where(s),
      tf::where(flags),
  };
  check_gpu_matches_cpu(g, fetches);
}

TEST_CASE("thrust/array: run-time errors are the CPU's") {
  tf::Graph g;
  auto guard = g.as_default();
  auto x = tf::constant(floats({2, 3}, 22), "x");
  auto bad_shape = tf::placeholder(tf::DType::int32, tf::Shape{2}, "bad_shape");
  auto reshaped = tf::reshape(x, bad_shape, "reshaped");
  auto ids = tf::placeholder(tf::DType::int32, tf::Shape{2}, "ids");
  auto gathered = tf::gather(x, ids, 0, "gathered");
  auto segs = tf::unsorted_segment_sum(x, ids, 2, "segs");
  {
    tf::Session gpu(g);
    tf::Session cpu(g, cpu_only());
    const tf::FeedDict shape_feed{{bad_shape, tf::Value{4, 2}}};
    CHECK(gpu.device_of(reshaped.op()) == kGpu);
    std::string on_gpu, on_cpu;
    try {
      gpu.run(reshaped, shape_feed);
    } catch (const tf::InvalidArgumentError& e) {
      on_gpu = e.what();
    }
    try {
      cpu.run(reshaped, shape_feed);
    } catch (const tf::InvalidArgumentError& e) {
      on_cpu = e.what();
    }
    CHECK(
        on_gpu.find("Input to reshape is a tensor with 6 values, but the requested shape has 8") !=
        std::string::npos);
    CHECK(on_gpu == on_cpu);
    const tf::FeedDict id_feed{{ids, tf::Value{1, 2}}};
    for (const tf::Output& o : {gathered, segs}) {
      CHECK(gpu.device_of(o.op()) == kGpu);
      std::string a, b;
      try {
        gpu.run(o, id_feed);
      } catch (const tf::InvalidArgumentError& e) {
        a = e.what();
      }
      try {
        cpu.run(o, id_feed);
      } catch (const tf::InvalidArgumentError& e) {
        b = e.what();
      }
      CHECK(a.find("2 is") != std::string::npos);
      CHECK(a == b);
    }
  }
  auto multiples = tf::placeholder(tf::DType::int32, tf::Shape{2}, "multiples");
  check_same_error(tf::tile(x, multiples, "tile"), "Expected multiples[1] >= 0, but got -1",
                   {{multiples, tf::Value{1, -1}}});
  check_same_error(tf::transpose(x, tf::Value{0, 0}, "transpose"), "1 is missing from {0,0}.");
  auto delta = tf::placeholder(tf::DType::int32, tf::Shape{}, "delta");
  check_same_error(tf::range(1, 5, delta), "Requires start >= limit when delta < 0: 1/5",
                   {{delta, tf::Value(-1)}});
}

TEST_CASE("thrust/array: copies of more than 8 dims that cannot merge are UnimplementedError") {
  tf::Graph g;
  auto guard = g.as_default();
  tf::Dims nine(9, 2);
  auto x = tf::constant(floats(nine, 23), "x");
  // A slice over full dims merges into few: it runs, and matches the CPU.
  tf::Value begin = tf::Value::from_vector(std::vector<std::int32_t>(9, 0), {9});
  std::vector<std::int32_t> sizes(9, -1);
  sizes[0] = 1;
  auto part = tf::slice(x, begin, tf::Value::from_vector(sizes, {9}), "part");
  check_gpu_matches_cpu(g, {part});
  // A full reversal of 9 dims merges nothing.
  std::vector<std::int32_t> perm{8, 7, 6, 5, 4, 3, 2, 1, 0};
  auto t = tf::transpose(x, tf::Value::from_vector(perm, {9}), "t");
  tf::Session gpu(g);
  CHECK_THROWS_WITH_AS(gpu.run(t),
                       doctest::Contains("Transpose on the GPU supports tensors of at most 8 "
                                         "dimensions, got 9"),
                       tf::UnimplementedError);
  tf::Session cpu(g, cpu_only());
  CHECK(cpu.run(t).dims() == nine);
}

TEST_CASE("thrust/state: AssignAdd, AssignSub and the Scatter updates run on the GPU") {
  auto build = [](tf::Graph& g) {
    auto guard = g.as_default();
    tf::Variable v(tf::constant(floats({5, 3}, 24)), {.name = "v"});
    tf::Variable n(tf::constant(ints({4, 2}, 25, -5, 5)), {.name = "n"});
    std::vector<tf::Output> steps{
        tf::assign_add(v, tf::constant(floats({5, 3}, 26)), false, "add"),
        tf::assign_sub(v, tf::constant(floats({5, 3}, 27)), false, "sub"),
        // Duplicate rows: the last update wins, and adds accumulate in order.
        tf::scatter_update(v, tf::Value{4, 1, 4}, tf::constant(floats({3, 3}, 28)), true, "upd"),
        tf::scatter_add(v, tf::Value{0, 2, 0, 0}, tf::constant(floats({4, 3}, 29)), false, "sadd"),
        tf::scatter_sub(v, tf::Value::from_vector(std::vector<std::int64_t>{3, 3}, {2}),
                        tf::constant(floats({2, 3}, 30)), false, "ssub"),
        tf::assign_add(n, tf::Value{{2147483647, 1}, {3, 4}, {5, 6}, {7, 8}}, false, "nadd"),
        tf::scatter_add(n, tf::Value{0, 0}, tf::Value{{2147483647, 0}, {1, 0}}, false, "nsadd"),
    };
    return std::tuple{v, n, steps};
  };
  tf::Graph g;
  auto [v, n, steps] = build(g);
  tf::Session gpu(g);
  tf::Session cpu(g, cpu_only());
  for (tf::Session* s : {&gpu, &cpu}) {
    s->run(v.initializer());
    s->run(n.initializer());
  }
  for (const tf::Output& step : steps) {
    INFO(step.op().name());
    CHECK(gpu.device_of(step.op()) == kGpu);
    CHECK(cpu.device_of(step.op()) == kCpu);
    // Each update twice: the second one sees the first one's result.
    for (int k = 0; k < 2; ++k) {
      tf::Value a = gpu.run(step), b = cpu.run(step);
      CHECK(a == b);
    }
    CHECK(gpu.run(v) == cpu.run(v));
    CHECK(gpu.run(n) == cpu.run(n));
  }
  CHECK(gpu.device_of(v.op()) == kGpu);
}

TEST_CASE("thrust/state: an update leaves values read before it as they were") {
  tf::Graph g;
  auto guard = g.as_default();
  tf::Variable v(tf::Value{1.0f, 2.0f, 3.0f}, {.name = "v"});
  // The reshape shares the variable's device buffer; the updates run after it.
  auto before = tf::reshape(v, tf::Dims{3, 1}, "before");
  tf::Output bumped, scattered;
  {
    tf::control_dependencies deps{before};
    bumped = tf::assign_add(v, tf::Value{10.0f, 10.0f, 10.0f}, false, "bump");
  }
  auto before2 = tf::reshape(bumped, tf::Dims{3, 1}, "before2");
  {
    tf::control_dependencies deps{before2};
    scattered = tf::scatter_update(v, tf::Value{1}, tf::Value{-1.0f}, true, "scatter");
  }
  tf::Session sess(g);
  sess.run(v.initializer());
  CHECK(sess.device_of(bumped.op()) == kGpu);
  CHECK(sess.device_of(before.op()) == kGpu);
  std::vector<tf::Value> r = sess.run({before, before2, scattered});
  CHECK(r[0].to_vector<float>() == std::vector<float>{1.0f, 2.0f, 3.0f});
  CHECK(r[1].to_vector<float>() == std::vector<float>{11.0f, 12.0f, 13.0f});
  CHECK(r[2].to_vector<float>() == std::vector<float>{11.0f, -1.0f, 13.0f});
  // With no reader holding it, the next update writes the variable in place: same result.
  CHECK(sess.run(tf::assign_add(v, tf::Value{1.0f, 1.0f, 1.0f})).to_vector<float>() ==
        std::vector<float>{12.0f, 0.0f, 14.0f});
}

TEST_CASE("thrust/state: update errors are the CPU's") {
  tf::Graph g;
  auto guard = g.as_default();
  tf::Variable v(tf::constant(floats({4, 2}, 31)), {.name = "v"});
  auto ids = tf::placeholder(tf::DType::int32, tf::Shape{2}, "ids");
  auto upd = tf::scatter_add(v, ids, tf::constant(floats({2, 2}, 32)), false, "upd");
  tf::Variable fresh(tf::Value{1.0f}, {.name = "fresh"});
  auto early = tf::assign_add(fresh, tf::Value{1.0f}, false, "early");
  tf::Session gpu(g);
  tf::Session cpu(g, cpu_only());
  for (tf::Session* s : {&gpu, &cpu}) s->run(v.initializer());
  CHECK(gpu.device_of(upd.op()) == kGpu);
  std::string a, b;
  try {
    gpu.run(upd, {{ids, tf::Value{1, 4}}});
  } catch (const tf::InvalidArgumentError& e) {
    a = e.what();
  }
  try {
    cpu.run(upd, {{ids, tf::Value{1, 4}}});
  } catch (const tf::InvalidArgumentError& e) {
    b = e.what();
  }
  CHECK(a.find("indices[1] = 4 is not in [0, 4)") != std::string::npos);
  CHECK(a == b);
  // Nothing was written: the variable is as it was on both devices.
  CHECK(gpu.run(v) == cpu.run(v));
  CHECK_THROWS_WITH_AS(gpu.run(early), doctest::Contains("Attempting to use uninitialized value"),
                       tf::FailedPreconditionError);
  CHECK(gpu.device_of(early.op()) == kGpu);
}

}  // namespace symflow_test_backend_thrust_array_state_test
