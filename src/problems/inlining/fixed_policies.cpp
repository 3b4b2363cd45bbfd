#include "mlgo/problems/inlining/fixed_policies.h"

namespace mlgo::inlining {

namespace {

class DefaultPolicy final : public Policy {
 public:
  bool needsDefaultDecision() const override { return true; }
  bool decide(const DecisionInput &input) const override { return input.defaultDecision == 1; }
  std::string memoKey() const override { return "fixed:default"; }
};

class ConstantPolicy final : public Policy {
 public:
  explicit ConstantPolicy(bool inlineAll) : inlineAll_(inlineAll) {}
  bool decide(const DecisionInput &) const override { return inlineAll_; }
  std::string memoKey() const override { return inlineAll_ ? "fixed:always" : "fixed:never"; }

 private:
  bool inlineAll_;
};

}  // namespace

std::optional<FixedChoice> parseFixedChoice(const std::string &name) {
  if (name == "default") return FixedChoice::Default;
  if (name == "never") return FixedChoice::Never;
  if (name == "always") return FixedChoice::Always;
  return std::nullopt;
}

const char *fixedChoiceName(FixedChoice choice) {
  switch (choice) {
    case FixedChoice::Default: return "default";
    case FixedChoice::Never: return "never";
    case FixedChoice::Always: return "always";
  }
  return "unknown";
}

std::shared_ptr<const Policy> makeFixedPolicy(FixedChoice choice) {
  switch (choice) {
    case FixedChoice::Default: return std::make_shared<DefaultPolicy>();
    case FixedChoice::Never: return std::make_shared<ConstantPolicy>(false);
    case FixedChoice::Always: return std::make_shared<ConstantPolicy>(true);
  }
  return nullptr;
}

}  // namespace mlgo::inlining
