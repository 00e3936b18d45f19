// Session::run against TensorFlow 1.x (tf.compat.v1 in TensorFlow 2.21, graph mode): an
// empty graph, feed keys that are not tensors, integers that do not fit the fed tensor,
// tensors the graph forbids to feed or fetch, and structured fetches.
#include <doctest/doctest.h>

#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include <symflow/symflow.hpp>

namespace symflow_test_runtime_session_conformance_test {

namespace tf = symflow;

constexpr const char* kEmptyGraph =
    "The Session graph is empty. Add operations to the graph before calling run().";

TEST_CASE("session_conformance: a session on an empty graph refuses every run") {
  tf::Session sess{tf::Graph()};
  // TF: tf.Session(graph=tf.Graph()).run([]), .run("a:0"), .run(()) raise RuntimeError.
  CHECK_THROWS_WITH_AS(sess.run(std::vector<tf::Fetch>{}), kEmptyGraph, tf::RuntimeError);
  CHECK_THROWS_WITH_AS(sess.run("a:0"), kEmptyGraph, tf::RuntimeError);
  CHECK_THROWS_WITH_AS(sess.run(std::vector<tf::Fetch>{"a"}), kEmptyGraph, tf::RuntimeError);
  CHECK_THROWS_WITH_AS(sess.run(std::tuple<>{}), kEmptyGraph, tf::RuntimeError);
  CHECK_THROWS_WITH_AS(sess.run(std::vector<tf::Fetch>{}, {{"x:0", tf::Value(1)}}), kEmptyGraph,
                       tf::RuntimeError);
  // A graph with an op runs an empty fetch list: TF's s.run([]) gives [].
  tf::Graph other;
  {
    auto guard = other.as_default();
    tf::constant(1.0f, "other");
  }
  tf::Session full{other};
  CHECK(full.run(std::vector<tf::Fetch>{}).empty());
  CHECK_THROWS_WITH_AS(full.run("nothing:0"), doctest::Contains("'nothing'"), tf::ValueError);
}

TEST_CASE("session_conformance: feeds are checked before fetches, as TensorFlow checks them") {
  tf::Graph g;
  auto guard = g.as_default();
  auto a = tf::placeholder<float>({2}, "a");
  auto b = tf::multiply(a, a, "b");
  tf::Session sess(g);
  // TF: s.run("nope:0", {"a": [1., 2.]}) and s.run("nope:0", {"a:0": [1., 2., 3.]}) (the
  // second in TensorFlow 1.x's words, which quote the name and the shape)
  CHECK_THROWS_WITH_AS(sess.run("nope:0", {{"a", tf::Value{1.0f, 2.0f}}}),
                       doctest::Contains("Cannot interpret feed_dict key as Tensor: The name 'a' "
                                         "refers to an Operation, not a Tensor."),
                       tf::TypeError);
  CHECK_THROWS_WITH_AS(sess.run("nope:0", {{"a:0", tf::Value{1.0f, 2.0f, 3.0f}}}),
                       "Cannot feed value of shape (3,) for Tensor 'a:0', which has shape '(2,)'",
                       tf::ValueError);
  // A good feed: the fetch's error.
  CHECK_THROWS_WITH_AS(sess.run("nope:0", {{"a:0", tf::Value{1.0f, 2.0f}}}),
                       doctest::Contains("Fetch argument 'nope:0' cannot be interpreted"),
                       tf::ValueError);
  CHECK(sess.run(b, {{"a:0", tf::Value{1.0f, 2.0f}}}) == tf::Value{1.0f, 4.0f});
}

TEST_CASE("session_conformance: a feed key must name a tensor") {
  tf::Graph g;
  auto guard = g.as_default();
  auto a = tf::placeholder<std::int32_t>({}, "a");
  auto b = tf::identity(a, "b");
  tf::Session sess(g);
  CHECK(sess.run(b, {{"a:0", tf::Value(4)}}).scalar<std::int32_t>() == 4);
  // TF: s.run(b, {"a": 1})
  CHECK_THROWS_WITH_AS(
      sess.run(b, {{"a", tf::Value(1)}}),
      "Cannot interpret feed_dict key as Tensor: The name 'a' refers to an Operation, not a "
      "Tensor. Tensor names must be of the form \"<op_name>:<output_index>\".",
      tf::TypeError);
  // TF: s.run(b, {"zz:0": 1}) and s.run(b, {"a:3": 1})
  CHECK_THROWS_WITH_AS(sess.run(b, {{"zz:0", tf::Value(1)}}),
                       "Cannot interpret feed_dict key as Tensor: The name 'zz:0' refers to a "
                       "Tensor which does not exist. The operation, 'zz', does not exist in the "
                       "graph.",
                       tf::TypeError);
  CHECK_THROWS_WITH_AS(sess.run(b, {{"a:3", tf::Value(1)}}),
                       "Cannot interpret feed_dict key as Tensor: The name 'a:3' refers to a "
                       "Tensor which does not exist. The operation, 'a', exists but only has 1 "
                       "outputs.",
                       tf::TypeError);
  // The same through a list of fetches (a signature with its own plan).
  CHECK_THROWS_AS(sess.run(std::vector<tf::Fetch>{b}, {{"a", tf::Value(1)}}), tf::TypeError);
}

TEST_CASE("session_conformance: an integer scalar that the fed tensor cannot hold is a TypeError") {
  tf::Graph g;
  auto guard = g.as_default();
  auto i = tf::placeholder<std::int32_t>({}, "i");
  auto u = tf::placeholder<std::uint8_t>(tf::Shape(), "u");
  auto flag = tf::placeholder<bool>(tf::Shape(), "flag");
  auto f = tf::placeholder<float>(tf::Shape(), "f");
  tf::Session sess(g);
  // TF: s.run(i, {i: 2**40}) -> "Type of feed value 1099511627776 with type <class 'int'> is not
  // compatible with Tensor type <class 'numpy.int32'>. ..."; symflow names the dtypes.
  CHECK_THROWS_WITH_AS(
      sess.run(i, {{tf::Output(i), tf::Value(std::int64_t{1} << 40)}}),
      "Type of feed value 1099511627776 with type int64 is not compatible with Tensor type int32. "
      "Try explicitly setting the type of the feed tensor to a larger type (e.g. int64).",
      tf::TypeError);
  // TF: -2**31 - 1 fails too; 2**31 - 1 fits.
  CHECK_THROWS_WITH_AS(sess.run(i, {{tf::Output(i), tf::Value(std::int64_t{-2147483649})}}),
                       doctest::Contains("feed value -2147483649 with type int64"), tf::TypeError);
  CHECK(
      sess.run(i, {{tf::Output(i), tf::Value(std::int64_t{2147483647})}}).scalar<std::int32_t>() ==
      2147483647);
  // TF: u <- 300 and u <- -1 fail; u <- [300] wraps to [44].
  CHECK_THROWS_WITH_AS(sess.run(u, {{tf::Output(u), tf::Value(300)}}),
                       doctest::Contains("feed value 300 with type int32 is not compatible with "
                                         "Tensor type uint8"),
                       tf::TypeError);
  CHECK_THROWS_AS(sess.run(u, {{tf::Output(u), tf::Value(-1)}}), tf::TypeError);
  auto any_u = tf::placeholder<std::uint8_t>(tf::Shape::unknown(), "any_u");
  CHECK(sess.run(any_u, {{tf::Output(any_u), tf::Value{300}}}).to_vector<std::uint8_t>() ==
        std::vector<std::uint8_t>{44});
  // TF: flag <- 5 fails, flag <- 1 is True.
  CHECK_THROWS_WITH_AS(sess.run(flag, {{tf::Output(flag), tf::Value(5)}}),
                       doctest::Contains("feed value 5 with type int32 is not compatible with "
                                         "Tensor type bool"),
                       tf::TypeError);
  CHECK(sess.run(flag, {{tf::Output(flag), tf::Value(1)}}).scalar<bool>());
  // TF: f <- 2**24 + 1 feeds 16777216.0 (a float tensor takes any integer).
  CHECK(sess.run(f, {{tf::Output(f), tf::Value(std::int64_t{16777217})}}).scalar<float>() ==
        16777216.0f);
  // TF: i <- 2.5 truncates to 2.
  CHECK(sess.run(i, {{tf::Output(i), tf::Value(2.5)}}).scalar<std::int32_t>() == 2);
  // The check holds on a cached plan too.
  CHECK_THROWS_AS(sess.run(i, {{tf::Output(i), tf::Value(std::int64_t{1} << 40)}}), tf::TypeError);
}

TEST_CASE("session_conformance: prevent_feeding and prevent_fetching") {
  tf::Graph g;
  auto guard = g.as_default();
  auto a = tf::placeholder<std::int32_t>({}, "a");
  auto b = tf::identity(a, "b");
  auto c = tf::constant({1.0f, 2.0f}, "c");
  tf::Session sess(g);
  CHECK(g.is_feedable(a));
  CHECK(g.is_fetchable(b));
  // A plan made before the mark: its signature is refused too.
  CHECK(sess.run(b, {{tf::Output(a), tf::Value(2)}}).scalar<std::int32_t>() == 2);
  g.prevent_feeding(a);
  // TF: is_feedable(a), is_feedable(b), is_fetchable(b), is_fetchable(b.op)
  CHECK_FALSE(g.is_feedable(a));
  CHECK(g.is_feedable(b));
  CHECK(g.is_fetchable(b));
  CHECK(g.is_fetchable(b.op()));
  CHECK_THROWS_WITH_AS(sess.run(b, {{tf::Output(a), tf::Value(1)}}), "Tensor a:0 may not be fed.",
                       tf::ValueError);
  CHECK_THROWS_WITH_AS(sess.run(b, {{"a:0", tf::Value(1)}}), "Tensor a:0 may not be fed.",
                       tf::ValueError);
  // b can still be fed.
  CHECK(sess.run(b, {{tf::Output(b), tf::Value(3)}}).scalar<std::int32_t>() == 3);

  g.prevent_fetching(b.op());
  CHECK_FALSE(g.is_fetchable(b));
  CHECK_FALSE(g.is_fetchable(b.op()));
  const std::string not_fetchable =
      "Operation b has been marked as not fetchable. Typically this happens when it is defined "
      "in another function or code block. Use return values, explicit Python locals or "
      "TensorFlow collections to access it.";
  // TF: s.run(b), s.run(b.op), s.run("b:0") raise InaccessibleTensorError (a ValueError).
  CHECK_THROWS_WITH_AS(sess.run(std::vector<tf::Fetch>{b}), not_fetchable.c_str(),
                       tf::InaccessibleTensorError);
  CHECK_THROWS_WITH_AS(sess.run(b.op()), not_fetchable.c_str(), tf::InaccessibleTensorError);
  // The signature that fed b above has a plan; it is refused all the same.
  CHECK_THROWS_WITH_AS(sess.run(b, {{tf::Output(b), tf::Value(3)}}), not_fetchable.c_str(),
                       tf::InaccessibleTensorError);
  CHECK_THROWS_WITH_AS(sess.run("b:0"), not_fetchable.c_str(), tf::ValueError);
  // TF: s.run([c, b.op]) fails too; a target is a fetch in TensorFlow's client.
  CHECK_THROWS_AS(sess.run({c, b.op()}), tf::InaccessibleTensorError);
  CHECK_THROWS_AS(sess.run({c}, {}, {b.op()}), tf::InaccessibleTensorError);
  CHECK(sess.run(c).to_vector<float>() == std::vector<float>{1, 2});

  // Handles of another graph or empty ones are refused (TensorFlow keeps any object).
  tf::Graph other;
  CHECK_THROWS_WITH_AS(other.prevent_feeding(a),
                       doctest::Contains("is not an element of this graph"), tf::ValueError);
  CHECK_THROWS_AS(other.is_fetchable(b.op()), tf::ValueError);
  CHECK_THROWS_AS(g.is_feedable(tf::Output()), tf::ValueError);
}

TEST_CASE("session_conformance: a tuple of fetches returns a tuple of values") {
  tf::Graph g;
  auto guard = g.as_default();
  auto x = tf::placeholder<float>({2}, "x");
  auto doubled = x * 2.0f;
  auto d = tf::constant(7, "d");
  auto noop = tf::no_op("noop");
  tf::Session sess(g);
  // TF: s.run((doubled, d), {x: [1, 2]}) gives (array([2., 4.]), 7)
  auto [twice, seven] = sess.run(std::tuple{doubled, d}, {{x, {1, 2}}});
  CHECK(twice.to_vector<float>() == std::vector<float>{2, 4});
  CHECK(seven.scalar<std::int32_t>() == 7);
  // Operations and names mix in; an operation's value is empty (TF's None).
  auto [by_name, nothing] = sess.run(std::tuple{std::string("d:0"), noop});
  CHECK(by_name.scalar<std::int32_t>() == 7);
  CHECK(nothing.is_none());
  // TF: s.run(()) gives ().
  static_assert(std::is_same_v<decltype(sess.run(std::tuple<>{})), std::tuple<>>);
  CHECK_NOTHROW(sess.run(std::tuple<>{}));
  // A bad fetch inside the tuple fails as it would in a list.
  CHECK_THROWS_AS(sess.run(std::tuple{d, std::string("nothing:0")}), tf::ValueError);
}

TEST_CASE("session_conformance: a map of fetches returns a map of values") {
  tf::Graph g;
  auto guard = g.as_default();
  auto c = tf::constant({1.0f, 2.0f}, "c");
  auto d = tf::constant(7, "d");
  tf::Session sess(g);
  std::map<std::string, tf::Output> fetches{{"x", c}, {"y", d}};
  std::map<std::string, tf::Value> values = sess.run(fetches);
  REQUIRE(values.size() == 2);
  CHECK(values.at("x").to_vector<float>() == std::vector<float>{1, 2});
  CHECK(values.at("y").scalar<std::int32_t>() == 7);
  // TF: s.run({"pair": (c, d), "one": d})
  std::map<std::string, std::tuple<tf::Output, tf::Output>> pairs{{"pair", {c, d}}};
  auto nested = sess.run(pairs);
  CHECK(std::get<0>(nested.at("pair")).to_vector<float>() == std::vector<float>{1, 2});
  CHECK(std::get<1>(nested.at("pair")).scalar<std::int32_t>() == 7);
  // TF: s.run({}) gives {}.
  CHECK(sess.run(std::map<std::string, tf::Output>{}).empty());
  CHECK_THROWS_AS(sess.run(std::map<std::string, tf::Output>{{"bad", tf::Output()}}),
                  tf::ValueError);
}

TEST_CASE("session_conformance: nested vectors of fetches return nested vectors") {
  tf::Graph g;
  auto guard = g.as_default();
  auto c = tf::constant({1.0f, 2.0f}, "c");
  auto d = tf::constant(7, "d");
  tf::Session sess(g);
  // TF: s.run([[c, d], [], [d]]) gives [[array([1., 2.]), 7], [], [7]]
  std::vector<std::vector<tf::Output>> fetches{{c, d}, {}, {d}};
  std::vector<std::vector<tf::Value>> values = sess.run(fetches);
  REQUIRE(values.size() == 3);
  REQUIRE(values[0].size() == 2);
  CHECK(values[0][0].to_vector<float>() == std::vector<float>{1, 2});
  CHECK(values[0][1].scalar<std::int32_t>() == 7);
  CHECK(values[1].empty());
  REQUIRE(values[2].size() == 1);
  CHECK(values[2][0].scalar<std::int32_t>() == 7);
  // A flat std::vector<Output> returns a std::vector<Value>.
  std::vector<tf::Value> flat = sess.run(std::vector<tf::Output>{d, c});
  CHECK(flat.at(0).scalar<std::int32_t>() == 7);
  CHECK(sess.run(std::vector<std::vector<tf::Output>>{}).empty());
  CHECK_THROWS_AS(sess.run(std::vector<std::vector<tf::Output>>{{tf::Output()}}), tf::ValueError);
}

}  // namespace symflow_test_runtime_session_conformance_test
