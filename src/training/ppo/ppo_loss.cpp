#include "mlgo/training/ppo/ppo_loss.h"

#include <algorithm>
#include <cmath>

namespace mlgo {

DistributionTerms categoricalTerms(const torch::Tensor &newLogits, const torch::Tensor &oldLogits,
                                   const torch::Tensor &actions) {
  const torch::Tensor newLogProbs = torch::log_softmax(newLogits, 1);
  const torch::Tensor oldLogProbs = torch::log_softmax(oldLogits, 1).detach();
  const torch::Tensor index = actions.to(torch::kInt64).unsqueeze(1);
  DistributionTerms terms;
  terms.newLogProbability = newLogProbs.gather(1, index).squeeze(1);
  terms.oldLogProbability = oldLogProbs.gather(1, index).squeeze(1);
  terms.entropy = -(torch::exp(newLogProbs) * newLogProbs).sum(1);
  terms.kl = (torch::exp(oldLogProbs) * (oldLogProbs - newLogProbs)).sum(1);
  return terms;
}

DistributionTerms gaussianTerms(const torch::Tensor &newMeans, const torch::Tensor &oldMeans,
                                const torch::Tensor &outputs, double newLogStd, double oldLogStd) {
  const double halfLogTwoPi = 0.5 * std::log(2 * M_PI);
  auto logDensity = [&](const torch::Tensor &means, double logStd) {
    return -0.5 * torch::square((outputs - means) / std::exp(logStd)) - logStd - halfLogTwoPi;
  };
  DistributionTerms terms;
  terms.newLogProbability = logDensity(newMeans, newLogStd);
  terms.oldLogProbability = logDensity(oldMeans.detach(), oldLogStd).detach();
  terms.entropy = torch::full_like(newMeans, 0.5 + halfLogTwoPi + newLogStd);
  const double oldVariance = std::exp(2 * oldLogStd), newVariance = std::exp(2 * newLogStd);
  terms.kl = (newLogStd - oldLogStd) + (oldVariance + torch::square(oldMeans.detach() - newMeans)) / (2 * newVariance) -
             0.5;
  return terms;
}

PPOLossTerms ppoLoss(const DistributionTerms &distributions, const torch::Tensor &advantages, double klBeta,
                     const std::vector<torch::Tensor> &kernels, const PPOHyperparameters &hyper) {
  PPOLossTerms terms;
  const torch::Tensor ratio = torch::exp(distributions.newLogProbability - distributions.oldLogProbability);
  const torch::Tensor clippedRatio =
      torch::clamp(ratio, 1 - hyper.importanceRatioClipping, 1 + hyper.importanceRatioClipping);
  const torch::Tensor advantage = advantages.detach();
  terms.policyGradient = -torch::min(ratio * advantage, clippedRatio * advantage).mean();
  terms.clippedShare = (ratio - clippedRatio).abs().gt(0).to(torch::kFloat64).mean().item<double>();

  const torch::Tensor entropy = distributions.entropy.mean();
  terms.entropyRegularization = -hyper.entropyRegularization * entropy;
  terms.meanEntropy = entropy.item<double>();

  const torch::Tensor kl = distributions.kl.mean();
  terms.meanKl = kl.item<double>();
  const double cutoff = hyper.klCutoffFactor * hyper.klTarget;
  terms.klPenalty = klBeta * kl + hyper.klCutoffCoefficient * torch::square(torch::relu(kl - cutoff));

  terms.l2Regularization = torch::zeros({}, ratio.options());
  for (const torch::Tensor &kernel : kernels)
    terms.l2Regularization = terms.l2Regularization + torch::square(kernel).sum();
  terms.l2Regularization = hyper.policyL2 * terms.l2Regularization;

  terms.total = terms.policyGradient + terms.entropyRegularization + terms.klPenalty + terms.l2Regularization;
  return terms;
}

double adaptKlBeta(double beta, double kl, const PPOHyperparameters &hyper) {
  if (kl > hyper.klTarget * (1 + hyper.klTolerance)) beta *= 1.5;
  else if (kl < hyper.klTarget * (1 - hyper.klTolerance)) beta /= 1.5;
  return std::max(beta, 1e-16);
}

torch::Tensor normalizeAdvantages(const torch::Tensor &advantages) {
  const torch::Tensor mean = advantages.mean();
  const torch::Tensor variance = torch::square(advantages - mean).mean();
  return (advantages - mean) / torch::sqrt(variance + 1e-8);
}

}  // namespace mlgo
