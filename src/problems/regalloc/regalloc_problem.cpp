// Register allocation (eviction) as an mlgo problem: LLVM's default advisor's
// decisions traced with LLVM's own features, and LLVM's regalloc score as
// the module's measure.
#include <algorithm>
#include <cstring>

#include "mlgo/problems/problem.h"
#include "mlgo/problems/regalloc/eviction_hook.h"
#include "mlgo/support/errors.h"

namespace mlgo::regalloc {

namespace {

/// Takes the default's position at every decision and records it.
class TraceRecorder final : public EvictionSteer {
 public:
  explicit TraceRecorder(trace::ModuleTrace &trace) : trace_(trace), words_(decisionSpec().decisionWords()) {
    trace_.featureCount = words_.size();
    trace_.spec = &decisionSpec();
  }
  int64_t decide(const EvictionObservation &observation) override {
    std::fill(words_.begin(), words_.end(), 0);
    std::memcpy(words_.data(), observation.featureBytes.data(),
                std::min(observation.featureBytes.size(), words_.size() * sizeof(int64_t)));
    trace_.addDecision(words_.data(), observation.defaultPosition, observation.defaultPosition);
    return observation.defaultPosition;
  }

 private:
  trace::ModuleTrace &trace_;
  std::vector<int64_t> words_;
};

class RegallocProblem final : public Problem {
 public:
  std::string name() const override { return "regalloc"; }
  const trace::DecisionSpec &decisionSpec() const override { return regalloc::decisionSpec(); }
  std::shared_ptr<PipelineHook> defaultTracingHook(trace::ModuleTrace &trace) const override {
    return std::make_shared<EvictionHook>(std::make_shared<TraceRecorder>(trace));
  }
  std::shared_ptr<PipelineHook> steeringHook(DecisionSteer &) const override {
    throw UsageError("steering register-allocation decisions (explore, train-ppo, train-es) is not built yet");
  }
  std::map<std::string, double> baselineMeasures(const PipelineHook &tracingHook) const override {
    const auto *hook = dynamic_cast<const EvictionHook *>(&tracingHook);
    if (!hook) return {};
    return {{"regalloc_score", hook->score()}};
  }
};

}  // namespace

const Problem &regallocProblem() {
  static const RegallocProblem problem;
  return problem;
}

}  // namespace mlgo::regalloc
