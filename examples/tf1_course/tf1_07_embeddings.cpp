// TF1 course, lesson 7: word embeddings trained word2vec-style (skip-gram with
// noise-contrastive estimation).
//
// Every word of a short fixed text predicts its neighbours (one word to each side).
// tf.nn.embedding_lookup picks the rows of the embedding matrix for a batch of centre
// words, and tf.nn.nce_loss scores each true context word against a few sampled "noise"
// words instead of a softmax over the whole vocabulary: it learns to tell the real
// neighbour (logistic target 1) from the words drawn by a log-uniform sampler (target 0).
// That is what makes word2vec affordable for a vocabulary of millions; here ten words and
// four noise words per step are enough to see it work. Each run of the graph draws a new
// sample, so the loss is noisy from step to step, and a step that prints the loss runs
// the training op in the same run, on the same sample. After training, words used in the
// same places move close together ("cat" and "dog", "mat" and "rug", "sat" and "ate").
//
// The graph's random seed (tf.set_random_seed) seeds the sampler, whose op seed is then
// TensorFlow 1.x's: the number of ops in the graph when it is built. The initial values
// have their own op seeds. Checked against TensorFlow: the same program in Python
// (tf.compat.v1, graph mode; TensorFlow 2.x counts unseeded random ops instead, so there
// the sampler got that op seed explicitly) prints the same losses, similarities and
// neighbours.
//
// Plain gradient descent moves only the rows a step looked up: the centre words'
// embeddings, and the NCE weights and biases of the true and the sampled words.
#include <cstdint>
#include <cstdio>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <symflow/ops/sampled_losses.hpp>
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
  std::vector<std::int32_t> centres;
  std::vector<std::int64_t> contexts;  // nce_loss takes int64 labels
  for (std::size_t i = 0; i < ids.size(); ++i)
    for (std::size_t j : {i - 1, i + 1})
      if (j < ids.size()) {  // i - 1 wraps around past 0
        centres.push_back(ids[i]);
        contexts.push_back(ids[j]);
      }
  const auto vocab_size = static_cast<std::int64_t>(vocab.size());
  const std::int64_t dim = 4;
  const std::int64_t num_sampled = 4;  // noise words per step
  const auto pairs = static_cast<std::int64_t>(centres.size());
  std::printf("%lld words, %lld distinct, %lld pairs\n", static_cast<long long>(ids.size()),
              static_cast<long long>(vocab_size), static_cast<long long>(pairs));

  tf::set_random_seed(7);  // the sampler's seed
  auto inputs = tf::placeholder<std::int32_t>({-1}, "inputs");
  auto labels = tf::placeholder<std::int64_t>({-1, 1}, "labels");  // [batch, num_true]

  tf::Variable embeddings(tf::random_uniform({vocab_size, dim}, {.minval = -1.0, .seed = 1}),
                          {.name = "embeddings"});
  tf::Variable nce_weights(tf::truncated_normal({vocab_size, dim}, {.stddev = 0.5, .seed = 2}),
                           {.name = "nce_weights"});
  tf::Variable nce_biases(tf::zeros({vocab_size}, tf::float32), {.name = "nce_biases"});

  auto embed = tf::nn::embedding_lookup(embeddings, inputs);  // [batch, D]
  // One loss per pair: the true context word against num_sampled log-uniform noise words.
  auto loss = tf::reduce_mean(
      tf::nn::nce_loss(nce_weights, nce_biases, labels, embed, num_sampled, vocab_size));
  auto train_op = tf::train::GradientDescentOptimizer(0.5).minimize(loss);

  // Cosine similarity of every word with every other: normalise the rows, multiply.
  auto normalized = tf::nn::l2_normalize(embeddings, 1);
  auto similarity = tf::matmul(normalized, normalized, false, true);
  auto nearest = tf::nn::top_k(similarity, 3);  // the first is the word itself

  tf::Session sess;
  sess.run(tf::global_variables_initializer());
  tf::FeedDict feed{{inputs, tf::Value::from_vector(centres, {pairs})},
                    {labels, tf::Value::from_vector(contexts, {pairs, 1})}};
  for (int step = 0; step <= 500; ++step) {
    if (step % 100 == 0) {
      auto out = sess.run({loss, train_op}, feed);
      std::printf("step %3d  loss %.4f\n", step, out[0].scalar<float>());
    } else {
      sess.run(train_op, feed);
    }
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
