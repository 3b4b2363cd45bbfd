#pragma once
// train-es's settings, each declared once (es_settings.cpp).
#include <cstddef>
#include <cstdint>

#include <nlohmann/json.hpp>

#include "mlgo/training/shared/settings_schema.h"

namespace mlgo {

enum class FitnessShaping { CenteredRanks, ZScores };

struct ESSettings {
  int64_t iterations = 0;
  size_t perturbations = 0;  ///< antithetic pairs per iteration
  size_t modulesPerIteration = 0;
  double sigma = 0;
  double learningRate = 0;
  double adamBeta1 = 0, adamBeta2 = 0, adamEpsilon = 0;
  FitnessShaping shaping = FitnessShaping::CenteredRanks;
  int64_t checkpointEvery = 0;
};

const SettingsSchema<ESSettings> &esSettingsSchema();

/// The typed settings of a resolved config (an empty object: the defaults);
/// UsageError naming a bad key.
inline ESSettings readESSettings(const nlohmann::json &config) { return esSettingsSchema().read(config); }

}  // namespace mlgo
