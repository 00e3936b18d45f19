#pragma once
// symflow::InteractiveSession: tf.InteractiveSession, a Session that makes itself this
// thread's default session, and its graph the default graph, from construction until
// close() or destruction, so that t.eval() and op.run() need no session argument:
//
//   symflow::InteractiveSession sess;
//   auto x = symflow::constant({1.0f, 2.0f});
//   std::cout << (x * 2.0f).eval() << "\n";  // [2. 4.]
//
// Like TensorFlow's, it does not nest: it may be closed while other default sessions or
// graphs made later are still in force (each guard removes only its own entry).

#include <algorithm>
#include <utility>
#include <vector>

#include "symflow/graph/feed.hpp"
#include "symflow/graph/graph.hpp"
#include "symflow/runtime/session.hpp"

namespace symflow {

class InteractiveSession : public Session {
 public:
  explicit InteractiveSession(Graph graph = get_default_graph(), ConfigProto config = {})
      : Session(graph, std::move(config)) {
    detail::default_graphs().stack.push_back(std::move(graph));
    detail::default_evaluators().push_back(this);
  }
  explicit InteractiveSession(ConfigProto config)
      : InteractiveSession(get_default_graph(), std::move(config)) {}
  ~InteractiveSession() override { leave_default(); }

  // Closes the session and ends its time as the default session and graph.
  void close() {
    leave_default();
    Session::close();
  }

 private:
  // Removes this session's own entries, wherever later guards have put theirs.
  void leave_default() {
    if (!is_default_) return;
    is_default_ = false;
    auto& sessions = detail::default_evaluators();
    if (auto it = std::find(sessions.rbegin(), sessions.rend(), this); it != sessions.rend())
      sessions.erase(std::next(it).base());
    auto& graphs = detail::default_graphs().stack;
    if (auto it = std::find(graphs.rbegin(), graphs.rend(), graph()); it != graphs.rend())
      graphs.erase(std::next(it).base());
  }

  bool is_default_ = true;
};

}  // namespace symflow
