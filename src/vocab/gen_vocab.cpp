#include "mlgo/vocab/gen_vocab.h"

#include "mlgo/support/errors.h"
#include "mlgo/trace/sampling.h"
#include "mlgo/trace/trace_reader.h"
#include "mlgo/vocab/quantiles.h"
#include "mlgo/vocab/vocab_files.h"

namespace mlgo {

GenVocabSummary generateVocab(const GenVocabOptions &options) {
  if (options.numBuckets < 2) throw UsageError("--num-buckets must be at least 2");
  if (!(options.samplingFraction > 0 && options.samplingFraction <= 1))
    throw UsageError("--sampling-fraction must be in (0, 1]");
  trace::TraceReader reader(options.trace);
  if (!reader.decisionSpec().isInt64Scalars())
    throw UsageError("gen-vocab does not handle problem \"" + reader.problem() +
                     "\"'s traces yet: its features are tensors, and gen-vocab takes int64 scalars (inlining's)");
  const std::vector<std::string> &names = reader.featureNames();
  std::vector<FeatureDistribution> distributions;
  distributions.reserve(names.size());
  for (size_t f = 0; f < names.size(); ++f) distributions.emplace_back(mixBits(options.seed + f));

  GenVocabSummary summary;
  summary.features = names.size();
  reader.forEachModule([&](const trace::ModuleTrace &module) {
    ++summary.modules;
    for (size_t d = 0; d < module.decisions(); ++d) {
      if (options.samplingFraction < 1 &&
          uniformFromKey(mixBits(module.position) ^ d, options.seed) >= options.samplingFraction)
        continue;
      ++summary.decisionsUsed;
      const int64_t *values = module.featuresOf(d);
      for (size_t f = 0; f < names.size(); ++f) distributions[f].add(values[f]);
    }
  });
  if (summary.decisionsUsed == 0)
    throw InputError(describeInputProblem(options.trace.string(), "", "the trace has no decisions to build a vocab from"));

  const std::vector<double> qs = linspaceUnit(options.numBuckets);
  for (size_t f = 0; f < names.size(); ++f) {
    writeBuckets(options.outputDirectory, names[f], distributions[f].quantiles(qs));
    if (!distributions[f].exact()) summary.sampledFeatures.push_back(names[f]);
  }
  return summary;
}

}  // namespace mlgo
