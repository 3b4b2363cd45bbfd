#include "mlgo/training/ppo_loss.h"

#include <algorithm>

namespace mlgo {

PPOLossTerms ppoLoss(const torch::Tensor &newLogits, const torch::Tensor &oldLogits, const torch::Tensor &actions,
                     const torch::Tensor &advantages, double klBeta, const std::vector<torch::Tensor> &kernels,
                     const PPOHyperparameters &hyper) {
  PPOLossTerms terms;
  const torch::Tensor newLogProbs = torch::log_softmax(newLogits, 1);
  const torch::Tensor oldLogProbs = torch::log_softmax(oldLogits, 1).detach();
  const torch::Tensor index = actions.to(torch::kInt64).unsqueeze(1);
  const torch::Tensor ratio =
      torch::exp(newLogProbs.gather(1, index).squeeze(1) - oldLogProbs.gather(1, index).squeeze(1));
  const torch::Tensor clippedRatio =
      torch::clamp(ratio, 1 - hyper.importanceRatioClipping, 1 + hyper.importanceRatioClipping);
  const torch::Tensor advantage = advantages.detach();
  terms.policyGradient = -torch::min(ratio * advantage, clippedRatio * advantage).mean();
  terms.clippedShare = (ratio - clippedRatio).abs().gt(0).to(torch::kFloat64).mean().item<double>();

  const torch::Tensor entropy = -(torch::exp(newLogProbs) * newLogProbs).sum(1).mean();
  terms.entropyRegularization = -hyper.entropyRegularization * entropy;
  terms.meanEntropy = entropy.item<double>();

  const torch::Tensor kl = (torch::exp(oldLogProbs) * (oldLogProbs - newLogProbs)).sum(1).mean();
  terms.meanKl = kl.item<double>();
  const double cutoff = hyper.klCutoffFactor * hyper.klTarget;
  terms.klPenalty = klBeta * kl + hyper.klCutoffCoefficient * torch::square(torch::relu(kl - cutoff));

  terms.l2Regularization = torch::zeros({}, newLogits.options());
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
