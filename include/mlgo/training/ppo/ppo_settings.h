#pragma once
// train-ppo's settings, each declared once (ppo_settings.cpp): ml-compiler-opt's
// ppo_nn_agent.gin values are the defaults; a problem's file
// (configs/<folder>/...ppo.json) holds only what it changes.
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "mlgo/policy/dense_network.h"
#include "mlgo/training/shared/settings_schema.h"

namespace mlgo {

struct PPOSettings {
  // The actor network.
  std::vector<int64_t> hiddenLayers;
  Activation activation = Activation::Relu;
  // How long the run is and how much each iteration collects and learns.
  int64_t policyIterations = 0, modulesPerIteration = 0, gradientSteps = 0, batchSize = 0, sequenceLength = 0;
  double learningRate = 0, adamEpsilon = 0;
  // The PPO loss (PPOHyperparameters) and its adaptive KL coefficient.
  double importanceRatioClipping = 0, entropyRegularization = 0, policyL2 = 0;
  double initialKlBeta = 0, klTarget = 0, klTolerance = 0, klCutoffFactor = 0, klCutoffCoefficient = 0;
  bool normalizeAdvantages = true;
  // The reward.
  double decay = 0, delta = 0;
  std::string rewardMetric, rewardScope, segmentReward;
  // The policy's inputs and its sampling.
  double warmstartTemperature = 1, valueStd = 0;
  bool withSqrt = false;
  std::vector<std::string> passthroughFeatures;
  // Checkpoints and when a run stops.
  int64_t checkpointEvery = 0, maxBadIterations = 0;
  double maxFailedShare = 0;
};

const SettingsSchema<PPOSettings> &ppoSettingsSchema();

/// The typed settings of a resolved config; UsageError naming a bad key.
inline PPOSettings readPPOSettings(const nlohmann::json &config) { return ppoSettingsSchema().read(config); }

}  // namespace mlgo
