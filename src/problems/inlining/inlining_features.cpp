#include <llvm/Analysis/InlineModelFeatureMaps.h>

#include "mlgo/problems/inlining/inlining_policy.h"

namespace mlgo::inlining {

const std::vector<std::string> &featureNames() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> result;
    for (const llvm::TensorSpec &spec : llvm::FeatureMap) result.push_back(spec.name());
    return result;
  }();
  return names;
}

size_t featureCount() { return llvm::NumberOfFeatures; }
const char *decisionName() { return llvm::DecisionName; }
const char *defaultDecisionName() { return llvm::DefaultDecisionName; }

}  // namespace mlgo::inlining
