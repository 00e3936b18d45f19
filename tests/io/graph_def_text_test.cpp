// The protobuf text format of GraphDefs and NodeDefs.
#include <doctest/doctest.h>

#include <symflow/symflow.hpp>

namespace symflow_test_io_graph_def_text_test {

namespace tf = symflow;

TEST_CASE("io/text: escaping follows protobuf's CEscape") {
  std::string raw = std::string("a\"b\\c\n\t'") + '\0' + '\x7f' + '\xff';
  CHECK(tf::detail::c_escape(raw.data(), raw.size()) == "a\\\"b\\\\c\\n\\t\\'\\000\\177\\377");
}

TEST_CASE("io/text: scalars use *_val fields, larger tensors tensor_content") {
  tf::Graph g;
  auto guard = g.as_default();
  tf::constant(std::int64_t{5}, "i64");
  tf::constant(2.5, "f64");
  tf::constant(true, "flag");
  tf::constant(0.1f, "f32");
  tf::constant({1.0f, 2.0f}, "vec");
  std::string text = tf::to_text(g.as_graph_def());
  CHECK(text.find("int64_val: 5\n") != std::string::npos);
  CHECK(text.find("double_val: 2.5\n") != std::string::npos);
  CHECK(text.find("bool_val: true\n") != std::string::npos);
  CHECK(text.find("float_val: 0.1\n") != std::string::npos);
  CHECK(text.find("tensor_content: \"\\000\\000\\200?\\000\\000\\000@\"\n") != std::string::npos);
  CHECK(text.find("type: DT_INT64") != std::string::npos);
  CHECK(text.find("type: DT_DOUBLE") != std::string::npos);
  CHECK(text.find("type: DT_BOOL") != std::string::npos);
}

TEST_CASE("io/text: shapes with unknown dims, bool attrs, and control inputs") {
  tf::Graph g;
  auto guard = g.as_default();
  auto x = tf::placeholder<float>(tf::Shape{-1, 3}, "x");
  auto s = tf::reduce_sum(x, 1, true, "s");
  auto grouped = tf::group({s.op()}, "g");
  std::string placeholder = tf::to_text(x.op().node_def());
  CHECK(placeholder ==
        "name: \"x\"\n"
        "op: \"Placeholder\"\n"
        "attr {\n"
        "  key: \"dtype\"\n"
        "  value {\n"
        "    type: DT_FLOAT\n"
        "  }\n"
        "}\n"
        "attr {\n"
        "  key: \"shape\"\n"
        "  value {\n"
        "    shape {\n"
        "      dim {\n"
        "        size: -1\n"
        "      }\n"
        "      dim {\n"
        "        size: 3\n"
        "      }\n"
        "    }\n"
        "  }\n"
        "}\n");
  std::string sum = tf::to_text(s.op().node_def());
  CHECK(sum.find("input: \"x\"\ninput: \"s/reduction_indices\"\n") != std::string::npos);
  CHECK(sum.find("key: \"keep_dims\"\n  value {\n    b: true\n  }") != std::string::npos);
  std::ostringstream printed;
  printed << grouped;
  CHECK(printed.str() == "name: \"g\"\nop: \"NoOp\"\ninput: \"^s\"\n");
}

TEST_CASE("io/text: attrs are printed sorted by key") {
  tf::Graph g;
  auto guard = g.as_default();
  auto x = tf::constant(1.0f);
  auto c = tf::cast(x, tf::int32);
  std::string text = tf::to_text(c.op().node_def());
  auto dst = text.find("\"DstT\""), src = text.find("\"SrcT\""), trunc = text.find("\"Truncate\"");
  CHECK(dst < src);
  CHECK(src < trunc);
}

TEST_CASE("io/text: read_c_escape undoes c_escape for every byte, and names bad escapes") {
  std::string all;
  for (int b = 0; b < 256; ++b) all += static_cast<char>(b);
  const std::string escaped = tf::detail::c_escape(all.data(), all.size());
  std::string back;
  for (std::size_t i = 0; i < escaped.size();) {
    if (escaped[i] != '\\') {
      back += escaped[i++];
      continue;
    }
    ++i;
    REQUIRE_FALSE(tf::detail::read_c_escape(escaped, i, back).has_value());
  }
  CHECK(back == all);

  auto error_of = [](std::string_view escape) {
    std::size_t pos = 0;
    std::string out;
    return tf::detail::read_c_escape(escape, pos, out).value_or("");
  };
  CHECK(error_of("q") == "unknown escape '\\q'; expected one of \\n \\t \\\\ \\\" \\ooo \\xhh");
  CHECK(error_of("") == "a string ends with a lone backslash");
  CHECK(error_of("xg") == "expected hex digits after \\x");
  CHECK(error_of("777") == "octal escape out of range");
  std::size_t pos = 0;
  std::string out;
  CHECK_FALSE(tf::detail::read_c_escape("x41rest", pos, out).has_value());
  CHECK(out == "A");
  CHECK(pos == 3);
}

}  // namespace symflow_test_io_graph_def_text_test
