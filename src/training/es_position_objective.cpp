// train-es for decisions among positions (register allocation): a
// PositionPolicy, rewarded by the problem's own measure of the compile
// (LLVM's regalloc score), through the problem's policy hooks.
#include <numeric>

#include "mlgo/policy/position_policy.h"
#include "mlgo/problems/problem.h"
#include "mlgo/support/errors.h"
#include "mlgo/training/es_objective.h"

namespace mlgo {

namespace {

class PositionESObjective final : public ESObjective {
 public:
  PositionESObjective(const Problem &problem, const std::filesystem::path &warmstart, const Corpus &corpus,
                      const CompilerDriver &driver)
      : ESObjective(corpus, driver, problem),
        start_(PositionPolicy::load(warmstart, problem.name(), problem.decisionSpec())),
        measure_(measureOf(problem)) {}

  std::vector<float> startWeights() const override { return start_.network().flatWeights(); }
  void savePolicy(const std::vector<float> &weights, const nlohmann::json &training,
                  const std::filesystem::path &directory) const override {
    PositionPolicy policy = withWeights(weights);
    policy.training = training;
    policy.save(directory);
  }
  std::string measureName() const override { return measure_; }

  /// Every compile in one batch: nothing replays here, and the pool stays
  /// busy while a large module compiles for one candidate.
  std::vector<ModuleMeasure> measure(const std::vector<std::vector<float>> &candidates,
                                     const std::vector<CandidateCompile> &compiles, int64_t) override {
    std::vector<Problem::HookMaker> hooksOf;
    for (const std::vector<float> &weights : candidates)
      hooksOf.push_back(problem_.positionPolicyHooks(std::make_shared<const PositionPolicy>(withWeights(weights))));
    std::vector<CompileRequest> requests;
    std::vector<std::shared_ptr<PipelineHook>> hooks;
    for (const CandidateCompile &compile : compiles) {
      hooks.push_back(hooksOf.at(compile.candidate)());
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
  PositionPolicy withWeights(const std::vector<float> &weights) const {
    return PositionPolicy(start_.problem(), start_.spec(), start_.means(), start_.stddevs(),
                          start_.network().withFlatWeights(weights));
  }

  PositionPolicy start_;  ///< the network shape and input statistics every candidate shares
  std::string measure_;
};

}  // namespace

std::unique_ptr<ESObjective> makePositionESObjective(const Problem &problem, const std::filesystem::path &warmstart,
                                                     const Corpus &corpus, const CompilerDriver &driver) {
  return std::make_unique<PositionESObjective>(problem, warmstart, corpus, driver);
}

}  // namespace mlgo
