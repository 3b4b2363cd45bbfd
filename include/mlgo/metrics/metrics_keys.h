#pragma once
// The keys of a training run's metrics.jsonl records (docs/formats.md,
// "Training metrics"), defined once for the trainers that write them and for
// `mlgo report`, which reads them.
namespace mlgo::metrics_keys {

inline constexpr const char *kIteration = "iteration";
inline constexpr const char *kDecisionsPerSecond = "decisions_per_second";
inline constexpr const char *kEntropy = "entropy";
inline constexpr const char *kKl = "kl";

/// {"mean", "p10", "p25", "p50", "p75", "p90", "count"} of the per-module rewards.
inline constexpr const char *kRewardDistribution = "reward_distribution";
inline constexpr const char *kMean = "mean";
inline constexpr const char *kP10 = "p10";
inline constexpr const char *kP25 = "p25";
inline constexpr const char *kP50 = "p50";
inline constexpr const char *kP75 = "p75";
inline constexpr const char *kP90 = "p90";
inline constexpr const char *kCount = "count";

/// {"metric", "policy", "default", "change"}: the sampled modules' total size.
inline constexpr const char *kSize = "size";
inline constexpr const char *kSizeMetric = "metric";
inline constexpr const char *kSizePolicy = "policy";
inline constexpr const char *kSizeDefault = "default";
inline constexpr const char *kSizeChange = "change";

/// {"total", "policy_gradient", "entropy_regularization", "kl_penalty", "l2_regularization"}.
inline constexpr const char *kLoss = "loss";
inline constexpr const char *kLossTotal = "total";
inline constexpr const char *kLossPolicyGradient = "policy_gradient";
inline constexpr const char *kLossEntropy = "entropy_regularization";
inline constexpr const char *kLossKl = "kl_penalty";
inline constexpr const char *kLossL2 = "l2_regularization";

/// {"collect", "train", "compile_total", "elapsed"}.
inline constexpr const char *kSeconds = "seconds";
inline constexpr const char *kCollectSeconds = "collect";
inline constexpr const char *kTrainSeconds = "train";
inline constexpr const char *kCompileSeconds = "compile_total";
inline constexpr const char *kElapsedSeconds = "elapsed";

}  // namespace mlgo::metrics_keys
