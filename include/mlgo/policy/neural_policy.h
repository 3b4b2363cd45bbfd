#pragma once
// A PolicyModel deciding inlining greedily (argmax) inside the driver's hook.
#include <memory>

#include "mlgo/policy/policy_model.h"
#include "mlgo/problems/inlining/inlining_policy.h"

namespace mlgo {

class NeuralInliningPolicy final : public inlining::Policy {
 public:
  explicit NeuralInliningPolicy(std::shared_ptr<const PolicyModel> model) : model_(std::move(model)) {}
  bool decide(const inlining::DecisionInput &input) const override { return model_->decide(input.features); }

 private:
  std::shared_ptr<const PolicyModel> model_;
};

}  // namespace mlgo
