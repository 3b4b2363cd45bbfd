// A regalloc policy served to a stock clang-19 or llc-19 (`mlgo serve
// --problem regalloc`): LLVM's release-mode eviction advisor sends the 21
// eviction tensors of each decision over its interactive channel and evicts
// the position it reads back.
#include "mlgo/problems/regalloc/eviction_channel_policy.h"

#include <cstring>

#include "mlgo/problems/regalloc/eviction_hook.h"

namespace mlgo::regalloc {

namespace {

class EvictionChannelPolicy final : public serve::ChannelPolicy {
 public:
  explicit EvictionChannelPolicy(std::shared_ptr<const PositionPolicy> policy) : policy_(std::move(policy)) {}

  std::string problem() const override { return "regalloc"; }
  const trace::DecisionSpec &decisionSpec() const override { return regalloc::decisionSpec(); }
  std::string compilerFlags(const std::string &base) const override {
    return "-mllvm -regalloc-enable-advisor=release -mllvm -regalloc-evict-interactive-channel-base=" + base;
  }
  serve::TensorSpecification connect(const serve::LogHeader &header, const std::string &source) override {
    serve::requireFeatures(header, decisionSpec(), source);
    return header.advice.value_or(serve::scalarInt64(kDecisionName));
  }
  /// The observation is the decision's tensors in the spec's order: the
  /// trace's words are its bytes.
  Decision decide(const char *observation, int64_t *words) const override {
    const size_t bytes = decisionSpec().decisionBytes();
    std::memset(words, 0, decisionSpec().decisionWords() * sizeof(int64_t));
    std::memcpy(words, observation, bytes);
    const int64_t position = policy_->decide(words);
    // A mask that allows nothing never comes from LLVM; answer "evict
    // nothing" rather than an invalid position.
    return {position >= 0 ? position : kCandidatePosition, -1};
  }

 private:
  std::shared_ptr<const PositionPolicy> policy_;
};

}  // namespace

std::unique_ptr<serve::ChannelPolicy> makeChannelPolicy(std::shared_ptr<const PositionPolicy> policy) {
  return std::make_unique<EvictionChannelPolicy>(std::move(policy));
}

}  // namespace mlgo::regalloc
