#include "mlgo/training/shared/warm_start.h"

#include <string>
#include <vector>

#include "mlgo/problems/problem.h"
#include "mlgo/support/errors.h"

namespace mlgo {

namespace {

/// Throws UsageError when a starting policy's network differs from the
/// config's hidden_layers and activation.
void checkStartingNetwork(const std::vector<size_t> &hidden, Activation activation, const NetworkShape &shape) {
  const std::vector<size_t> expected(shape.hiddenLayers.begin(), shape.hiddenLayers.end());
  const Activation configured = shape.activation;
  if (hidden != expected || activation != configured)
    throw UsageError("the starting policy's network (hidden_layers and activation) differs from the config's: " +
                     nlohmann::json(hidden).dump() + " " + activationName(activation) + " vs " +
                     nlohmann::json(expected).dump() + " " + activationName(configured));
}

}  // namespace

YesNoPolicy loadStartingYesNoPolicy(const Problem &problem, const std::filesystem::path &directory,
                                    const std::filesystem::path &vocab, const NetworkShape &shape) {
  YesNoPolicy start = YesNoPolicy::load(directory, problem.name(), problem.featureNames());
  if (!vocab.empty()) start.checkVocab(vocab);
  checkStartingNetwork(start.hiddenSizes(), start.activation(), shape);
  return start;
}

PositionPolicy loadStartingPositionPolicy(const Problem &problem, const std::filesystem::path &directory,
                                          const NetworkShape &shape) {
  PositionPolicy start = PositionPolicy::load(directory, problem.name(), problem.decisionSpec());
  checkStartingNetwork(start.network().hiddenSizes(), start.network().activation(), shape);
  return start;
}

ContinuousPolicy loadStartingContinuousPolicy(const Problem &problem, const std::filesystem::path &directory,
                                              const NetworkShape &shape) {
  ContinuousPolicy start = ContinuousPolicy::load(directory, problem.name(), problem.decisionSpec());
  checkStartingNetwork(start.network().hiddenSizes(), start.network().activation(), shape);
  return start;
}

}  // namespace mlgo
