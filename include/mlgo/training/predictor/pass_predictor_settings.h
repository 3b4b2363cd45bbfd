#pragma once
// train-pass-predictor's settings, each declared once (pass_predictor_settings.cpp).
#include <cstddef>
#include <cstdint>
#include <vector>

#include <nlohmann/json.hpp>

#include "mlgo/training/shared/settings_schema.h"

namespace mlgo {

struct PassPredictorSettings {
  std::vector<int64_t> hiddenLayers;
  double learningRate = 0, weightDecay = 0;
  int64_t epochs = 0;
  double temperature = 0;
  size_t validationFolds = 0;
  int64_t reportEvery = 0;
};

const SettingsSchema<PassPredictorSettings> &passPredictorSettingsSchema();

/// The typed settings of a resolved config; UsageError naming a bad key.
inline PassPredictorSettings readPassPredictorSettings(const nlohmann::json &config) {
  return passPredictorSettingsSchema().read(config);
}

}  // namespace mlgo
