#include "mlgo/problems/inlining/inlining_channel_policy.h"

#include <algorithm>
#include <cstring>
#include <optional>

#include "mlgo/problems/inlining/inlining_hook.h"
#include "mlgo/support/errors.h"

namespace mlgo::inlining {

namespace {

class InliningChannelPolicy final : public serve::ChannelPolicy {
 public:
  explicit InliningChannelPolicy(std::shared_ptr<const Policy> policy)
      : policy_(std::move(policy)), spec_(trace::DecisionSpec::int64Scalars(featureNames())) {}

  std::string problem() const override { return "inlining"; }
  const trace::DecisionSpec &decisionSpec() const override { return spec_; }
  std::string compilerFlags(const std::string &base) const override {
    return "-mllvm -enable-ml-inliner=release -mllvm -inliner-interactive-channel-base=" + base + " -mllvm " +
           advisorSizeFlag();
  }

  /// Where each of LLVM's inlining features sits in the compiler's
  /// observations (it may send them in another order, and the default).
  serve::TensorSpecification connect(const serve::LogHeader &header, const std::string &source) override {
    std::vector<std::optional<size_t>> offsetOf(featureCount());
    defaultOffset_.reset();
    size_t offset = 0;
    for (const serve::TensorSpecification &tensor : header.features) {
      const auto &names = featureNames();
      const auto found = std::find(names.begin(), names.end(), tensor.name);
      const bool isDefault = tensor.name == defaultDecisionName();
      if ((found != names.end() || isDefault) && (tensor.type != "int64_t" || tensor.elementCount() != 1))
        throw InputError(describeInputProblem(source, "header: feature " + tensor.name,
                                              "is " + tensor.type + " with " + std::to_string(tensor.elementCount()) +
                                                  " elements; LLVM 19's inliner sends one int64_t"));
      if (found != names.end()) offsetOf[found - names.begin()] = offset;
      if (isDefault) defaultOffset_ = offset;
      offset += tensor.byteSize();
    }
    offsets_.clear();
    std::vector<std::string> missing;
    for (size_t f = 0; f < offsetOf.size(); ++f) {
      if (offsetOf[f])
        offsets_.push_back(*offsetOf[f]);
      else
        missing.push_back(featureNames()[f]);
    }
    if (!missing.empty()) {
      std::string list;
      for (size_t i = 0; i < missing.size() && i < 5; ++i) list += (i ? ", " : "") + missing[i];
      if (missing.size() > 5) list += ", ...";
      throw InputError(describeInputProblem(
          source, "header",
          "the compiler's feature set does not match the policy's (LLVM 19's inlining features): " +
              std::to_string(missing.size()) + " missing (" + list + ")"));
    }
    return header.advice.value_or(serve::scalarInt64(decisionName()));
  }

  Decision decide(const char *observation, int64_t *words) const override {
    for (size_t f = 0; f < offsets_.size(); ++f) std::memcpy(&words[f], observation + offsets_[f], sizeof(int64_t));
    DecisionInput input;
    input.features = words;
    if (defaultOffset_) std::memcpy(&input.defaultDecision, observation + *defaultOffset_, sizeof(int64_t));
    return {policy_->decide(input) ? 1 : 0, input.defaultDecision};
  }

 private:
  std::shared_ptr<const Policy> policy_;
  trace::DecisionSpec spec_;
  std::vector<size_t> offsets_;         ///< per featureNames(), byte offset in an observation
  std::optional<size_t> defaultOffset_;  ///< "inlining_default", when sent
};

}  // namespace

std::unique_ptr<serve::ChannelPolicy> makeChannelPolicy(std::shared_ptr<const Policy> policy) {
  return std::make_unique<InliningChannelPolicy>(std::move(policy));
}

}  // namespace mlgo::inlining

namespace mlgo::inlining {

serve::ServeSummary serveInlining(const Policy &policy, const serve::ServeOptions &options) {
  const std::unique_ptr<serve::ChannelPolicy> served =
      makeChannelPolicy(std::shared_ptr<const Policy>(&policy, [](const Policy *) {}));
  return serve::serveChannel(*served, options);
}

}  // namespace mlgo::inlining
