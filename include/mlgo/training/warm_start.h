#pragma once
// Starting a trainer from an existing policy (train-ppo's and train-bc's
// --warmstart): the policy is loaded and checked against the problem and the
// network the trainer's config describes. Include only from training code.
#include <filesystem>

#include <nlohmann/json.hpp>

#include "mlgo/policy/policy_model.h"
#include "mlgo/policy/position_policy.h"
#include "mlgo/policy/value_policy.h"

namespace mlgo {

class Problem;

/// The yes/no policy in `directory`. Throws InputError (naming the file) when
/// it is not `problem`'s or was preprocessed with another vocab than `vocab`
/// (checked when `vocab` is not empty), UsageError when its network differs
/// from the config's hidden_layers and activation.
PolicyModel loadStartingPolicy(const Problem &problem, const std::filesystem::path &directory,
                               const std::filesystem::path &vocab, const nlohmann::json &config);

/// The position policy in `directory`, checked as loadStartingPolicy does
/// (position policies carry their input statistics, no vocab).
PositionPolicy loadStartingPositionPolicy(const Problem &problem, const std::filesystem::path &directory,
                                          const nlohmann::json &config);

/// The value policy in `directory`, checked as loadStartingPositionPolicy does.
ValuePolicy loadStartingValuePolicy(const Problem &problem, const std::filesystem::path &directory,
                                    const nlohmann::json &config);

}  // namespace mlgo
