#pragma once
// The pieces of PPO's loss as TF-Agents' PPOAgent computes them with
// ml-compiler-opt's ppo_nn_agent.gin (no value network: value loss
// coefficient 0, discount 0, so the advantage is the reward). Training code
// only: pulls in torch.
#include <vector>

#include <torch/torch.h>

namespace mlgo {

struct PPOHyperparameters {
  double importanceRatioClipping = 0.2;
  double entropyRegularization = 0.003;
  double policyL2 = 1e-6;
  double klTarget = 0.01;
  double klTolerance = 0.3;
  double klCutoffFactor = 2.0;
  double klCutoffCoefficient = 1000.0;
};

struct PPOLossTerms {
  torch::Tensor total;
  torch::Tensor policyGradient;          ///< -mean(min(r * A, clip(r) * A))
  torch::Tensor entropyRegularization;   ///< -entropy_regularization * mean(entropy)
  torch::Tensor klPenalty;               ///< beta * KL + cutoff_coef * max(KL - cutoff, 0)^2
  torch::Tensor l2Regularization;        ///< policy_l2 * sum of squared kernel weights
  double meanEntropy = 0;                ///< of the new policy
  double meanKl = 0;                     ///< KL(old || new), mean over the batch
  double clippedShare = 0;               ///< share of ratios outside [1 - clip, 1 + clip]
};

/// What the loss needs of the policy being trained and of the collecting
/// policy, per decision (batch), whatever the kind of distribution.
struct DistributionTerms {
  torch::Tensor newLogProbability;  ///< of the collected action under the new policy (a density for values)
  torch::Tensor oldLogProbability;  ///< the same under the collecting policy, without gradient
  torch::Tensor entropy;            ///< of the new policy's distribution
  torch::Tensor kl;                 ///< KL(old || new)
};

/// A choice among actions: `newLogits`, `oldLogits`: batch x actions;
/// `actions`: batch (int64).
DistributionTerms categoricalTerms(const torch::Tensor &newLogits, const torch::Tensor &oldLogits,
                                   const torch::Tensor &actions);
/// A real value: Gaussians of means `newMeans` and `oldMeans` (batch) and
/// log standard deviations `newLogStd` and `oldLogStd`; `outputs`: the
/// collected samples (batch).
DistributionTerms gaussianTerms(const torch::Tensor &newMeans, const torch::Tensor &oldMeans,
                                const torch::Tensor &outputs, double newLogStd, double oldLogStd);

/// `advantages`: batch (already normalized if wanted); `kernels`: the weight
/// matrices the L2 term covers.
PPOLossTerms ppoLoss(const DistributionTerms &distributions, const torch::Tensor &advantages, double klBeta,
                     const std::vector<torch::Tensor> &kernels, const PPOHyperparameters &hyper);

/// TF-Agents' adaptive KL coefficient: x1.5 when KL is above target *
/// (1 + tolerance), /1.5 when below target * (1 - tolerance).
double adaptKlBeta(double beta, double kl, const PPOHyperparameters &hyper);

/// (A - mean) / sqrt(var + 1e-8) over the batch, as TF-Agents normalizes.
torch::Tensor normalizeAdvantages(const torch::Tensor &advantages);

}  // namespace mlgo
