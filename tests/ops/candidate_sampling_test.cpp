// The candidate samplers and compute_accidental_hits, checked against TensorFlow 1.x graph
// mode (tensorflow.compat.v1 with eager execution disabled). The expected candidates and
// counts were computed by TensorFlow 2.21 running the same ops with the same (seed, seed2)
// attrs, run after run of one node in one session; symflow reproduces them exactly.

#include <doctest/doctest.h>

#include <cfloat>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <symflow/ops/candidate_sampling_ops.hpp>
#include <symflow/symflow.hpp>

#include "../test_util.hpp"

namespace symflow_test_ops_candidate_sampling_test {

using namespace symflow;
using namespace symflow::test;

std::pair<std::int64_t, std::int64_t> seeds_of(const Output& t) {
  return {t.op().get_attr<std::int64_t>("seed"), t.op().get_attr<std::int64_t>("seed2")};
}

struct Draw {
  std::vector<std::int64_t> sampled;
  std::vector<float> true_expected;
  std::vector<float> sampled_expected;
};

// Runs the sampler's three outputs once more in `sess`.
Draw draw(Session& sess, const nn::CandidateSamples& s) {
  std::vector<Value> v =
      sess.run({s.sampled_candidates, s.true_expected_count, s.sampled_expected_count});
  return {v[0].to_vector<std::int64_t>(), v[1].to_vector<float>(), v[2].to_vector<float>()};
}

// Successive runs of one node: each continues the node's Philox stream.
void check_runs(const nn::CandidateSamples& s, const std::vector<Draw>& want) {
  Session sess(s.sampled_candidates.graph());
  for (std::size_t run = 0; run < want.size(); ++run) {
    CAPTURE(run);
    Draw got = draw(sess, s);
    CHECK(got.sampled == want[run].sampled);
    // Bit for bit: the counts are computed in TensorFlow's float arithmetic.
    CHECK(got.true_expected == want[run].true_expected);
    CHECK(got.sampled_expected == want[run].sampled_expected);
  }
}

Output true_classes(std::vector<std::int64_t> flat = {1, 2, 3, 4, 0, 7}) {
  return constant(Value::from_vector(flat, {3, 2}));
}

std::vector<float> repeat(float x, std::size_t n) { return std::vector<float>(n, x); }

TEST_CASE("ops/candidate_sampling: uniform, unique and not, with an op seed") {
  Graph g;
  auto guard = g.as_default();
  nn::CandidateSamples unique =
      nn::uniform_candidate_sampler(true_classes(), 2, 5, true, 10, {.seed = 7});
  nn::CandidateSamples repeats =
      nn::uniform_candidate_sampler(true_classes(), 2, 5, false, 10, {.seed = 7});
  CHECK(unique.sampled_candidates.op().type() == "UniformCandidateSampler");
  CHECK(unique.sampled_candidates.op().name() == "UniformCandidateSampler");
  CHECK(repeats.sampled_candidates.op().name() == "UniformCandidateSampler_1");
  CHECK(nn::uniform_candidate_sampler(true_classes(), 2, 5, true, 10, {.name = "sampler"})
            .sampled_candidates.op()
            .name() == "sampler");
  CHECK(seeds_of(unique.sampled_candidates) == std::pair<std::int64_t, std::int64_t>{87654321, 7});
  // Unique: 6 draws for 5 distinct ids, so each is expected 1 - 0.9^6 times.
  check_runs(unique, {{{9, 8, 4, 6, 2}, repeat(0.468558997f, 6), repeat(0.468558997f, 5)},
                      {{7, 9, 0, 5, 3}, repeat(0.5f, 6), repeat(0.5f, 5)}});
  // Not unique: the same stream, 9 kept twice; run 2 reads the numbers reserved for it.
  check_runs(repeats, {{{9, 9, 8, 4, 6}, repeat(0.5f, 6), repeat(0.5f, 5)},
                       {{7, 9, 0, 5, 3}, repeat(0.5f, 6), repeat(0.5f, 5)}});
}

TEST_CASE("ops/candidate_sampling: with only a graph seed, seed2 is the op count") {
  Graph g;
  auto guard = g.as_default();
  set_random_seed(1);
  Output classes = true_classes();
  nn::CandidateSamples u = nn::uniform_candidate_sampler(classes, 2, 5, true, 10);
  CHECK(seeds_of(u.sampled_candidates) == std::pair<std::int64_t, std::int64_t>{1, 1});
  // TF: UniformCandidateSampler(seed=1, seed2=1)
  check_runs(u, {{{8, 9, 3, 6, 1}, repeat(0.468558997f, 6), repeat(0.468558997f, 5)},
                 {{1, 6, 0, 5, 7}, repeat(0.5f, 6), repeat(0.5f, 5)}});
}

TEST_CASE("ops/candidate_sampling: log-uniform, graph seed only and graph and op seeds") {
  Graph g;
  auto guard = g.as_default();
  set_random_seed(1);
  Output classes = true_classes();
  nn::CandidateSamples unique = nn::log_uniform_candidate_sampler(classes, 2, 6, true, 20);
  nn::CandidateSamples repeats =
      nn::log_uniform_candidate_sampler(classes, 2, 6, false, 20, {.seed = 3});
  CHECK(unique.sampled_candidates.op().name() == "LogUniformCandidateSampler");
  CHECK(seeds_of(unique.sampled_candidates) == std::pair<std::int64_t, std::int64_t>{1, 1});
  CHECK(seeds_of(repeats.sampled_candidates) == std::pair<std::int64_t, std::int64_t>{1, 3});
  check_runs(
      unique,
      {{{2, 4, 0, 3, 1, 6},
        {0.681259573f, 0.547998846f, 0.456076443f, 0.389834762f, 0.87340343f, 0.27067852f},
        {0.547998846f, 0.389834762f, 0.87340343f, 0.456076443f, 0.681259573f, 0.301488549f}},
       {{3, 2, 4, 12, 0, 17},
        {0.799071372f, 0.566950142f, 0.439760685f, 0.359310627f, 1.36602151f, 0.232121199f},
        {0.439760685f, 0.566950142f, 0.359310627f, 0.146048471f, 1.36602151f, 0.106553108f}}});
  const std::vector<float> true_counts = {0.799071372f, 0.566950142f, 0.439760685f,
                                          0.359310627f, 1.36602151f,  0.232121199f};
  check_runs(
      repeats,
      {{{1, 10, 11, 0, 2, 7},
        true_counts,
        {0.799071372f, 0.171477884f, 0.157744348f, 1.36602151f, 0.566950142f, 0.232121199f}},
       {{1, 5, 10, 1, 13, 15},
        true_counts,
        {0.799071372f, 0.303792834f, 0.171477884f, 0.799071372f, 0.135967866f, 0.119476117f}}});
}

TEST_CASE("ops/candidate_sampling: log-uniform over a large range") {
  Graph g;
  auto guard = g.as_default();
  nn::CandidateSamples s =
      nn::log_uniform_candidate_sampler(true_classes(), 2, 8, true, 100000, {.seed = 5});
  const std::vector<float> true_counts = {0.281745762f, 0.199901804f, 0.155055881f,
                                          0.126689881f, 0.481647581f, 0.0818439648f};
  check_runs(s, {{{2, 473, 3366, 2426, 1, 745, 32, 35996},
                  true_counts,
                  {0.199901804f, 0.00146442745f, 0.000206346129f, 0.000286249473f, 0.281745762f,
                   0.000930838112f, 0.0207439456f, 1.93033011e-05f}},
                 {{13372, 61, 5, 9129, 21102, 601, 46, 4788},
                  true_counts,
                  {5.19587666e-05f, 0.0111181661f, 0.10711477f, 7.61043266e-05f, 3.29267932e-05f,
                   0.00115331239f, 0.0146293947f, 0.000145082071f}}});
}

TEST_CASE("ops/candidate_sampling: learned unigram counts each run's true classes") {
  Graph g;
  auto guard = g.as_default();
  nn::CandidateSamples unique =
      nn::learned_unigram_candidate_sampler(true_classes(), 2, 4, true, 8, {.seed = 11});
  nn::CandidateSamples repeats =
      nn::learned_unigram_candidate_sampler(true_classes(), 2, 4, false, 8, {.seed = 11});
  CHECK(unique.sampled_candidates.op().name() == "LearnedUnigramCandidateSampler");
  check_runs(unique, {{{7, 0, 5, 1}, repeat(0.5f, 6), repeat(0.5f, 4)},
                      {{2, 4, 5, 1},
                       repeat(0.537335694f, 6),
                       {0.537335694f, 0.537335694f, 0.30963847f, 0.537335694f}},
                      {{3, 4, 0, 7}, repeat(0.679422915f, 6), repeat(0.679422915f, 4)}});
  check_runs(repeats, {{{7, 0, 5, 1}, repeat(0.5f, 6), repeat(0.5f, 4)},
                       {{2, 4, 2, 5},
                        repeat(0.571428597f, 6),
                        {0.571428597f, 0.571428597f, 0.571428597f, 0.285714298f}},
                       {{3, 4, 0, 0}, repeat(0.600000024f, 6), repeat(0.600000024f, 4)}});
  // A new session starts the counts and the stream over.
  Session fresh(g);
  CHECK(draw(fresh, unique).sampled == std::vector<std::int64_t>{7, 0, 5, 1});
}

TEST_CASE("ops/candidate_sampling: fixed unigram with distortion, reserved ids and shards") {
  Graph g;
  auto guard = g.as_default();
  const std::vector<float> unigrams = {3, 1, 4, 1, 5, 9, 2, 6, 5, 3};
  nn::CandidateSamples unique = nn::fixed_unigram_candidate_sampler(
      true_classes(), 2, 5, true, 10, {.unigrams = unigrams, .distortion = 0.75, .seed = 2});
  nn::CandidateSamples repeats = nn::fixed_unigram_candidate_sampler(
      true_classes(), 2, 5, false, 10, {.unigrams = unigrams, .seed = 2});
  // Reserved id 1 of shard 1 (weight 0), then the unigrams of the odd ids from 1 on.
  nn::CandidateSamples shard =
      nn::fixed_unigram_candidate_sampler(true_classes({1, 2, 3, 4, 0, 5}), 2, 3, true, 6,
                                          {.unigrams = unigrams,
                                           .distortion = 0.5,
                                           .num_reserved_ids = 2,
                                           .num_shards = 2,
                                           .shard = 1,
                                           .seed = 2});
  Operation op = unique.sampled_candidates.op();
  CHECK(op.name() == "FixedUnigramCandidateSampler");
  CHECK(op.get_attr<double>("distortion") == 0.75);
  CHECK(op.get_attr<std::string>("vocab_file").empty());
  CHECK(op.get_attr<FloatList>("unigrams").items.size() == 10);
  check_runs(unique,
             {{{8, 7, 5, 6, 9},
               {0.233813003f, 0.542121053f, 0.233813003f, 0.60676378f, 0.463440567f, 0.660810471f},
               {0.60676378f, 0.660810471f, 0.778993964f, 0.364853501f, 0.463440567f}},
              {{8, 2, 4, 1, 7},
               {0.204100251f, 0.488064945f, 0.204100251f, 0.550675452f, 0.413532615f, 0.604157805f},
               {0.550675452f, 0.488064945f, 0.550675452f, 0.204100251f, 0.604157805f}}});
  const std::vector<float> true_counts = {0.128205135f, 0.512820542f, 0.128205135f,
                                          0.641025662f, 0.384615391f, 0.769230783f};
  check_runs(repeats, {{{8, 5, 5, 7, 6},
                        true_counts,
                        {0.641025662f, 1.15384614f, 1.15384614f, 0.769230783f, 0.256410271f}},
                       {{8, 4, 4, 4, 1},
                        true_counts,
                        {0.641025662f, 0.641025662f, 0.641025662f, 0.641025662f, 0.128205135f}}});
  const std::vector<float> shard_counts = {0.540230393f, 0.623804331f, 0.697434485f,
                                           0.441096306f, 0.0f,         0.697434485f};
  check_runs(shard, {{{5, 3, 1}, shard_counts, {0.697434485f, 0.697434485f, 0.540230393f}},
                     {{3, 2, 5}, shard_counts, {0.697434485f, 0.623804331f, 0.697434485f}}});
}

TEST_CASE("ops/candidate_sampling: a GraphDef without the default attrs imports and runs") {
  GraphDef def;
  {
    Graph g;
    auto guard = g.as_default();
    (void)nn::fixed_unigram_candidate_sampler(
        true_classes(), 2, 5, false, 10, {.unigrams = {3, 1, 4, 1, 5, 9, 2, 6, 5, 3}, .seed = 2});
    def = g.as_graph_def();
  }
  // What strip_default_attrs leaves of the node.
  for (NodeDef& n : def.node)
    if (n.op == "FixedUnigramCandidateSampler")
      for (const char* attr :
           {"vocab_file", "distortion", "num_reserved_ids", "num_shards", "shard"})
        CHECK(n.attr.erase(attr) == 1);
  Graph g;
  import_graph_def(def, {.name = ""}, g);
  Operation op = g.get_operation_by_name("FixedUnigramCandidateSampler");
  CHECK(op.get_attr<double>("distortion") == 1.0);
  CHECK(op.get_attr<std::int64_t>("num_shards") == 1);
  // TF: the same node's first run.
  check_runs({op.output(0), op.output(1), op.output(2)},
             {{{8, 5, 5, 7, 6},
               {0.128205135f, 0.512820542f, 0.128205135f, 0.641025662f, 0.384615391f, 0.769230783f},
               {0.641025662f, 1.15384614f, 1.15384614f, 0.769230783f, 0.256410271f}}});
}

TEST_CASE("ops/candidate_sampling: all candidates, each expected once") {
  Graph g;
  auto guard = g.as_default();
  nn::CandidateSamples s = nn::all_candidate_sampler(true_classes(), 2, 8, false, {.seed = 1});
  CHECK(s.sampled_candidates.op().name() == "AllCandidateSampler");
  CHECK(s.sampled_candidates.op().attrs().count("range_max") == 0);
  const Draw all = {{0, 1, 2, 3, 4, 5, 6, 7}, repeat(1.0f, 6), repeat(1.0f, 8)};
  check_runs(s, {all, all});
}

TEST_CASE("ops/candidate_sampling: compute_accidental_hits") {
  Graph g;
  auto guard = g.as_default();
  Output classes = true_classes({1, 2, 3, 4, 2, 2});
  Output sampled = constant(Value::from_vector(std::vector<std::int64_t>{2, 5, 3, 2}, {4}));
  nn::AccidentalHits hits = nn::compute_accidental_hits(classes, sampled, 2);
  CHECK(hits.indices.op().name() == "ComputeAccidentalHits");
  CHECK(seeds_of(hits.indices) == std::pair<std::int64_t, std::int64_t>{0, 0});
  CHECK(hits.indices.dtype() == DType::int32);
  CHECK(hits.ids.dtype() == DType::int64);
  CHECK(hits.weights.dtype() == DType::float32);
  CHECK(hits.weights.get_shape() == Shape({-1}));
  nn::AccidentalHits named =
      nn::compute_accidental_hits(classes, sampled, 2, {.seed = 9, .name = "hits"});
  CHECK(named.ids.op().name() == "hits");
  CHECK(seeds_of(named.ids) == std::pair<std::int64_t, std::int64_t>{87654321, 9});
  Session sess(g);
  std::vector<Value> v = sess.run({hits.indices, hits.ids, hits.weights});
  // A candidate sampled twice (2) is found at its last position.
  CHECK(v[0].to_vector<std::int32_t>() == std::vector<std::int32_t>{0, 1, 2, 2});
  CHECK(v[1].to_vector<std::int64_t>() == std::vector<std::int64_t>{3, 2, 3, 3});
  CHECK(v[2].to_vector<float>() == repeat(-FLT_MAX, 4));
}

TEST_CASE("ops/candidate_sampling: shapes") {
  Graph g;
  auto guard = g.as_default();
  Output known = placeholder(DType::int64, Shape({-1, -1}));
  nn::CandidateSamples s = nn::uniform_candidate_sampler(known, 2, 3, true, 10, {.seed = 1});
  CHECK(s.sampled_candidates.get_shape() == Shape({3}));
  CHECK(s.sampled_candidates.dtype() == DType::int64);
  CHECK(s.true_expected_count.get_shape() == Shape({-1, 2}));
  CHECK(s.true_expected_count.dtype() == DType::float32);
  CHECK(s.sampled_expected_count.get_shape() == Shape({3}));
  Output unknown = placeholder(DType::int64);
  nn::CandidateSamples t = nn::log_uniform_candidate_sampler(unknown, 2, 3, true, 10);
  CHECK(t.true_expected_count.get_shape() == Shape({-1, 2}));
  nn::CandidateSamples u = nn::uniform_candidate_sampler(true_classes(), 2, 4, true, 10);
  CHECK(u.true_expected_count.get_shape() == Shape({3, 2}));
  nn::AccidentalHits h = nn::compute_accidental_hits(unknown, unknown, 2);
  CHECK(h.ids.get_shape() == Shape({-1}));
}

TEST_CASE("ops/candidate_sampling: bad arguments at build time") {
  Graph g;
  auto guard = g.as_default();
  Output vector = constant(Value::from_vector(std::vector<std::int64_t>{1, 2}, {2}));
  auto e = thrown<ValueError>([&] { nn::uniform_candidate_sampler(vector, 1, 3, true, 10); });
  REQUIRE(e);
  CHECK(contains(e->what(), "Shape must be rank 2 but is rank 1"));
  auto t = thrown<TypeError>([&] {
    nn::uniform_candidate_sampler(constant({{1, 2}}), 2, 3, true, 10);
  });
  REQUIRE(t);
  CHECK(contains(t->what(),
                 "Input 'true_classes' of 'UniformCandidateSampler' Op has type int32 "
                 "that does not match expected type of int64."));
  e = thrown<ValueError>([&] { nn::uniform_candidate_sampler(true_classes(), 2, 0, true, 10); });
  REQUIRE(e);
  CHECK(
      contains(e->what(),
               "Attr 'num_sampled' of 'UniformCandidateSampler' Op passed 0 less than minimum 1."));
  e = thrown<ValueError>([&] { nn::uniform_candidate_sampler(true_classes(), 0, 2, true, 10); });
  REQUIRE(e);
  CHECK(contains(e->what(),
                 "Attr 'num_true' of 'UniformCandidateSampler' Op passed 0 less than minimum 1."));
  e = thrown<ValueError>([&] { nn::uniform_candidate_sampler(true_classes(), 2, 2, true, 0); });
  REQUIRE(e);
  CHECK(contains(e->what(),
                 "Attr 'range_max' of 'UniformCandidateSampler' Op passed 0 less than minimum 1."));
  e = thrown<ValueError>(
      [&] { nn::learned_unigram_candidate_sampler(true_classes(), 2, 2, true, 2147483648); });
  REQUIRE(e);
  CHECK(contains(e->what(), "Value of range_max:2147483648 is too large to handle"));
  e = thrown<ValueError>([&] {
    nn::fixed_unigram_candidate_sampler(true_classes(), 2, 2, true, 10,
                                        {.unigrams = {1, 1}, .num_shards = 0});
  });
  REQUIRE(e);
  CHECK(contains(e->what(),
                 "Attr 'num_shards' of 'FixedUnigramCandidateSampler' Op passed 0 "
                 "less than minimum 1."));
  e = thrown<ValueError>([&] {
    nn::fixed_unigram_candidate_sampler(true_classes(), 2, 2, true, 10,
                                        {.unigrams = {1, 1}, .shard = -1});
  });
  REQUIRE(e);
  CHECK(contains(e->what(),
                 "Attr 'shard' of 'FixedUnigramCandidateSampler' Op passed -1 less "
                 "than minimum 0."));
  Output sampled = constant(Value::from_vector(std::vector<std::int64_t>{1}, {1, 1}));
  e = thrown<ValueError>([&] { nn::compute_accidental_hits(true_classes(), sampled, 2); });
  REQUIRE(e);
  CHECK(contains(e->what(), "Shape must be rank 1 but is rank 2"));
  e = thrown<ValueError>([&] { nn::compute_accidental_hits(true_classes(), vector, 3); });
  REQUIRE(e);
  CHECK(contains(e->what(), "Dimension must be 3 but is 2"));
}

TEST_CASE("ops/candidate_sampling: bad arguments when the op runs") {
  Graph g;
  auto guard = g.as_default();
  auto run_error = [&](const Output& t) {
    Session sess(g);
    auto e = thrown<InvalidArgumentError>([&] { (void)sess.run(t); });
    REQUIRE(e);
    return std::string(e->what());
  };
  // Unique needs num_sampled distinct ids: none are drawn.
  nn::CandidateSamples too_many =
      nn::uniform_candidate_sampler(true_classes(), 2, 11, true, 10, {.seed = 1});
  CHECK(contains(run_error(too_many.sampled_candidates), "Sampler's range is too small."));
  // Without unique it draws with repeats. TF: UniformCandidateSampler(seed=87654321, seed2=1)
  nn::CandidateSamples repeats =
      nn::uniform_candidate_sampler(true_classes(), 2, 11, false, 10, {.seed = 1});
  CHECK(run_vector<std::int64_t>(repeats.sampled_candidates) ==
        std::vector<std::int64_t>{1, 5, 1, 4, 7, 6, 5, 0, 7, 3, 6});
  // The columns of true_classes are checked against num_true only when the op runs (the
  // message calls the columns "expected", as TensorFlow's does).
  nn::CandidateSamples columns =
      nn::uniform_candidate_sampler(true_classes(), 3, 2, true, 10, {.seed = 1});
  CHECK(contains(run_error(columns.sampled_candidates),
                 "true_classes must have num_true columns, expected: 2 was: 3"));
  nn::CandidateSamples outside =
      nn::uniform_candidate_sampler(true_classes(), 2, 2, true, 4, {.seed = 1});
  CHECK(contains(run_error(outside.sampled_candidates),
                 "`true_candidate` out of range [0, 4), received 4"));
  // One int32 count per id: the learned sampler refuses a range it cannot count (later
  // TensorFlow releases' message; 2.21 tries to allocate the counts).
  nn::CandidateSamples huge =
      nn::learned_unigram_candidate_sampler(true_classes(), 2, 2, true, 2147483647, {.seed = 1});
  CHECK(contains(run_error(huge.sampled_candidates),
                 "range_max must be less than 2147483647 for unigram samplers, got 2147483647"));
  nn::CandidateSamples no_unigrams = nn::fixed_unigram_candidate_sampler(
      true_classes(), 2, 2, true, 10, {.unigrams = {}, .seed = 1});
  CHECK(contains(run_error(no_unigrams.sampled_candidates),
                 "Must provide either vocab_file or unigrams."));
  nn::CandidateSamples short_unigrams = nn::fixed_unigram_candidate_sampler(
      true_classes(), 2, 2, true, 10, {.unigrams = {1, 2, 3, 4, 5}, .seed = 1});
  CHECK(contains(run_error(short_unigrams.sampled_candidates),
                 "range is 10 must be equal to weights size  5"));
  Output unknown = placeholder(DType::int64);
  nn::AccidentalHits hits = nn::compute_accidental_hits(unknown, unknown, 2);
  Session sess(g);
  auto e = thrown<InvalidArgumentError>([&] {
    (void)sess.run(hits.ids,
                   {{unknown, Value::from_vector(std::vector<std::int64_t>{1, 2, 3}, {1, 3})}});
  });
  REQUIRE(e);
  CHECK(contains(e->what(), "true_candidates must be a batch_size * num_true matrix"));
}

}  // namespace symflow_test_ops_candidate_sampling_test
