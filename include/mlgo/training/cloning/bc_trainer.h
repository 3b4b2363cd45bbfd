#pragma once
// `mlgo train-bc`: behavioral cloning of the decisions recorded in a trace (the
// default heuristic's, for a default trace), ml-compiler-opt's warm start.
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "mlgo/training/shared/config_schema.h"

namespace mlgo {

/// ml-compiler-opt's behavioral_cloning_nn_agent.gin defaults.
ConfigSchema behavioralCloningSchema();

struct BCOptions {
  std::filesystem::path trace;
  std::filesystem::path vocab;
  std::filesystem::path output;
  nlohmann::json config;  ///< resolved with behavioralCloningSchema()
  /// A policy of the trace's problem to start from instead of random weights
  /// (fine-tuning, e.g. a PPO policy on a search around it): its network and
  /// its input preprocessing are kept, so the config's hidden_layers and
  /// activation must match it and its preprocessing keys do not apply.
  std::optional<std::filesystem::path> warmstart;
  uint64_t seed = 0;
  /// Called with every metrics record (also appended to output/metrics.jsonl).
  std::function<void(const nlohmann::json &)> onMetrics;
};

struct BCSummary {
  size_t trainModules = 0, heldoutModules = 0;
  size_t trainDecisions = 0, heldoutDecisions = 0;
  double trainAgreement = 0, heldoutAgreement = 0;  ///< share of decisions equal to the trace's
  double loss = 0;
  double seconds = 0;
};

/// Trains and writes output/policy (the final policy, only when training
/// finished), output/checkpoints/iteration-N, output/config.json and
/// output/metrics.jsonl. Throws InputError for bad inputs, UsageError for an
/// invalid config.
BCSummary trainBehavioralCloning(const BCOptions &options);

}  // namespace mlgo
