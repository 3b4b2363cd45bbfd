#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>

#include "mlgo/problems/problem.h"
#include "mlgo/support/errors.h"
#include "mlgo/tracing/default_trace.h"
#include "mlgo/trace/trace_reader.h"
#include "mlgo/vocab/gen_vocab.h"
#include "mlgo/vocab/quantiles.h"
#include "mlgo/policy/vocab_files.h"
#include "support/test_environment.h"

using namespace mlgo;
namespace fs = std::filesystem;

TEST_CASE("gen-vocab: every feature's boundaries equal a brute-force quantile", "[vocab]") {
  test::ScratchDirectory scratch;
  test::traceCorpus(test::extractTestCorpus(scratch / "corpus"), scratch / "trace");

  GenVocabOptions options;
  options.trace = scratch / "trace";
  options.outputDirectory = scratch / "vocab";
  options.numBuckets = 50;
  GenVocabSummary summary = generateVocab(options);
  trace::TraceReader reader(scratch / "trace");
  const auto &names = reader.featureNames();
  CHECK(summary.features == names.size());
  CHECK(summary.sampledFeatures.empty());

  std::vector<std::vector<double>> values(names.size());
  reader.forEachModule([&](const trace::ModuleTrace &module) {
    for (size_t d = 0; d < module.decisions(); ++d)
      for (size_t f = 0; f < names.size(); ++f) values[f].push_back(static_cast<double>(module.featuresOf(d)[f]));
  });
  CHECK(summary.decisionsUsed == values[0].size());
  const auto vocab = readVocab(options.outputDirectory, names);
  const std::vector<double> qs = linspaceUnit(50);
  for (size_t f = 0; f < names.size(); ++f) {
    INFO(names[f]);
    std::sort(values[f].begin(), values[f].end());
    const std::vector<double> &boundaries = vocab.at(names[f]);
    REQUIRE(boundaries.size() == 50);
    for (size_t i = 0; i < qs.size(); ++i) CHECK(boundaries[i] == quantileOfSorted(values[f], qs[i]));
  }
}

TEST_CASE("gen-vocab on regalloc: every tensor's allowed elements, quantiles as numpy's", "[vocab][regalloc]") {
  test::ScratchDirectory scratch;
  test::regallocTracedCorpus(scratch / "corpus", scratch / "trace");
  GenVocabOptions options;
  options.trace = scratch / "trace";
  options.outputDirectory = scratch / "vocab";
  options.numBuckets = 20;
  const GenVocabSummary summary = generateVocab(options);
  const trace::DecisionSpec &spec = findProblem("regalloc").decisionSpec();
  CHECK(summary.features == spec.features.size() - 1);  // all but the mask
  CHECK_FALSE(fs::exists(scratch / "vocab/mask.buckets"));

  // The values read here by hand: per-candidate tensors where the mask
  // allows the candidate, `progress` once per decision, NaN left out.
  std::map<std::string, std::vector<double>> values;
  size_t decisions = 0;
  trace::TraceReader(scratch / "trace").forEachModule([&](const trace::ModuleTrace &module) {
    for (size_t d = 0; d < module.decisions(); ++d, ++decisions) {
      const auto *bytes = reinterpret_cast<const char *>(module.featuresOf(d));
      const auto *mask = reinterpret_cast<const int64_t *>(bytes + spec.offsetOf(spec.indexOf("mask")));
      for (size_t f = 0; f < spec.features.size(); ++f) {
        const trace::FeatureTensor &tensor = spec.features[f];
        if (tensor.name == "mask") continue;
        for (size_t e = 0; e < tensor.elements(); ++e) {
          if (tensor.elements() > 1 && mask[e] == 0) continue;
          double value = 0;
          if (tensor.type == trace::FeatureTensor::Type::Float) {
            float raw;
            std::memcpy(&raw, bytes + spec.offsetOf(f) + 4 * e, 4);
            value = raw;
          } else {
            int64_t raw;
            std::memcpy(&raw, bytes + spec.offsetOf(f) + 8 * e, 8);
            value = double(raw);
          }
          if (!std::isnan(value)) values[tensor.name].push_back(value);
        }
      }
    }
  });
  CHECK(summary.decisionsUsed == decisions);
  CHECK(values["progress"].size() == decisions);
  CHECK(values["liverange_size"].size() > decisions);  // several candidates a decision
  const std::vector<double> qs = linspaceUnit(20);
  std::vector<std::string> names;
  for (const auto &[name, list] : values) names.push_back(name);
  const auto vocab = readVocab(options.outputDirectory, names);
  size_t varying = 0;
  for (auto &[name, list] : values) {
    INFO(name);
    std::sort(list.begin(), list.end());
    const std::vector<double> &boundaries = vocab.at(name);
    REQUIRE(boundaries.size() == 20);
    for (size_t i = 0; i < qs.size(); ++i) CHECK(boundaries[i] == quantileOfSorted(list, qs[i]));
    if (boundaries.front() != boundaries.back()) ++varying;
  }
  CHECK(varying > 10);  // real distributions, not all-zero tensors
}

TEST_CASE("gen-vocab: sampling a fraction of decisions is seeded", "[vocab]") {
  test::ScratchDirectory scratch;
  test::traceCorpus(test::extractTestCorpus(scratch / "corpus"), scratch / "trace");
  GenVocabOptions options;
  options.trace = scratch / "trace";
  options.samplingFraction = 0.5;
  options.seed = 4;
  options.outputDirectory = scratch / "a";
  GenVocabSummary a = generateVocab(options);
  options.outputDirectory = scratch / "b";
  GenVocabSummary b = generateVocab(options);
  CHECK(a.decisionsUsed == b.decisionsUsed);
  CHECK(readBuckets(scratch / "a/cost_estimate.buckets") == readBuckets(scratch / "b/cost_estimate.buckets"));
  trace::TraceReader reader(scratch / "trace");
  CHECK(a.decisionsUsed < reader.description()["decisions"].get<uint64_t>());
  options.numBuckets = 1;
  CHECK_THROWS_AS(generateVocab(options), UsageError);
  options.numBuckets = 10;
  options.trace = scratch / "no-trace";
  CHECK_THROWS_AS(generateVocab(options), InputError);
}
