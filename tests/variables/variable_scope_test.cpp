// tf.variable_scope: scope names and name scopes, default names, reuse inheritance,
// captured scopes, scope-level defaults. Expected values come from TensorFlow 1.x
// (tf.compat.v1 with ref variables).
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include <symflow/symflow.hpp>
#include <symflow/variables/get_variable.hpp>
#include <symflow/variables/variable_scope.hpp>

#include "../test_util.hpp"

namespace symflow_test_variables_variable_scope_test {

namespace tf = symflow;

namespace {

using symflow::test::variable_names;

}  // namespace

TEST_CASE("variables/scope: a variable scope prefixes both ops and get_variable") {
  tf::Graph g;
  auto guard = g.as_default();
  tf::variable_scope foo("foo");
  CHECK(foo.name() == "foo");
  CHECK(foo.original_name_scope() == "foo/");
  CHECK(foo.reuse() == false);
  CHECK(tf::constant(1, "c").name() == "foo/c:0");
  CHECK(tf::get_variable("v", {1}).name() == "foo/v:0");
  {
    tf::variable_scope bar("bar");
    CHECK(bar.name() == "foo/bar");
    CHECK(bar.original_name_scope() == "foo/bar/");
    CHECK(tf::constant(1, "c").name() == "foo/bar/c:0");
    CHECK(tf::get_variable("v", {1}).name() == "foo/bar/v:0");
  }
}

TEST_CASE("variables/scope: reopening a scope by name shares its variables, not its name scope") {
  tf::Graph g;
  auto guard = g.as_default();
  tf::Variable v;
  {
    tf::variable_scope foo("foo");
    v = tf::get_variable("v", {1});
    tf::variable_scope bar("bar");
  }
  tf::variable_scope foo("foo", true);
  CHECK(foo.name() == "foo");
  CHECK(foo.original_name_scope() == "foo_1/");
  CHECK(foo.reuse() == true);
  CHECK(tf::constant(1, "c").name() == "foo_1/c:0");
  CHECK(tf::get_variable("v", {1}) == v);
  tf::variable_scope bar("bar");
  CHECK(bar.name() == "foo/bar");
  CHECK(bar.original_name_scope() == "foo_1/bar/");
}

TEST_CASE("variables/scope: name_scope does not prefix get_variable; variable_scope inside it") {
  tf::Graph g;
  auto guard = g.as_default();
  tf::name_scope ns("ns");
  CHECK(tf::get_variable("w", {1}).name() == "w:0");
  CHECK(tf::Variable(1.0f, {.name = "t"}).name() == "ns/t:0");
  tf::variable_scope vs("vs");
  CHECK(vs.original_name_scope() == "ns/vs/");
  CHECK(tf::constant(1, "c").name() == "ns/vs/c:0");
  CHECK(tf::get_variable("v", {1}).name() == "vs/v:0");
}

TEST_CASE("variables/scope: get_variable_scope is the innermost open scope, the root outside") {
  tf::Graph g;
  auto guard = g.as_default();
  tf::VariableScope root = tf::get_variable_scope();
  CHECK(root.name().empty());
  CHECK(root.original_name_scope().empty());
  CHECK(root.reuse() == false);
  CHECK(root.dtype() == tf::float32);
  {
    tf::variable_scope outer("outer");
    CHECK(tf::get_variable_scope() == outer.scope());
    CHECK_FALSE(tf::get_variable_scope() == root);
    {
      tf::variable_scope inner("inner");
      CHECK(tf::get_variable_scope().name() == "outer/inner");
    }
    CHECK(tf::get_variable_scope() == outer.scope());
  }
  CHECK(tf::get_variable_scope() == root);
}

TEST_CASE("variables/scope: default names are uniquified per enclosing scope") {
  tf::Graph g;
  auto guard = g.as_default();
  auto def = [](const char* name) { return tf::VariableScopeOptions{.default_name = name}; };
  for (std::string suffix : {"", "_1"}) {
    tf::variable_scope layer("", def("layer"));
    CHECK(layer.name() == "layer" + suffix);
    CHECK(layer.original_name_scope() == "layer" + suffix + "/");
    {
      tf::variable_scope sub("", def("sub"));
      CHECK(sub.name() == "layer" + suffix + "/sub");
    }
    tf::variable_scope sub("", def("sub"));
    CHECK(sub.name() == "layer" + suffix + "/sub_1");
    CHECK(sub.original_name_scope() == "layer" + suffix + "/sub_1/");
  }
  {
    tf::variable_scope outer("outer");
    tf::variable_scope layer("", def("layer"));
    CHECK(layer.name() == "outer/layer");
  }
  {
    // Leaving "outer" forgot the default names used inside it.
    tf::variable_scope outer("outer");
    {
      tf::variable_scope layer("", def("layer"));
      CHECK(layer.name() == "outer/layer");
      CHECK(layer.original_name_scope() == "outer_1/layer/");
    }
    tf::variable_scope layer("", def("layer"));
    CHECK(layer.name() == "outer/layer_1");
  }
  {
    // A name is used as given; the name scope is uniquified as usual.
    tf::variable_scope layer("layer");
    CHECK(layer.name() == "layer");
    CHECK(layer.original_name_scope() == "layer_2/");
  }
  tf::variable_scope layer("", def("layer"));
  CHECK(layer.name() == "layer_2");
  CHECK(layer.original_name_scope() == "layer_3/");
}

TEST_CASE("variables/scope: a default name with reuse is a ValueError") {
  tf::Graph g;
  auto guard = g.as_default();
  CHECK_THROWS_WITH_AS(tf::variable_scope("", {.default_name = "zz", .reuse = true}),
                       "reuse=True cannot be used without a name_or_scope", tf::ValueError);
  CHECK_THROWS_WITH_AS(tf::variable_scope("", {.default_name = "zz", .reuse = tf::AUTO_REUSE}),
                       "reuse=True cannot be used without a name_or_scope", tf::ValueError);
  // Nothing was left open.
  CHECK(tf::get_variable_scope().name().empty());
  CHECK(tf::constant(1, "c").name() == "c:0");
}

TEST_CASE("variables/scope: reuse is inherited, and reuse=true cannot be undone inside") {
  tf::Graph g;
  auto guard = g.as_default();
  {
    tf::variable_scope foo("foo", true);
    tf::variable_scope bar("bar");
    CHECK(bar.reuse() == true);
    tf::variable_scope baz("baz", false);
    CHECK(baz.reuse() == true);
    tf::variable_scope aut("aut", tf::reuse::auto_reuse);
    CHECK(aut.reuse() == tf::reuse::auto_reuse);
  }
  {
    tf::variable_scope a("a", tf::reuse::auto_reuse);
    CHECK(a.reuse() == tf::reuse::auto_reuse);
    tf::variable_scope b("b");
    CHECK(b.reuse() == tf::reuse::auto_reuse);
    tf::variable_scope c("c", true);
    CHECK(c.reuse() == true);
  }
  tf::variable_scope top("top");
  CHECK(top.reuse() == false);
}

TEST_CASE("variables/scope: reuse_variables turns reuse on for the scope and what opens inside") {
  tf::Graph g;
  auto guard = g.as_default();
  tf::VariableScope captured;
  {
    tf::variable_scope rv("rv");
    captured = rv;
    auto x = tf::get_variable("x", {1});
    tf::get_variable_scope().reuse_variables();
    CHECK(rv.reuse() == true);
    CHECK(tf::get_variable("x", {1}) == x);
    tf::variable_scope in("in");
    CHECK(in.reuse() == true);
  }
  CHECK(captured.reuse() == true);
  {
    tf::variable_scope again(captured);
    CHECK(again.reuse() == true);
  }
  tf::variable_scope other("other");
  other.reuse_variables();
  CHECK_THROWS_WITH_AS(tf::get_variable("y", {1}),
                       "Variable other/y does not exist, or was not created with "
                       "tf.get_variable(). Did you mean to set reuse=tf.AUTO_REUSE in VarScope?",
                       tf::ValueError);
}

TEST_CASE("variables/scope: re-entering a captured scope keeps its name and original name scope") {
  tf::Graph g;
  auto guard = g.as_default();
  tf::VariableScope foo, bar;
  tf::Variable v;
  {
    tf::variable_scope s("foo");
    foo = s;
    v = tf::get_variable("v", {1});
    tf::variable_scope b("bar");
    bar = b;
  }
  {
    tf::variable_scope f("foo", true);  // foo_1/
    tf::variable_scope b(bar);
    CHECK(b.name() == "foo/bar");
    CHECK(b.original_name_scope() == "foo/bar/");
    CHECK(b.reuse() == false);  // the captured scope's, not the enclosing one's
    CHECK(tf::constant(1, "c").name() == "foo_1/bar/c:0");
  }
  {
    tf::variable_scope f(foo);
    CHECK(f.name() == "foo");
    CHECK(f.original_name_scope() == "foo/");
    CHECK(tf::constant(1, "c").name() == "foo_2/c:0");
    tf::variable_scope b("bar");
    CHECK(b.name() == "foo/bar");
    CHECK(b.original_name_scope() == "foo_2/bar/");
  }
  {
    // Anywhere it is opened, only the last part of its name becomes a name scope.
    tf::variable_scope b(bar);
    CHECK(tf::constant(1, "c").name() == "bar/c:0");
  }
  {
    tf::variable_scope f(foo, true);
    CHECK(f.reuse() == true);
    CHECK(tf::constant(1, "c").name() == "foo_3/c:0");
    CHECK(tf::get_variable("v", {1}) == v);
  }
  {
    tf::variable_scope xy("x/y");
    CHECK(xy.name() == "x/y");
    CHECK(tf::constant(1, "c").name() == "x/y/c:0");
    tf::VariableScope captured = xy;
    tf::variable_scope again(captured);
    CHECK(again.name() == "x/y");
    CHECK(again.original_name_scope() == "x/y/");
    CHECK(tf::constant(1, "c").name() == "x/y/y/c:0");
  }
}

TEST_CASE("variables/scope: the captured root scope gets back to unprefixed variable names") {
  tf::Graph g;
  auto guard = g.as_default();
  tf::VariableScope root = tf::get_variable_scope();
  tf::variable_scope q("q");
  tf::variable_scope r(root);
  CHECK(r.name().empty());
  CHECK(tf::constant(1, "c").name() == "q/c:0");  // no name scope of its own
  CHECK(tf::get_variable("rootv", {1}).name() == "rootv:0");
}

TEST_CASE("variables/scope: a captured scope's default names restart when it is left") {
  tf::Graph g;
  auto guard = g.as_default();
  tf::VariableScope net;
  {
    tf::variable_scope s("net");
    net = s;
  }
  for (int i = 0; i < 2; ++i) {
    tf::variable_scope s(net);
    tf::variable_scope layer("", {.default_name = "layer"});
    CHECK(layer.name() == "net/layer");
  }
}

TEST_CASE("variables/scope: auxiliary_name_scope=false opens no name scope") {
  tf::Graph g;
  auto guard = g.as_default();
  {
    tf::variable_scope aux("aux", {.auxiliary_name_scope = false});
    CHECK(aux.name() == "aux");
    CHECK(aux.original_name_scope().empty());
    CHECK(tf::constant(1, "c").name() == "c:0");
    CHECK(tf::get_variable("v", {1}).name() == "aux/v:0");
  }
  tf::name_scope n1("n1");
  tf::variable_scope aux2("aux2", {.auxiliary_name_scope = false});
  CHECK(aux2.original_name_scope() == "n1/");
  CHECK(tf::constant(1, "c").name() == "n1/c:0");
}

TEST_CASE("variables/scope: the scope's initializer and dtype are get_variable's defaults") {
  tf::Graph g;
  auto guard = g.as_default();
  tf::VariableScope sc;
  {
    tf::variable_scope s("sc", {.initializer = tf::ones_initializer(), .dtype = tf::int32});
    sc = s;
    CHECK(sc.dtype() == tf::int32);
    CHECK(static_cast<bool>(sc.initializer()));
    auto z = tf::get_variable("z", {2});
    CHECK(tf::to_string(z) == "<tf.Variable 'sc/z:0' shape=(2,) dtype=int32_ref>");
    CHECK(z.initial_value().name() == "sc/z/Initializer/ones:0");
    {
      // Inherited by nested scopes; get_variable's own arguments win.
      tf::variable_scope in("in");
      auto z2 = tf::get_variable("z", {2}, {.dtype = tf::float64});
      CHECK(tf::to_string(z2) == "<tf.Variable 'sc/in/z:0' shape=(2,) dtype=float64_ref>");
      CHECK(z2.initial_value().name() == "sc/in/z/Initializer/ones:0");
      auto z3 = tf::get_variable("z3", {2}, {.initializer = tf::zeros_initializer()});
      CHECK(z3.initial_value().name() == "sc/in/z3/Initializer/zeros:0");
      CHECK(z3.dtype() == tf::int32);
    }
    {
      tf::variable_scope f("f", {.dtype = tf::float32});
      auto w = tf::get_variable("w", {2});
      CHECK(w.dtype() == tf::float32);
      CHECK(w.initial_value().name() == "sc/f/w/Initializer/ones:0");
    }
  }
  {
    // A captured scope brings its defaults back; options given on re-entry replace them.
    tf::variable_scope s(sc, {.initializer = tf::zeros_initializer()});
    auto y = tf::get_variable("y", {2});
    CHECK(y.dtype() == tf::int32);
    CHECK(y.initial_value().name() == "sc/y/Initializer/zeros:0");
  }
  tf::Session sess;
  sess.run(tf::global_variables_initializer());
  CHECK(tf::to_string(sess.run(g.get_tensor_by_name("sc/z:0"))) == "[1 1]");
  // Outside, the defaults are the root's again.
  auto r = tf::get_variable("r", {2});
  CHECK(r.dtype() == tf::float32);
  CHECK(r.initial_value().name() == "r/Initializer/random_uniform:0");
}

TEST_CASE("variables/scope: set_initializer, set_dtype and set_regularizer change the scope") {
  tf::Graph g;
  auto guard = g.as_default();
  tf::variable_scope s("s");
  tf::get_variable_scope().set_initializer(tf::zeros_initializer());
  tf::get_variable_scope().set_dtype(tf::float64);
  tf::get_variable_scope().set_regularizer([](const tf::Output& w) { return tf::reduce_sum(w); });
  auto w = tf::get_variable("w", {3});
  CHECK(w.dtype() == tf::float64);
  CHECK(w.initial_value().name() == "s/w/Initializer/zeros:0");
  auto losses = tf::get_collection(tf::GraphKeys::REGULARIZATION_LOSSES);
  REQUIRE(losses.size() == 1);
  CHECK(std::get<tf::Output>(losses[0]).name() == "s/w/Regularizer/Sum:0");
}

TEST_CASE("variables/scope: a scope regularizer applies to the variables created inside") {
  tf::Graph g;
  auto guard = g.as_default();
  tf::Regularizer l1 = [](const tf::Output& w) { return tf::reduce_sum(w, {}, false, "l1"); };
  {
    tf::variable_scope sc("sc", {.regularizer = l1});
    tf::get_variable("z", {2});
    tf::variable_scope in("in");
    tf::get_variable("z", {2});
  }
  tf::get_variable("free", {2});
  std::vector<std::string> loss_names;
  for (const auto& item : tf::get_collection(tf::GraphKeys::REGULARIZATION_LOSSES))
    loss_names.push_back(std::get<tf::Output>(item).name());
  CHECK(loss_names ==
        std::vector<std::string>{"sc/z/Regularizer/l1:0", "sc/in/z/Regularizer/l1:0"});
}

TEST_CASE("variables/scope: a scope's variables, by collection") {
  tf::Graph g;
  auto guard = g.as_default();
  tf::get_variable("w", {1});
  tf::VariableScope sc;
  {
    tf::variable_scope s("sc");
    sc = s;
    tf::get_variable("z", {1});
    tf::get_variable("frozen", {1}, {.trainable = false});
    tf::variable_scope in("in");
    tf::get_variable("z", {1});
  }
  tf::variable_scope sc2("sc2");  // "sc2/" does not start with "sc/"
  tf::get_variable("z", {1});
  CHECK(variable_names(sc.trainable_variables()) ==
        std::vector<std::string>{"sc/z:0", "sc/in/z:0"});
  CHECK(variable_names(sc.global_variables()) ==
        std::vector<std::string>{"sc/z:0", "sc/frozen:0", "sc/in/z:0"});
  CHECK(sc.local_variables().empty());
  CHECK(sc.get_collection(tf::GraphKeys::GLOBAL_VARIABLES).size() == 3);
  CHECK(tf::get_variable_scope().global_variables().size() == 1);
  CHECK(tf::VariableScope().global_variables().size() == 5);
}

TEST_CASE("variables/scope: the scope's values choose the graph it opens in") {
  tf::Graph g1, g2;
  auto guard = g1.as_default();
  tf::Output x;
  {
    auto inner = g2.as_default();
    x = tf::constant(1.0f, "x");
  }
  {
    tf::variable_scope s("net", {.values = {x}});
    CHECK(tf::get_default_graph() == g2);
    CHECK(tf::constant(1.0f, "c").name() == "net/c:0");
    CHECK(tf::get_variable("w", {1}).graph() == g2);
  }
  CHECK(tf::get_default_graph() == g1);
  CHECK(g1.num_nodes() == 0);
  // The scopes of g2 did not touch those of g1.
  tf::variable_scope s("net");
  CHECK(s.original_name_scope() == "net/");
}

TEST_CASE("variables/scope: variable scopes belong to their graph") {
  tf::Graph g1, g2;
  auto guard1 = g1.as_default();
  tf::variable_scope a("a", true);
  {
    auto guard2 = g2.as_default();
    CHECK(tf::get_variable_scope().name().empty());
    CHECK(tf::get_variable("w", {1}).name() == "w:0");
  }
  CHECK(tf::get_variable_scope().name() == "a");
  CHECK_THROWS_AS(tf::reset_default_graph(), tf::FailedPreconditionError);
}

TEST_CASE("variables/scope: Reuse prints as TensorFlow's three settings") {
  CHECK(tf::to_string(tf::Reuse()) == "False");
  CHECK(tf::to_string(tf::Reuse(true)) == "True");
  CHECK(tf::to_string(tf::reuse::auto_reuse) == "AUTO_REUSE");
  CHECK(tf::AUTO_REUSE == tf::reuse::auto_reuse);
  CHECK(static_cast<bool>(tf::reuse::auto_reuse));
  CHECK_FALSE(static_cast<bool>(tf::Reuse(false)));
}

TEST_CASE("variables/scope: the snippets of docs/variable-scopes.md") {
  tf::Graph g;
  auto guard = g.as_default();
  {
    tf::variable_scope scope("rnn");
    auto w = tf::get_variable("w", {2, 2});  // step 1 creates
    scope.reuse_variables();
    auto w2 = tf::get_variable("w", {2, 2});  // later steps share: w2 == w
    CHECK(w2 == w);
  }
  tf::VariableScope encoder;
  tf::Variable first;
  {
    tf::variable_scope s("encoder");
    encoder = s;  // or tf::get_variable_scope()
    first = tf::get_variable("w", {1});
  }
  {
    tf::variable_scope again(encoder, true);  // variables "encoder/...", reused
    CHECK(again.original_name_scope() == "encoder/");
    CHECK(tf::get_variable("w", {1}) == first);
    CHECK(tf::constant(1, "c").name() == "encoder_1/c:0");
  }
  {
    tf::variable_scope s("sc", {.initializer = tf::ones_initializer(), .dtype = tf::int32});
    auto z = tf::get_variable("z", {2});                          // int32, sc/z/Initializer/ones
    auto d = tf::get_variable("d", {2}, {.dtype = tf::float64});  // its own dtype wins
    CHECK(z.dtype() == tf::int32);
    CHECK(z.initial_value().name() == "sc/z/Initializer/ones:0");
    CHECK(d.dtype() == tf::float64);
  }
}

}  // namespace symflow_test_variables_variable_scope_test
