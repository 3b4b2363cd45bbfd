// LibTorch's products reach mlgo's own BLAS routines, with the right answers
// for every transpose and stride LibTorch uses, and ATen runs its portable
// kernels. Whole training runs under several CPU kernels are compared in
// test/cli/reproducibility_test.cpp.
#include <torch/torch.h>

#include <catch2/catch.hpp>

#include "mlgo/training/shared/deterministic_torch.h"

using namespace mlgo;

namespace {

/// The product computed element by element in double, from the tensors'
/// values: the reference mlgo's routines must agree with.
torch::Tensor referenceProduct(const torch::Tensor &a, const torch::Tensor &b) {
  auto left = a.to(torch::kDouble).contiguous(), right = b.to(torch::kDouble).contiguous();
  auto result = torch::zeros({a.size(0), b.size(1)}, torch::kDouble);
  auto l = left.accessor<double, 2>(), r = right.accessor<double, 2>(), out = result.accessor<double, 2>();
  for (int64_t i = 0; i < a.size(0); ++i)
    for (int64_t j = 0; j < b.size(1); ++j)
      for (int64_t k = 0; k < a.size(1); ++k) out[i][j] += l[i][k] * r[k][j];
  return result;
}

}  // namespace

TEST_CASE("deterministic torch: ATen's portable kernels and mlgo's BLAS answer LibTorch's products",
          "[training][determinism]") {
  startDeterministicTorch(3);
  CHECK(torchCpuKernels() == "CPU capability usage: NO AVX");
  const torch::Tensor a = torch::randn({37, 23}), b = torch::randn({23, 41}), v = torch::randn({23});
  const uint64_t before = deterministicBlasCalls();
  // Plain, transposed on either side (LibTorch passes a transposed view as
  // a transposed BLAS operand), with alpha, beta and a bias.
  CHECK(torch::allclose(torch::mm(a, b).to(torch::kDouble), referenceProduct(a, b), 1e-5, 1e-5));
  const torch::Tensor at = a.t().contiguous().t(), bt = b.t().contiguous().t();
  CHECK(torch::allclose(torch::mm(at, bt).to(torch::kDouble), referenceProduct(a, b), 1e-5, 1e-5));
  const torch::Tensor bias = torch::randn({41});
  CHECK(torch::allclose(torch::addmm(bias, a, b, 0.5, 2.0).to(torch::kDouble),
                        0.5 * bias.to(torch::kDouble) + 2.0 * referenceProduct(a, b), 1e-4, 1e-4));
  // Matrix-vector, both ways, and a strided vector.
  CHECK(torch::allclose(torch::mv(a, v).to(torch::kDouble), referenceProduct(a, v.unsqueeze(1)).squeeze(1), 1e-5,
                        1e-5));
  const torch::Tensor w = torch::randn({37 * 2}).slice(0, 0, 74, 2);
  CHECK(torch::allclose(torch::mv(a.t(), w).to(torch::kDouble),
                        referenceProduct(a.t(), w.unsqueeze(1)).squeeze(1), 1e-5, 1e-5));
  CHECK(torch::dot(v, v).item<float>() == Approx((v.to(torch::kDouble) * v.to(torch::kDouble)).sum().item<double>())
                                              .epsilon(1e-5));
  CHECK(deterministicBlasCalls() >= before + 6);

  // A linear layer's forward and backward pass go through them too.
  torch::nn::Linear layer(23, 5);
  const uint64_t beforeLayer = deterministicBlasCalls();
  layer->forward(a).sum().backward();
  CHECK(deterministicBlasCalls() >= beforeLayer + 2);
}
