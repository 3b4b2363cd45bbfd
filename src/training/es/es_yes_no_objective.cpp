// train-es for yes/no decisions (inlining): a YesNoPolicy, rewarded
// by the module's .text size; compiles are replayed from the trajectory memo
// where a candidate takes decisions already compiled.
#include "mlgo/policy/yes_no_policy.h"
#include "mlgo/policy/sampling_policy.h"
#include "mlgo/problems/problem.h"
#include "mlgo/training/shared/collector.h"
#include "mlgo/training/es/es_objective.h"
#include "mlgo/training/es/es_trainer.h"

namespace mlgo {

namespace {

class YesNoESObjective final : public ESObjective {
 public:
  YesNoESObjective(const Problem &problem, const std::filesystem::path &warmstart, const Corpus &corpus,
                   const CompilerDriver &driver, uint64_t seed, TrajectoryMemo *trajectories)
      : ESObjective(corpus, driver, problem),
        start_(YesNoPolicy::load(warmstart, problem.name(), problem.featureNames())),
        seed_(seed),
        trajectories_(trajectories) {}

  std::vector<float> startWeights() const override { return flattenWeights(start_); }
  void savePolicy(const std::vector<float> &weights, const nlohmann::json &training,
                  const std::filesystem::path &directory) const override {
    YesNoPolicy policy = withWeights(start_, weights);
    policy.training = training;
    policy.save(directory);
  }
  std::string measureName() const override { return "text"; }

  /// Candidate after candidate: a candidate's compiles replay the
  /// trajectories earlier candidates compiled (small perturbations mostly
  /// take the same decisions).
  std::vector<ModuleMeasure> measure(const std::vector<std::vector<float>> &candidates,
                                     const std::vector<CandidateCompile> &compiles, int64_t iteration) override {
    std::vector<ModuleMeasure> measures;
    for (size_t first = 0; first < compiles.size();) {
      size_t end = first;
      CollectionPlan plan;
      while (end < compiles.size() && compiles[end].candidate == compiles[first].candidate)
        plan.modules.push_back(compiles[end++].module);
      plan.seed = seed_;
      plan.iteration = uint64_t(iteration);
      plan.greedy = true;
      plan.trajectories = trajectories_;
      plan.needsDefault.assign(plan.modules.size(), false);
      const std::unique_ptr<SamplingPolicy> policy =
          samplingPolicy(withWeights(start_, candidates.at(compiles[first].candidate)));
      for (const CollectedModule &module : collectTrajectories(driver_, corpus_, problem_, *policy, plan)) {
        const bool ok = module.result.ok();
        // A compile replayed from the memo took no time.
        measures.push_back(
            {ok, module.result.seconds <= 0, ok ? double(mlgo::measure(module.result.sizes, SizeMetric::Text)) : 0.0});
      }
      first = end;
    }
    return measures;
  }
  bool replaysAcrossCandidates() const override { return trajectories_ != nullptr; }

  void readBaselines(const std::filesystem::path &given) override {
    if (!given.empty()) readTraceBaselines(given, SizeMetric::Text, defaults_);
  }

 private:
  double defaultMeasure(const CompileResult &result, const PipelineHook *) const override {
    return double(mlgo::measure(result.sizes, SizeMetric::Text));
  }
  std::shared_ptr<PipelineHook> measuringHook() const override { return nullptr; }

  YesNoPolicy start_;  ///< the network shape, preprocessing and vocab every candidate shares
  uint64_t seed_;
  TrajectoryMemo *trajectories_;
};

}  // namespace

std::unique_ptr<ESObjective> makeYesNoESObjective(const Problem &problem, const std::filesystem::path &warmstart,
                                                  const Corpus &corpus, const CompilerDriver &driver, uint64_t seed,
                                                  TrajectoryMemo *trajectories) {
  return std::make_unique<YesNoESObjective>(problem, warmstart, corpus, driver, seed, trajectories);
}

}  // namespace mlgo
