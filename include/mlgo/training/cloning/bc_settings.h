#pragma once
// train-bc's settings (behavioral cloning and imitation), each declared once
// (bc_settings.cpp): ml-compiler-opt's behavioral_cloning_nn_agent.gin values
// are the defaults.
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "mlgo/policy/dense_network.h"
#include "mlgo/training/shared/settings_schema.h"

namespace mlgo {

struct BCSettings {
  std::vector<int64_t> hiddenLayers;
  Activation activation = Activation::Relu;
  double dropout = 0, learningRate = 0, adamEpsilon = 0;
  int64_t batchSize = 0, iterations = 0;
  double holdoutFraction = 0;
  int64_t reportEvery = 0, checkpointEvery = 0;
  // The preprocessing of vocab-bucketized features (yes/no decisions).
  bool withSqrt = false, withZScore = false;
  std::vector<std::string> passthroughFeatures;
  // Imitation: how much a module's gain and a changed decision weigh.
  double gainWeight = 0, flipWeight = 0;
};

const SettingsSchema<BCSettings> &bcSettingsSchema();

/// The typed settings of a resolved config; UsageError naming a bad key.
inline BCSettings readBCSettings(const nlohmann::json &config) { return bcSettingsSchema().read(config); }

}  // namespace mlgo
