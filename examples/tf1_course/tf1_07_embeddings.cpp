// TF1 course, lesson 7: word embeddings trained word2vec-style (skip-gram).
//
// Every word of a short fixed text predicts its neighbours (one word to each side).
// tf.nn.embedding_lookup picks the rows of the embedding matrix for a batch of centre
// words, and a softmax over the whole vocabulary scores the context word. The word2vec
// tutorial samples with tf.nn.nce_loss instead of the full softmax; symflow has no
// nce_loss yet, and with ten words the full softmax is cheap anyway. After training,
// words used in the same places move closer ("mat" and "rug", "sat" and "ate"); with
// four dimensions and 42 pairs the neighbours are rough ("cat" lands nearest to "on").
//
// Checked against TensorFlow: the same program in Python (tf.compat.v1, graph mode, the
// same seeded random_uniform / truncated_normal initial values, which symflow draws as
// TensorFlow does) prints the same losses, similarities and neighbours (4 decimals).
// Gradient descent is used on purpose: symflow's gradient of embedding_lookup is a dense
// tensor where TensorFlow's is IndexedSlices, which gives the same plain SGD update but
// would not for Adam, whose sparse update skips the rows not looked up.
#include <cstdint>
#include <cstdio>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <symflow/symflow.hpp>

namespace tf = symflow;

int main() {
  const std::string text =
      "the cat sat on the mat the dog sat on the rug the cat ate the fish the dog ate the bone";

  // Vocabulary in order of first appearance; every word as its id.
  std::vector<std::string> vocab;
  std::map<std::string, std::int32_t> id_of;
  std::vector<std::int32_t> ids;
  std::istringstream words(text);
  for (std::string w; words >> w;) {
    if (!id_of.contains(w)) {
      id_of[w] = static_cast<std::int32_t>(vocab.size());
      vocab.push_back(w);
    }
    ids.push_back(id_of[w]);
  }
  // Skip-gram pairs (centre, context) with a window of one word on each side.
  std::vector<std::int32_t> centres, contexts;
  for (std::size_t i = 0; i < ids.size(); ++i)
    for (std::size_t j : {i - 1, i + 1})
      if (j < ids.size()) {  // i - 1 wraps around past 0
        centres.push_back(ids[i]);
        contexts.push_back(ids[j]);
      }
  const auto vocab_size = static_cast<std::int64_t>(vocab.size());
  const std::int64_t dim = 4;
  const auto pairs = static_cast<std::int64_t>(centres.size());
  std::printf("%lld words, %lld distinct, %lld pairs\n", static_cast<long long>(ids.size()),
              static_cast<long long>(vocab_size), static_cast<long long>(pairs));

  auto inputs = tf::placeholder<std::int32_t>({-1}, "inputs");
  auto labels = tf::placeholder<std::int32_t>({-1}, "labels");

  // embeddings = tf.Variable(tf.random_uniform([V, D], -1.0, 1.0, seed=1))
  tf::Variable embeddings(tf::random_uniform({vocab_size, dim}, {.minval = -1.0, .seed = 1}),
                          {.name = "embeddings"});
  tf::Variable softmax_w(tf::truncated_normal({vocab_size, dim}, {.stddev = 0.5, .seed = 2}),
                         {.name = "softmax_w"});
  tf::Variable softmax_b(tf::zeros({vocab_size}, tf::float32), {.name = "softmax_b"});

  auto embed = tf::nn::embedding_lookup(embeddings, inputs);  // [batch, D]
  auto logits = tf::matmul(embed, softmax_w, false, true) + softmax_b;
  auto loss = tf::reduce_mean(tf::nn::sparse_softmax_cross_entropy_with_logits(labels, logits));
  auto train_op = tf::train::GradientDescentOptimizer(0.5).minimize(loss);

  // Cosine similarity of every word with every other: normalise the rows, multiply.
  auto normalized = tf::nn::l2_normalize(embeddings, 1);
  auto similarity = tf::matmul(normalized, normalized, false, true);
  auto nearest = tf::nn::top_k(similarity, 3);  // the first is the word itself

  tf::Session sess;
  sess.run(tf::global_variables_initializer());
  tf::FeedDict feed{{inputs, tf::Value::from_vector(centres, {pairs})},
                    {labels, tf::Value::from_vector(contexts, {pairs})}};
  for (int step = 0; step <= 500; ++step) {
    if (step % 100 == 0)
      std::printf("step %3d  loss %.4f\n", step, sess.run(loss, feed).scalar<float>());
    sess.run(train_op, feed);
  }

  auto sim = sess.run(similarity).to_vector<float>();
  auto cosine = [&](const char* a, const char* b) { return sim[id_of[a] * vocab_size + id_of[b]]; };
  std::printf("cos(cat, dog) %.4f  cos(cat, on) %.4f  cos(mat, rug) %.4f\n", cosine("cat", "dog"),
              cosine("cat", "on"), cosine("mat", "rug"));
  auto top = sess.run({nearest.values, nearest.indices});
  auto top_values = top[0].to_vector<float>();
  auto top_ids = top[1].to_vector<std::int32_t>();
  for (const char* word : {"cat", "sat", "mat", "fish"}) {
    const std::int64_t row = id_of[word] * 3;
    std::printf("nearest to %-4s: %s (%.4f), %s (%.4f)\n", word, vocab[top_ids[row + 1]].c_str(),
                top_values[row + 1], vocab[top_ids[row + 2]].c_str(), top_values[row + 2]);
  }
}
