#include <catch2/catch.hpp>

#include <algorithm>

#include "mlgo/problems/problem.h"
#include "mlgo/support/errors.h"
#include "mlgo/trace/default_trace.h"
#include "mlgo/trace/trace_reader.h"
#include "mlgo/vocab/gen_vocab.h"
#include "mlgo/vocab/quantiles.h"
#include "mlgo/vocab/vocab_files.h"
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
