#pragma once
// The keys of a training run's metrics.jsonl records (docs/formats.md,
// "Training metrics"), defined once for the trainers that write them and for
// `mlgo report`, which reads them.
namespace mlgo::metrics_keys {

inline constexpr const char *kIteration = "iteration";
inline constexpr const char *kDecisionsPerSecond = "decisions_per_second";
inline constexpr const char *kEntropy = "entropy";
inline constexpr const char *kKl = "kl";
inline constexpr const char *kKlBeta = "kl_beta";
inline constexpr const char *kClippedShare = "clipped_share";
inline constexpr const char *kGradientSteps = "gradient_steps";

/// What an iteration compiled: modules sampled, failed (with "failures", a
/// list of {"module", "reason"}), decisions made; train-es also counts its
/// candidates and compiles.
inline constexpr const char *kModules = "modules";
inline constexpr const char *kFailed = "failed";
inline constexpr const char *kDecisions = "decisions";
inline constexpr const char *kFailures = "failures";
inline constexpr const char *kFailureModule = "module";
inline constexpr const char *kFailureReason = "reason";
inline constexpr const char *kCandidates = "candidates";
inline constexpr const char *kCompiles = "compiles";
inline constexpr const char *kReplayed = "replayed";

/// train-es: {"mean", "best", "worst"} of the candidates' fitness, and the
/// policy's own mean reward.
inline constexpr const char *kFitness = "fitness";
inline constexpr const char *kFitnessBest = "best";
inline constexpr const char *kFitnessWorst = "worst";
inline constexpr const char *kPolicyReward = "policy_reward";

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

/// Facts of the run beside the iteration's figures.
inline constexpr const char *kTrainingRewardMean = "training_reward_mean";
inline constexpr const char *kBaselinesKnown = "baselines_known";
inline constexpr const char *kThreads = "threads";
inline constexpr const char *kModulesPerSecond = "modules_per_second";
/// The compile memo's statistics (CompileMemo's MemoStats), with the
/// trajectory tree's bytes.
inline constexpr const char *kMemo = "memo";
inline constexpr const char *kTrajectoryBytes = "trajectory_bytes";
/// {"count", "sent_bytes", "received_bytes"} over MPI ranks.
inline constexpr const char *kRanks = "ranks";
inline constexpr const char *kSentBytes = "sent_bytes";
inline constexpr const char *kReceivedBytes = "received_bytes";

}  // namespace mlgo::metrics_keys
