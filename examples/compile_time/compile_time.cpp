// A tiny network, relu(x W + b), computed twice: by the compiler (ct::eval, checked with
// static_assert) and by a Session running the same expression as graph nodes (ct::to_graph).
#include <iostream>

#include <symflow/expr/ct.hpp>
#include <symflow/symflow.hpp>
namespace tf = symflow;
namespace ct = symflow::ct;

// A batch of three inputs, a 2x2 weight matrix and a bias; the shapes are part of the types.
constexpr ct::Matrix<float, 3, 2> x{{1, 2}, {-3, 0.5}, {0.25, -1}};
constexpr ct::Matrix<float, 2, 2> w{{0.5, -1}, {2, 0.25}};
constexpr ct::Vector<float, 2> b{-1, 0.5};
constexpr auto net = relu(matmul(x, w) + b);  // [3, 2] x [2, 2] + [2] -> [3, 2]

// Evaluated by the compiler: a wrong number here stops the build.
constexpr auto at_compile_time = ct::eval(net);
static_assert(at_compile_time == ct::Matrix<float, 3, 2>{{3.5, 0}, {0, 3.625}, {0, 0}});
static_assert(at_compile_time(1, 1) == 3.625f);

int main() {
  tf::Output y = ct::to_graph(net);  // Const, MatMul, add, Relu nodes in the default graph
  tf::Session sess;
  tf::Value at_run_time = sess.run(y);

  std::cout << "compile time:\n" << ct::to_value(at_compile_time) << "\n";
  std::cout << "session:\n" << at_run_time << "\n";
  std::cout << "graph:\n";
  for (const auto& op : tf::get_default_graph().get_operations())
    std::cout << "  " << op.name() << " " << op.type() << "\n";

  bool equal = ct::from_value<decltype(at_compile_time)>(at_run_time) == at_compile_time;
  std::cout << (equal ? "equal" : "DIFFERENT") << "\n";
  return equal ? 0 : 1;
}
