// IDX reading: Debian's Fashion-MNIST files, and every way a file can be bad.

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include <symflow/data/idx.hpp>
#include <symflow/symflow.hpp>

#include "../test_util.hpp"

namespace symflow_test_data_idx_test {

using namespace symflow;
using namespace symflow::test;

namespace {
const std::string kFashion = "/usr/share/datasets/fashion-mnist";

std::vector<unsigned char> idx_bytes(std::vector<std::uint32_t> dims,
                                     std::vector<unsigned char> data) {
  std::vector<unsigned char> b = {0, 0, 0x08, static_cast<unsigned char>(dims.size())};
  for (auto d : dims)
    for (int s = 24; s >= 0; s -= 8) b.push_back(static_cast<unsigned char>(d >> s));
  b.insert(b.end(), data.begin(), data.end());
  return b;
}
}  // namespace

TEST_CASE("data/idx: parses a small image file") {
  Value v = data::parse_idx(idx_bytes({2, 1, 3}, {1, 2, 3, 4, 5, 6}), "mem");
  CHECK(v.dtype() == DType::uint8);
  CHECK(v.dims() == Dims{2, 1, 3});
  CHECK(v.to_vector<std::uint8_t>() == std::vector<std::uint8_t>{1, 2, 3, 4, 5, 6});
}

TEST_CASE("data/idx: every cut of a file and every bad header is a typed error") {
  auto good = idx_bytes({2, 2}, {9, 8, 7, 6});
  for (std::size_t n = 0; n < good.size(); ++n) {
    CAPTURE(n);
    std::vector<unsigned char> cut(good.begin(), good.begin() + static_cast<std::ptrdiff_t>(n));
    auto e = thrown<DataLossError>([&] { (void)data::parse_idx(cut, "cut.idx"); });
    REQUIRE(e);
    CHECK(contains(e->message(), "cut.idx"));
  }
  auto extra = good;
  extra.push_back(0);
  auto e = thrown<DataLossError>([&] { (void)data::parse_idx(extra, "extra.idx"); });
  REQUIRE(e);
  CHECK(contains(e->message(), "promises 4 bytes of data, the file has 5"));
  auto wrong_type = good;
  wrong_type[2] = 0x0D;  // float32 elements
  auto u = thrown<UnimplementedError>([&] { (void)data::parse_idx(wrong_type, "f.idx"); });
  REQUIRE(u);
  CHECK(contains(u->message(), "expected 8 (unsigned byte)"));
  auto magic = good;
  magic[0] = 1;
  CHECK(thrown<DataLossError>([&] { (void)data::parse_idx(magic, "m.idx"); }));
}

TEST_CASE("data/idx: a missing file is a NotFoundError naming it") {
  auto e = thrown<NotFoundError>([] { (void)data::read_idx("/nonexistent/x-idx1-ubyte.gz"); });
  REQUIRE(e);
  CHECK(contains(e->message(), "/nonexistent/x-idx1-ubyte.gz"));
}

TEST_CASE("data/idx: reads Debian's Fashion-MNIST test set") {
  auto d = data::load_idx_dataset(kFashion + "/t10k-images-idx3-ubyte.gz",
                                  kFashion + "/t10k-labels-idx1-ubyte.gz", 100);
  CHECK(d.size() == 100);
  CHECK(d.images.dims() == Dims{100, 784});
  CHECK(d.labels.dtype() == DType::int32);
  // The first test image is an ankle boot (label 9), as the data set's README shows.
  CHECK(d.labels.data<std::int32_t>()[0] == 9);
  auto pixels = d.images.flat<float>();
  CHECK(std::all_of(pixels.begin(), pixels.end(), [](float p) { return p >= 0 && p <= 1; }));
  CHECK(*std::max_element(pixels.begin(), pixels.end()) == 1.0f);
  auto full = data::read_idx(kFashion + "/t10k-labels-idx1-ubyte.gz");
  CHECK(full.dims() == Dims{10000});
}

}  // namespace symflow_test_data_idx_test
