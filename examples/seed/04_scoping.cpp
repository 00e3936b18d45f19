// Seed experiment 4: variable_scope prefixes both the ops and the variables made by
// get_variable; name_scope prefixes the ops (and tf.Variable) but not get_variable.
#include <iostream>
#include <string>

#include <symflow/symflow.hpp>
#include <symflow/variables/get_variable.hpp>

namespace tf = symflow;

// def scoping(fn, scope1, scope2, vals):
//     with fn(scope1):
//         a = tf.Variable(vals[0], name='a')
//         b = tf.get_variable('b', initializer=vals[1])
//         c = tf.constant(vals[2], name='c')
//         with fn(scope2):
//             d = tf.add(a * b, c, name='res')
//     print '\n'.join([scope1, a.name, b.name, c.name, d.name]), '\n'
//     return d
template <class Scope>
tf::Output scoping(const std::string& scope1, const std::string& scope2, const int (&vals)[3]) {
  tf::Variable a, b;
  tf::Output c, d;
  {
    Scope outer(scope1);
    a = tf::Variable(vals[0], {.name = "a"});
    b = tf::get_variable("b", {.initializer = vals[1]});
    c = tf::constant(vals[2], "c");
    {
      Scope inner(scope2);
      d = tf::add(a * b, c, "res");
    }
  }
  for (const std::string& line : {scope1, a.name(), b.name(), c.name(), d.name()})
    std::cout << line << "\n";
  std::cout << "\n";
  return d;
}

int main() {
  auto d1 = scoping<tf::variable_scope>("scope_vars", "res", {1, 2, 3});
  auto d2 = scoping<tf::name_scope>("scope_name", "res", {1, 2, 3});

  tf::Session sess;
  sess.run(tf::global_variables_initializer());
  std::cout << sess.run({d1, d2}) << "\n";
}
