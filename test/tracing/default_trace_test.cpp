#include <catch2/catch.hpp>

#include <filesystem>

#include "mlgo/eval/evaluation.h"
#include "mlgo/problems/problem.h"
#include "mlgo/support/atomic_file.h"
#include "mlgo/support/errors.h"
#include "mlgo/tracing/default_trace.h"
#include "mlgo/trace/trace_reader.h"
#include "mlgo/trace/trace_stats.h"
#include "support/test_environment.h"

using namespace mlgo;
using Catch::Matchers::Contains;
namespace fs = std::filesystem;

namespace {
DefaultTraceSummary traceInto(const Corpus &corpus, const fs::path &output, unsigned threads,
                              DriverOptions driverOptions = {}) {
  driverOptions.threads = threads;
  DefaultTraceOptions options;
  options.output = output;
  options.shards = 3;
  return runDefaultTrace(corpus, CompilerDriver(driverOptions), findProblem("inlining"), options);
}
}  // namespace

TEST_CASE("default-trace: records every decision and the default sizes", "[trace]") {
  test::ScratchDirectory scratch;
  Corpus corpus = test::extractTestCorpus(scratch / "corpus");
  DefaultTraceSummary summary = traceInto(corpus, scratch / "trace", 2);
  CHECK(summary.traced == corpus.modules.size());
  CHECK(summary.failures.empty());

  trace::TraceReader reader(scratch / "trace");
  CHECK(reader.problem() == "inlining");
  CHECK(reader.featureNames() == findProblem("inlining").featureNames());
  EvalReport eval = evaluateCorpus(corpus, CompilerDriver({}), EvalOptions{});
  std::map<std::string, uint64_t> baselines = reader.baselines();
  uint64_t decisions = 0;
  std::vector<std::string> order;
  reader.forEachModule([&](const trace::ModuleTrace &module) {
    order.push_back(module.name);
    decisions += module.decisions();
    CHECK(module.nativeSize == baselines.at(module.name));
    for (size_t d = 0; d < module.decisions(); ++d) CHECK(module.actions[d] == module.defaultDecisions[d]);
  });
  CHECK(decisions == summary.decisions);
  CHECK(decisions > 50);
  // Corpus order, and the baselines are the -Oz sizes eval measures.
  std::vector<std::string> expectedOrder;
  for (const ModuleEvaluation &module : eval.modules) {
    expectedOrder.push_back(module.name);
    CHECK(baselines.at(module.name) == module.baseline.sizes.text);
  }
  CHECK(order == expectedOrder);
  // Compact: a few dozen bytes per decision for 38 features.
  CHECK(double(summary.recordBytes) / summary.decisions < 80);
}

TEST_CASE("default-trace: byte-identical files at 1 and 4 threads", "[trace][determinism]") {
  test::ScratchDirectory scratch;
  Corpus corpus = test::extractTestCorpus(scratch / "corpus");
  traceInto(corpus, scratch / "one", 1);
  traceInto(corpus, scratch / "four", 4);
  size_t files = 0;
  for (const auto &entry : fs::directory_iterator(scratch / "one")) {
    ++files;
    const fs::path other = scratch / "four" / entry.path().filename();
    INFO(entry.path().filename());
    std::string a = readFile(entry.path()), b = readFile(other);
    CHECK(a == b);
  }
  CHECK(files == 5);  // 3 shards, description, baselines
}

TEST_CASE("default-trace: sampling is deterministic and follows the rate", "[trace]") {
  test::ScratchDirectory scratch;
  Corpus corpus = test::extractTestCorpus(scratch / "corpus");
  auto modulesAt = [&](double rate, uint64_t seed, const std::string &name) {
    DefaultTraceOptions options;
    options.output = scratch / name;
    options.samplingRate = rate;
    options.seed = seed;
    runDefaultTrace(corpus, CompilerDriver({}), findProblem("inlining"), options);
    std::vector<std::string> names;
    trace::TraceReader(scratch / name).forEachModule([&](const trace::ModuleTrace &m) { names.push_back(m.name); });
    return names;
  };
  auto a = modulesAt(0.5, 11, "a"), b = modulesAt(0.5, 11, "b");
  CHECK(a == b);
  CHECK(a.size() < corpus.modules.size());
  DefaultTraceOptions filtered;
  filtered.output = scratch / "filtered";
  filtered.moduleFilter = "^sub/";
  DefaultTraceSummary summary = runDefaultTrace(corpus, CompilerDriver({}), findProblem("inlining"), filtered);
  CHECK(summary.sampled == 1);
  filtered.moduleFilter = "([";
  CHECK_THROWS_AS(runDefaultTrace(corpus, CompilerDriver({}), findProblem("inlining"), filtered), UsageError);
}

TEST_CASE("default-trace: a failing module is left out and listed", "[trace][containment]") {
  test::ScratchDirectory scratch;
  Corpus corpus = test::extractTestCorpus(scratch / "corpus");
  DriverOptions options;
  options.faults.crashModule = "shapes.o";
  DefaultTraceSummary summary = traceInto(corpus, scratch / "trace", 2, options);
  REQUIRE(summary.failures.size() == 1);
  CHECK(summary.failures[0].module == "shapes.o");
  trace::TraceReader reader(scratch / "trace");
  CHECK(reader.description()["modules_failed"][0]["name"] == "shapes.o");
  CHECK(reader.description()["modules_failed"][0]["failure"] == "crash");
  size_t modules = 0;
  reader.forEachModule([&](const trace::ModuleTrace &module) {
    ++modules;
    CHECK(module.name != "shapes.o");
  });
  CHECK(modules == corpus.modules.size() - 1);
  CHECK(reader.baselines().count("shapes.o") == 0);
}

TEST_CASE("trace reader: truncation and corruption name the file and offset", "[trace][errors]") {
  test::ScratchDirectory scratch;
  Corpus corpus = test::extractTestCorpus(scratch / "corpus");
  traceInto(corpus, scratch / "trace", 2);
  const fs::path shard = scratch / "trace" / "inlining-00000-of-00003.mlgotrace";
  const std::string bytes = readFile(shard);
  writeFileAtomically(shard, bytes.substr(0, bytes.size() - 5));
  trace::TraceReader reader(scratch / "trace");
  std::vector<std::string> seen;
  CHECK_THROWS_WITH(reader.forEachModule([&](const trace::ModuleTrace &m) { seen.push_back(m.name); }),
                    Contains("inlining-00000-of-00003.mlgotrace") && Contains("offset") && Contains("truncated"));
  // Shard 0 holds modules 0, 3 and 6: the last is damaged; every other
  // module was still read.
  CHECK(seen.size() == 6);
  trace::TraceStats stats = trace::computeTraceStats(reader);
  CHECK(stats.modules == 6);
  CHECK_THAT(stats.error, Contains("offset"));

  std::string flipped = bytes;
  flipped[flipped.size() / 2] ^= 1;
  writeFileAtomically(shard, flipped);
  CHECK_THROWS_WITH(trace::TraceReader(scratch / "trace").forEachModule([](const trace::ModuleTrace &) {}),
                    Contains("checksum") || Contains("malformed"));
}

TEST_CASE("trace reader: an unfinished or foreign directory is refused", "[trace][errors]") {
  test::ScratchDirectory scratch;
  CHECK_THROWS_WITH(trace::TraceReader(scratch / "none"), Contains("does not exist"));
  CHECK_THROWS_WITH(trace::TraceReader(scratch.path()), Contains("did not finish"));
  writeFileAtomically(scratch / "trace_description.json", R"({"format": "something-else"})");
  CHECK_THROWS_WITH(trace::TraceReader(scratch.path()), Contains("format"));
  writeFileAtomically(scratch / "trace_description.json",
                      R"({"format": "mlgo-trace", "version": 1, "problem": "inlining", "feature_names": [],
                          "shard_files": ["../../etc/passwd"]})");
  CHECK_THROWS_WITH(trace::TraceReader(scratch.path()), Contains("shard_files"));
}
