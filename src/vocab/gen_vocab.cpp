#include "mlgo/vocab/gen_vocab.h"

#include <cstring>
#include <optional>

#include "mlgo/trace/position_layout.h"
#include "mlgo/support/errors.h"
#include "mlgo/support/sampling.h"
#include "mlgo/trace/trace_reader.h"
#include "mlgo/vocab/quantiles.h"
#include "mlgo/policy/vocab_files.h"

namespace mlgo {

namespace {

/// What gen-vocab reads of a decision: each feature tensor's elements, the
/// mask's forbidden positions left out (LLVM zero-fills them), the mask
/// itself not at all.
class DecisionValues {
 public:
  explicit DecisionValues(const trace::DecisionSpec &spec) : spec_(spec) {
    const size_t mask = spec.indexOf(PositionLayout::kMaskName);
    if (mask < spec.features.size() && PositionLayout::whyNot(spec).empty()) maskOffset_ = spec.offsetOf(mask);
    for (size_t f = 0; f < spec.features.size(); ++f)
      if (f != mask || !maskOffset_) features_.push_back(f);
  }
  /// The features that get a vocab, in the spec's order.
  const std::vector<size_t> &features() const { return features_; }

  /// Adds decision `words`' values of the features() to `distributions`.
  void add(const int64_t *words, std::vector<FeatureDistribution> &distributions) const {
    const auto *bytes = reinterpret_cast<const uint8_t *>(words);
    for (size_t k = 0; k < features_.size(); ++k) {
      const trace::FeatureTensor &tensor = spec_.features[features_[k]];
      const bool perPosition = PositionLayout::isPerPosition(tensor, spec_.actions);
      for (size_t e = 0; e < tensor.elements(); ++e) {
        if (maskOffset_ && perPosition && read<int64_t>(bytes + *maskOffset_, e) == 0) continue;
        const uint8_t *at = bytes + spec_.offsetOf(features_[k]);
        distributions[k].add(tensor.type == trace::FeatureTensor::Type::Float ? double(read<float>(at, e))
                                                                              : double(read<int64_t>(at, e)));
      }
    }
  }

 private:
  template <typename T>
  static T read(const uint8_t *at, size_t element) {
    T value;
    std::memcpy(&value, at + element * sizeof(T), sizeof value);
    return value;
  }
  const trace::DecisionSpec &spec_;
  std::optional<size_t> maskOffset_;
  std::vector<size_t> features_;
};

}  // namespace

GenVocabSummary generateVocab(const GenVocabOptions &options) {
  if (options.numBuckets < 2) throw UsageError("--num-buckets must be at least 2");
  checkSamplingShare("--sampling-fraction", options.samplingFraction);
  trace::TraceReader reader(options.trace);
  const trace::DecisionSpec &spec = reader.decisionSpec();
  const DecisionValues values(spec);
  std::vector<FeatureDistribution> distributions;
  distributions.reserve(values.features().size());
  for (size_t f = 0; f < values.features().size(); ++f) distributions.emplace_back(mixBits(options.seed + f));

  GenVocabSummary summary;
  summary.features = values.features().size();
  uint64_t decisions = 0;
  reader.forEachModule([&](const trace::ModuleTrace &module) {
    ++summary.modules;
    decisions += module.decisions();
    for (size_t d = 0; d < module.decisions(); ++d) {
      if (options.samplingFraction < 1 &&
          uniformFromKey(mixBits(module.position) ^ d, options.seed) >= options.samplingFraction)
        continue;
      ++summary.decisionsUsed;
      values.add(module.featuresOf(d), distributions);
    }
  });
  if (decisions == 0)
    throw InputError(
        describeInputProblem(options.trace.string(), "", "the trace has no decisions to build a vocab from"));
  // The trace is fine: the flag asked for too small a sample of it.
  if (summary.decisionsUsed == 0)
    throw UsageError("--sampling-fraction " + shareText(options.samplingFraction) + " keeps none of the " +
                     std::to_string(decisions) + " decisions of " + options.trace.string() + " (--seed " +
                     std::to_string(options.seed) + "); give a larger fraction");

  const std::vector<double> qs = linspaceUnit(options.numBuckets);
  for (size_t k = 0; k < values.features().size(); ++k) {
    const std::string &name = spec.features[values.features()[k]].name;
    writeBuckets(options.outputDirectory, name, distributions[k].quantiles(qs));
    if (!distributions[k].exact()) summary.sampledFeatures.push_back(name);
  }
  return summary;
}

}  // namespace mlgo
