// LibTorch first: its logging defines a CHECK macro that Catch's must replace.
#include <torch/torch.h>
#undef CHECK
#include <catch2/catch.hpp>

#include <cmath>

#include "mlgo/training/ppo/ppo_loss.h"

using namespace mlgo;

namespace {
torch::Tensor logits(std::vector<float> values) {
  return torch::tensor(values, torch::kFloat32).reshape({-1, 2});
}
}  // namespace

TEST_CASE("ppo loss: an unchanged policy has no gradient term, only entropy", "[training][rl]") {
  const torch::Tensor old = logits({0, 0, 0, 0});
  PPOLossTerms terms =
      ppoLoss(categoricalTerms(old.clone(), old, torch::tensor({0, 1})), torch::tensor({1.0f, -1.0f}), 1.0, {}, {});
  CHECK(terms.policyGradient.item<double>() == Approx(0.0).margin(1e-7));  // -mean(1, -1)
  CHECK(terms.meanEntropy == Approx(std::log(2.0)));
  CHECK(terms.entropyRegularization.item<double>() == Approx(-0.003 * std::log(2.0)));
  CHECK(terms.meanKl == Approx(0.0).margin(1e-7));
  CHECK(terms.klPenalty.item<double>() == Approx(0.0).margin(1e-7));
  CHECK(terms.clippedShare == 0.0);
}

TEST_CASE("ppo loss: clipping, KL penalty with cutoff, L2, hand-computed", "[training][rl]") {
  // Old P(1) = 0.5, new P(1) = 0.75: the ratio of action 1 is 1.5, clipped to 1.2.
  const torch::Tensor old = logits({0, 0});
  torch::Tensor updated = logits({0, float(std::log(3.0))}).requires_grad_(true);
  const torch::Tensor kernel = torch::tensor({1.0f, 2.0f, 3.0f, 0.0f}).reshape({2, 2});

  // Positive advantage: min(1.5 * 2, 1.2 * 2) = 2.4 (the clipped side).
  PPOLossTerms positive = ppoLoss(categoricalTerms(updated, old, torch::tensor({1})),
                                  torch::tensor({2.0f}), 1.0, {kernel}, {});
  CHECK(positive.policyGradient.item<double>() == Approx(-2.4));
  CHECK(positive.clippedShare == 1.0);
  // The clipped side has no gradient through the ratio.
  positive.policyGradient.backward();
  CHECK(updated.grad().abs().sum().item<double>() == Approx(0.0).margin(1e-7));

  // Negative advantage: min(1.5 * -2, 1.2 * -2) = -3 (the unclipped side), which has a gradient.
  updated.mutable_grad() = torch::Tensor();
  PPOLossTerms negative = ppoLoss(categoricalTerms(updated, old, torch::tensor({1})),
                                  torch::tensor({-2.0f}), 1.0, {kernel}, {});
  CHECK(negative.policyGradient.item<double>() == Approx(3.0));
  negative.policyGradient.backward();
  // d/dz1 of -(r * A) with r = softmax1 / 0.5: -A * r * (1 - p1) = 2 * 1.5 * 0.25 = 0.75
  CHECK(updated.grad()[0][1].item<double>() == Approx(0.75).epsilon(1e-5));

  // KL(old || new) = 0.5 ln(0.5 / 0.25) + 0.5 ln(0.5 / 0.75) = 0.5 ln(4/3).
  const double kl = 0.5 * std::log(4.0 / 3.0);
  CHECK(positive.meanKl == Approx(kl));
  // beta * KL + 1000 * (KL - 2 * 0.01)^2
  CHECK(positive.klPenalty.item<double>() == Approx(kl + 1000 * (kl - 0.02) * (kl - 0.02)));
  // Entropy of (0.25, 0.75).
  CHECK(positive.meanEntropy == Approx(-(0.25 * std::log(0.25) + 0.75 * std::log(0.75))));
  // 1e-6 * (1 + 4 + 9 + 0)
  CHECK(positive.l2Regularization.item<double>() == Approx(14e-6));
  CHECK(positive.total.item<double>() ==
        Approx(-2.4 - 0.003 * positive.meanEntropy + positive.klPenalty.item<double>() + 14e-6));

  // Below the cutoff only beta * KL remains.
  PPOHyperparameters loose;
  loose.klCutoffFactor = 100;
  PPOLossTerms below = ppoLoss(categoricalTerms(updated, old, torch::tensor({1})),
                                  torch::tensor({2.0f}), 0.5, {}, loose);
  CHECK(below.klPenalty.item<double>() == Approx(0.5 * kl));
}

TEST_CASE("ppo loss: a real value's Gaussian, hand-computed", "[training][rl]") {
  // Old mean 0, new mean 0.1, both standard deviation 0.5; the sampled output 0.2.
  torch::Tensor updated = torch::tensor({0.1f}).requires_grad_(true);
  const DistributionTerms gaussian =
      gaussianTerms(updated, torch::tensor({0.0f}), torch::tensor({0.2f}), std::log(0.5), std::log(0.5));
  const double halfLogTwoPi = 0.5 * std::log(2 * M_PI);
  CHECK(gaussian.newLogProbability.item<double>() == Approx(-0.5 * 0.04 - std::log(0.5) - halfLogTwoPi));
  CHECK(gaussian.oldLogProbability.item<double>() == Approx(-0.5 * 0.16 - std::log(0.5) - halfLogTwoPi));
  CHECK(gaussian.entropy.item<double>() == Approx(0.5 + halfLogTwoPi + std::log(0.5)));
  CHECK(gaussian.kl.item<double>() == Approx(0.01 / (2 * 0.25)));  // (0.1)^2 / (2 sigma^2)

  // The ratio exp(0.06) is inside [0.8, 1.2]: the unclipped side, with a gradient
  // -A * ratio * (output - mean) / sigma^2 on the mean.
  PPOLossTerms terms = ppoLoss(gaussian, torch::tensor({1.0f}), 0.0, {}, {});
  CHECK(terms.policyGradient.item<double>() == Approx(-std::exp(0.06)));
  CHECK(terms.clippedShare == 0.0);
  terms.policyGradient.backward();
  CHECK(updated.grad()[0].item<double>() == Approx(-std::exp(0.06) * 0.1 / 0.25).epsilon(1e-5));

  // KL between standard deviations 1 (old) and 2 (new), same mean: log 2 + 1 / 8 - 1 / 2.
  const DistributionTerms wider =
      gaussianTerms(torch::tensor({0.0f}), torch::tensor({0.0f}), torch::tensor({0.0f}), std::log(2.0), 0.0);
  CHECK(wider.kl.item<double>() == Approx(std::log(2.0) + 0.125 - 0.5));
}

TEST_CASE("ppo loss: the adaptive KL coefficient", "[training][rl]") {
  PPOHyperparameters hyper;  // target 0.01, tolerance 0.3: band [0.007, 0.013]
  CHECK(adaptKlBeta(1.0, 0.02, hyper) == Approx(1.5));
  CHECK(adaptKlBeta(1.0, 0.005, hyper) == Approx(1 / 1.5));
  CHECK(adaptKlBeta(1.0, 0.01, hyper) == 1.0);
  CHECK(adaptKlBeta(1e-16, 0.0, hyper) == 1e-16);  // floor
}

TEST_CASE("ppo loss: advantages normalized over the batch", "[training][rl]") {
  torch::Tensor normalized = normalizeAdvantages(torch::tensor({1.0f, 2.0f, 3.0f}));
  const double expected = 1 / std::sqrt(2.0 / 3.0 + 1e-8);
  CHECK(normalized[0].item<double>() == Approx(-expected));
  CHECK(normalized[1].item<double>() == Approx(0.0).margin(1e-7));
  CHECK(normalized[2].item<double>() == Approx(expected));
  // A constant batch gives zeros, not NaN.
  CHECK(normalizeAdvantages(torch::tensor({0.5f, 0.5f})).abs().sum().item<double>() == 0.0);
}
