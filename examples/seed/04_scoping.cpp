// Seed experiment 4: variable_scope prefixes both the ops and the variables made by
// get_variable; name_scope prefixes the ops (and tf.Variable) but not get_variable.
// As the seed does, the graph goes to TensorBoard's `logs` folder (in the working
// directory): `tensorboard --logdir logs` shows both scopes in its Graphs tab.
#include <iostream>
#include <string>

#include <symflow/io/summary_writer.hpp>
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

  // with tf.Session() as sess:
  //     writer = tf.summary.FileWriter('logs', sess.graph)
  //     sess.run(tf.global_variables_initializer())
  //     print sess.run([d1, d2])
  //     writer.close()
  tf::Session sess;
  tf::summary::FileWriter writer("logs", sess.graph());
  sess.run(tf::global_variables_initializer());
  std::cout << sess.run({d1, d2}) << "\n";
  writer.close();
}
