// train-es for policies of a network over a decision's features, rewarded by
// the problem's own measure of the compile (LLVM's regalloc score), through
// the problem's policy hooks: decisions among positions (eviction, a
// PositionPolicy) and real-valued ones (priority, a ContinuousPolicy).
#include <numeric>

#include "mlgo/policy/position_policy.h"
#include "mlgo/policy/continuous_policy.h"
#include "mlgo/problems/problem.h"
#include "mlgo/support/errors.h"
#include "mlgo/training/es/es_objective.h"

namespace mlgo {

namespace {

/// `policy` with another network of the same shape.
PositionPolicy withNetwork(const PositionPolicy &policy, DenseNetwork network) {
  return PositionPolicy(policy.problem(), policy.spec(), policy.means(), policy.stddevs(), std::move(network));
}
ContinuousPolicy withNetwork(const ContinuousPolicy &policy, DenseNetwork network) {
  return ContinuousPolicy(policy.problem(), policy.spec(), policy.means(), policy.stddevs(), policy.targetScale(),
                          std::move(network));
}

Problem::HookMaker hooksOf(const Problem &problem, std::shared_ptr<const PositionPolicy> policy) {
  return problem.positionPolicyHooks(std::move(policy));
}
Problem::HookMaker hooksOf(const Problem &problem, std::shared_ptr<const ContinuousPolicy> policy) {
  return problem.continuousPolicyHooks(std::move(policy));
}

template <typename Policy>
class MeasuredESObjective final : public ESObjective {
 public:
  MeasuredESObjective(const Problem &problem, const std::filesystem::path &warmstart, const Corpus &corpus,
                      const CompilerDriver &driver)
      : ESObjective(corpus, driver, problem),
        start_(Policy::load(warmstart, problem.name(), problem.decisionSpec())),
        measure_(measureOf(problem)) {}

  std::vector<float> startWeights() const override { return start_.network().flatWeights(); }
  void savePolicy(const std::vector<float> &weights, const nlohmann::json &training,
                  const std::filesystem::path &directory) const override {
    Policy policy = withWeights(weights);
    policy.training = training;
    policy.save(directory);
  }
  std::string measureName() const override { return measure_; }

  /// Every compile in one batch: nothing replays here, and the pool stays
  /// busy while a large module compiles for one candidate.
  std::vector<ModuleMeasure> measure(const std::vector<std::vector<float>> &candidates,
                                     const std::vector<CandidateCompile> &compiles, int64_t) override {
    std::vector<Problem::HookMaker> makers;
    for (const std::vector<float> &weights : candidates)
      makers.push_back(hooksOf(problem_, std::make_shared<const Policy>(withWeights(weights))));
    std::vector<CompileRequest> requests;
    std::vector<std::shared_ptr<PipelineHook>> hooks;
    for (const CandidateCompile &compile : compiles) {
      hooks.push_back(makers.at(compile.candidate)());
      requests.push_back({&corpus_.modules.at(compile.module), "", {hooks.back()}});
    }
    const std::vector<CompileResult> results = driver_.compileAll(requests);
    std::vector<ModuleMeasure> measures;
    for (size_t r = 0; r < results.size(); ++r)
      measures.push_back({results[r].ok(), false, results[r].ok() ? measured(*hooks[r]) : 0.0});
    return measures;
  }

  /// The trace's measures, then the default's compile of every module the
  /// trace did not know: sampling needs every module's default.
  void readBaselines(const std::filesystem::path &given) override {
    if (!given.empty()) readTraceMeasures(given, measure_, defaults_);
    std::vector<size_t> all(corpus_.modules.size());
    std::iota(all.begin(), all.end(), size_t(0));
    learnMissingDefaults(all);
  }

  /// Modules whose default measure is above 0: where the default spills or
  /// copies nothing, no policy does better.
  std::vector<size_t> sampleable() const override {
    std::vector<size_t> modules;
    for (size_t i = 0; i < corpus_.modules.size(); ++i)
      if (defaults_.has(corpus_.modules[i].name) && defaults_.at(corpus_.modules[i].name).defaultSize > 0)
        modules.push_back(i);
    return modules;
  }

 private:
  static std::string measureOf(const Problem &problem) {
    const std::vector<std::string> names = problem.measureNames();
    if (names.size() != 1)
      throw UsageError("train-es for " + problem.name() + " needs the problem to measure exactly one thing");
    return names.front();
  }
  double measured(const PipelineHook &hook) const {
    const std::map<std::string, double> measures = problem_.measures(hook);
    auto found = measures.find(measure_);
    return found == measures.end() ? 0.0 : found->second;
  }
  double defaultMeasure(const CompileResult &, const PipelineHook *hook) const override {
    return hook ? measured(*hook) : 0.0;
  }
  std::shared_ptr<PipelineHook> measuringHook() const override { return problem_.measuringHook(); }
  Policy withWeights(const std::vector<float> &weights) const {
    return withNetwork(start_, start_.network().withFlatWeights(weights));
  }

  Policy start_;  ///< the network shape and input statistics every candidate shares
  std::string measure_;
};

}  // namespace

std::unique_ptr<ESObjective> makePositionESObjective(const Problem &problem, const std::filesystem::path &warmstart,
                                                     const Corpus &corpus, const CompilerDriver &driver, uint64_t,
                                                     TrajectoryMemo *) {
  return std::make_unique<MeasuredESObjective<PositionPolicy>>(problem, warmstart, corpus, driver);
}

std::unique_ptr<ESObjective> makeContinuousESObjective(const Problem &problem, const std::filesystem::path &warmstart,
                                                       const Corpus &corpus, const CompilerDriver &driver, uint64_t,
                                                       TrajectoryMemo *) {
  return std::make_unique<MeasuredESObjective<ContinuousPolicy>>(problem, warmstart, corpus, driver);
}

}  // namespace mlgo
