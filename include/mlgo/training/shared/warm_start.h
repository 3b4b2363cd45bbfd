#pragma once
// Starting a trainer from an existing policy (train-ppo's and train-bc's
// --warmstart): the policy is loaded and checked against the problem and the
// network the trainer's config describes. Include only from training code.
#include <filesystem>

#include <nlohmann/json.hpp>

#include "mlgo/policy/yes_no_policy.h"
#include "mlgo/policy/position_policy.h"
#include "mlgo/policy/continuous_policy.h"

namespace mlgo {

class Problem;

/// The network a trainer's settings describe (hidden_layers, activation).
struct NetworkShape {
  std::vector<int64_t> hiddenLayers;
  Activation activation = Activation::Relu;
};

/// The yes/no policy in `directory`. Throws InputError (naming the file) when
/// it is not `problem`'s or was preprocessed with another vocab than `vocab`
/// (checked when `vocab` is not empty), UsageError when its network differs
/// from `shape`.
YesNoPolicy loadStartingYesNoPolicy(const Problem &problem, const std::filesystem::path &directory,
                                    const std::filesystem::path &vocab, const NetworkShape &shape);

/// The position policy in `directory`, checked as loadStartingYesNoPolicy does
/// (position policies carry their input statistics, no vocab).
PositionPolicy loadStartingPositionPolicy(const Problem &problem, const std::filesystem::path &directory,
                                          const NetworkShape &shape);

/// The continuous policy in `directory`, checked as loadStartingPositionPolicy does.
ContinuousPolicy loadStartingContinuousPolicy(const Problem &problem, const std::filesystem::path &directory,
                                              const NetworkShape &shape);

}  // namespace mlgo
