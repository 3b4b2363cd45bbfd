#pragma once
// A YesNoPolicy deciding inlining greedily (argmax) inside the driver's hook.
#include <memory>

#include "mlgo/driver/compile_memo.h"
#include "mlgo/policy/yes_no_policy.h"
#include "mlgo/problems/inlining/inlining_policy.h"

namespace mlgo {

class NeuralInliningPolicy final : public inlining::Policy {
 public:
  explicit NeuralInliningPolicy(std::shared_ptr<const YesNoPolicy> model)
      : model_(std::move(model)), memoKey_("neural:" + CompileMemo::hash(model_->serialize())) {}
  bool decide(const inlining::DecisionInput &input) const override { return model_->decide(input.features); }
  /// The whole model (weights, vocab, preprocessing): greedy decisions are a
  /// function of it.
  std::string memoKey() const override { return memoKey_; }

 private:
  std::shared_ptr<const YesNoPolicy> model_;
  std::string memoKey_;
};

}  // namespace mlgo
