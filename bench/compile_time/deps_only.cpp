// The dependencies alone: what a TU that uses Eigen, xtensor and nlohmann-json costs
// before it includes any of symflow.
#include <Eigen/Dense>
#include <iostream>
#include <nlohmann/json.hpp>
#include <xtensor/xarray.hpp>
#include <xtensor/xio.hpp>

int main() {
  Eigen::Vector3f a(1, 2, 3), b(4, 5, 6);
  xt::xarray<float> x = {1, 2, 3};
  nlohmann::json j = {{"sum", (a + b).sum()}};
  std::cout << j.dump() << " " << x << "\n";
}
