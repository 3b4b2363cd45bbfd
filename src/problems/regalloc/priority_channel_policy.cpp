#include "priority_channel_policy.h"

#include <cstring>

#include "mlgo/problems/regalloc/priority_hook.h"

namespace mlgo::regalloc {

namespace {

class PriorityChannelPolicy final : public serve::ChannelPolicy {
 public:
  explicit PriorityChannelPolicy(std::shared_ptr<const ContinuousPolicy> policy) : policy_(std::move(policy)) {}

  std::string problem() const override { return policy_->problem(); }
  const trace::DecisionSpec &decisionSpec() const override { return priorityDecisionSpec(); }
  std::string compilerFlags(const std::string &base) const override {
    return "-mllvm -regalloc-enable-priority-advisor=release -mllvm -regalloc-priority-interactive-channel-base=" +
           base;
  }
  serve::TensorSpecification connect(const serve::LogHeader &header, const std::string &source) override {
    serve::requireFeatures(header, decisionSpec(), source);
    return header.advice.value_or(serve::TensorSpecification{kPriorityDecisionName, "float", {1}, sizeof(float)});
  }
  /// The observation is li_size, stage and weight in the spec's order: the
  /// trace's words are its bytes. The answer is the float an exported model
  /// of the policy gives (export --format llvm-aot).
  Decision decide(const char *observation, int64_t *words) const override {
    std::memset(words, 0, decisionSpec().decisionWords() * sizeof(int64_t));
    std::memcpy(words, observation, decisionSpec().decisionBytes());
    Decision decision;
    decision.value = policy_->floatAnswer(words, kLargestPriority);
    return decision;
  }

 private:
  std::shared_ptr<const ContinuousPolicy> policy_;
};

}  // namespace

std::unique_ptr<serve::ChannelPolicy> makePriorityChannelPolicy(std::shared_ptr<const ContinuousPolicy> policy) {
  return std::make_unique<PriorityChannelPolicy>(std::move(policy));
}

}  // namespace mlgo::regalloc
