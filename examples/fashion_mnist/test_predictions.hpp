#pragma once
// The test-set evaluation shared by fashion_mnist and fashion_mnist_restore: the
// predicted class of every test image, the accuracy, and a checksum of the
// predictions, so that two programs can show they compute exactly the same thing.

#include <algorithm>
#include <cstdint>
#include <functional>
#include <vector>

#include <symflow/data/idx.hpp>
#include <symflow/io/crc32c.hpp>
#include <symflow/symflow.hpp>

namespace example {

struct TestPredictions {
  double accuracy = 0;
  std::uint32_t crc32c = 0;  // of the predicted classes, as int32 little-endian
};

// Runs `logits_of` (images [b, 784] -> logits [b, 10]) over the test set in batches
// of 1000, the same batches in every program, so the results match bit for bit.
inline TestPredictions predict_test_set(
    const symflow::data::Dataset& test,
    const std::function<symflow::Value(const symflow::Value&)>& logits_of) {
  const std::int64_t n = test.size(), batch = 1000, width = 784;
  std::vector<std::int32_t> predicted;
  predicted.reserve(static_cast<std::size_t>(n));
  for (std::int64_t b = 0; b < n; b += batch) {
    const std::int64_t e = std::min(n, b + batch);
    symflow::Value images(symflow::DType::float32, {e - b, width});
    std::copy_n(test.images.data<float>() + b * width, (e - b) * width, images.data<float>());
    symflow::Value logits = logits_of(images);
    const std::int64_t classes = logits.dims().at(1);
    const float* l = logits.data<float>();
    for (std::int64_t i = 0; i < e - b; ++i) {
      const float* row = l + i * classes;
      predicted.push_back(static_cast<std::int32_t>(std::max_element(row, row + classes) - row));
    }
  }
  std::int64_t right = 0;
  const std::int32_t* labels = test.labels.data<std::int32_t>();
  for (std::int64_t i = 0; i < n; ++i)
    right += predicted[static_cast<std::size_t>(i)] == labels[i] ? 1 : 0;
  return {static_cast<double>(right) / static_cast<double>(n),
          symflow::io::crc32c(predicted.data(), predicted.size() * sizeof(std::int32_t))};
}

}  // namespace example
