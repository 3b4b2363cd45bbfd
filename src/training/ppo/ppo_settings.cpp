#include "mlgo/training/ppo/ppo_settings.h"

#include "mlgo/training/shared/reward.h"

namespace mlgo {

namespace {

using S = PPOSettings;

/// Ranges where an earlier schema and validator disagreed: the iteration and
/// step counts are at least 1 (a run of none was refused); the decay is in
/// [0, 1] (1 keeps the default's value as the baseline); reward_delta is
/// positive (0 divides by an empty module's size of 0); the clipping is in
/// (0, 1) (1 or more would clip the ratio at 0 or below).
SettingsSchema<S> declare() {
  SettingsSchema<S> schema;
  schema.field("hidden_layers", &S::hiddenLayers, {40, 40, 20}, "actor MLP hidden layer sizes")
      .within(1, 4096)
      .choice("activation", &S::activation, Activation::Relu, {{"relu", Activation::Relu}, {"tanh", Activation::Tanh}},
              "relu or tanh")
      .field("num_policy_iterations", &S::policyIterations, 3000, "policy iterations (collect, then train)")
      .within(1, 1e9)
      .resumable()
      .field("num_modules", &S::modulesPerIteration, 100, "modules sampled per policy iteration")
      .within(1, 1e7)
      .field("num_iterations", &S::gradientSteps, 300, "gradient steps per policy iteration")
      .within(1, 1e7)
      .field("batch_size", &S::batchSize, 256, "sequences per gradient step")
      .within(1, 1e7)
      .field("train_sequence_length", &S::sequenceLength, 16, "consecutive decisions per sequence")
      .within(1, 1e6)
      .field("learning_rate", &S::learningRate, 3e-5, "Adam learning rate")
      .positive(1)
      .field("adam_epsilon", &S::adamEpsilon, 3.125e-4, "Adam epsilon")
      .positive(1)
      .field("importance_ratio_clipping", &S::importanceRatioClipping, 0.2, "PPO clipping of the importance ratio")
      .withinOpen(0, 1)
      .field("entropy_regularization", &S::entropyRegularization, 0.003, "weight of the entropy bonus")
      .within(0, 100)
      .field("policy_l2_reg", &S::policyL2, 1e-6, "L2 weight on the actor's kernels")
      .within(0, 100)
      .field("initial_adaptive_kl_beta", &S::initialKlBeta, 1.0, "initial KL penalty coefficient")
      .within(0, 1e6)
      .field("adaptive_kl_target", &S::klTarget, 0.01, "KL the coefficient adapts towards")
      .positive(100)
      .field("adaptive_kl_tolerance", &S::klTolerance, 0.3, "relative band around the target")
      .positive(100)
      .field("kl_cutoff_factor", &S::klCutoffFactor, 2.0, "KL above factor * target costs cutoff_coef * excess^2")
      .positive(1e6)
      .field("kl_cutoff_coef", &S::klCutoffCoefficient, 1000.0, "coefficient of the KL cutoff penalty")
      .within(0, 1e9)
      .field("normalize_advantages", &S::normalizeAdvantages, true, "normalize advantages per batch (TF-Agents does)")
      .field("moving_average_decay_rate", &S::decay, 0.8, "decay of the per-module reward baseline")
      .within(0, 1)
      .field("reward_delta", &S::delta, kRewardDelta, "delta in 1 - (size + delta) / (baseline + delta)")
      .positive(1e9)
      .field("reward_metric", &S::rewardMetric, "text",
             "what the reward measures: text, text+data or a measure of the problem (regalloc_score)")
      .field("reward_scope", &S::rewardScope, "module",
             "module: every decision gets its module's reward; function (regalloc): its function's, against that "
             "function's default")
      .field("segment_reward", &S::segmentReward, "relative",
             "with reward_scope function: relative (1 - (score + delta) / (baseline + delta) of the function, as "
             "ml-compiler-opt) or module_share (the function's gain as a share of its module's score)")
      .oneOf({"relative", "module_share"})
      .field("warmstart_temperature", &S::warmstartTemperature, 1.0,
             "divides the warm start's logits: above 1 it explores more, with the same greedy decisions")
      .positive(1e6)
      .field("value_std", &S::valueStd, 0.1,
             "continuous decisions: the standard deviation of the Gaussian around the network's output (in the "
             "z-score units of log2(1 + value)) that collection samples from")
      .positive(100)
      .field("with_sqrt", &S::withSqrt, false, "without a warm start: add sqrt(x) per feature")
      .field("passthrough_features", &S::passthroughFeatures, {},
             "without a warm start: features that skip normalization")
      .field("checkpoint_every", &S::checkpointEvery, 100, "policy iterations between kept checkpoints (0: none)")
      .within(0, 1e9)
      .resumable()
      .field("max_failed_share", &S::maxFailedShare, 0.5, "an iteration with more failed modules than this is bad")
      .within(0, 1)
      .resumable()
      .field("max_bad_iterations", &S::maxBadIterations, 3, "bad iterations in a row that stop the run")
      .within(1, 1e9)
      .resumable();
  return schema;
}

}  // namespace

const SettingsSchema<PPOSettings> &ppoSettingsSchema() {
  static const SettingsSchema<PPOSettings> schema = declare();
  return schema;
}

}  // namespace mlgo
