#include <catch2/catch.hpp>

#include <mutex>

#include "mlgo/driver/compiler_driver.h"
#include "mlgo/problems/inlining/fixed_policies.h"
#include "mlgo/problems/inlining/inlining_hook.h"
#include "support/test_environment.h"

using namespace mlgo;
using namespace mlgo::inlining;

namespace {

/// Records what the inliner showed the policy.
class RecordingObserver final : public DecisionObserver {
 public:
  void onDecision(const DecisionInput &input, bool inlined) override {
    std::vector<int64_t> features(input.features, input.features + featureCount());
    records.push_back({std::move(features), input.defaultDecision, inlined});
  }
  struct Record {
    std::vector<int64_t> features;
    int64_t defaultDecision;
    bool inlined;
  };
  std::vector<Record> records;
};

size_t featureIndex(const std::string &name) {
  const auto &names = featureNames();
  return std::find(names.begin(), names.end(), name) - names.begin();
}

}  // namespace

TEST_CASE("inlining features: LLVM's FeatureMap names, in order", "[inlining]") {
  const auto &names = featureNames();
  CHECK(names.size() == featureCount());
  CHECK(names.size() >= 30);
  for (const char *expected : {"callee_basic_block_count", "callsite_height", "node_count", "nr_ctant_params",
                               "cost_estimate", "edge_count", "caller_users", "callee_users", "sroa_savings",
                               "call_penalty", "threshold", "is_callee_avail_external"})
    CHECK(featureIndex(expected) < names.size());
  CHECK(std::string(decisionName()) == "inlining_decision");
  CHECK(std::string(defaultDecisionName()) == "inlining_default");
}

TEST_CASE("inlining hook: the policy sees real features and the default decision", "[inlining]") {
  installInliningAdvisor();
  test::ScratchDirectory scratch;
  Corpus corpus = test::extractTestCorpus(scratch / "corpus");
  CompilerDriver driver({});
  RecordingObserver observer;
  auto hook = std::make_shared<InliningHook>(makeFixedPolicy(FixedChoice::Default), &observer);
  CompileRequest request{&test::moduleNamed(corpus, "helpers.o"), "", {hook}};
  REQUIRE(driver.compile(request).ok());
  REQUIRE(!observer.records.empty());
  CHECK(hook->decisions() == observer.records.size());
  bool sawInline = false;
  for (const auto &record : observer.records) {
    CHECK((record.defaultDecision == 0 || record.defaultDecision == 1));
    CHECK(record.inlined == (record.defaultDecision == 1));
    sawInline |= record.inlined;
    // Every call site has a caller with at least one block and a callee.
    CHECK(record.features[featureIndex("callee_basic_block_count")] >= 1);
    CHECK(record.features[featureIndex("node_count")] >= 1);
  }
  CHECK(sawInline);
}

TEST_CASE("inlining hook: policies that do not ask for the default do not get it", "[inlining]") {
  installInliningAdvisor();
  test::ScratchDirectory scratch;
  Corpus corpus = test::extractTestCorpus(scratch / "corpus");
  CompilerDriver driver({});
  RecordingObserver observer;
  auto hook = std::make_shared<InliningHook>(makeFixedPolicy(FixedChoice::Never), &observer);
  REQUIRE(driver.compile({&test::moduleNamed(corpus, "helpers.o"), "", {hook}}).ok());
  REQUIRE(!observer.records.empty());
  for (const auto &record : observer.records) {
    CHECK(record.defaultDecision == -1);
    CHECK_FALSE(record.inlined);
  }
}

TEST_CASE("fixed policies: names and decisions", "[inlining]") {
  CHECK(parseFixedChoice("never") == FixedChoice::Never);
  CHECK_FALSE(parseFixedChoice("sometimes").has_value());
  int64_t features[64] = {};
  DecisionInput yes{features, 1}, no{features, 0};
  CHECK(makeFixedPolicy(FixedChoice::Default)->decide(yes));
  CHECK_FALSE(makeFixedPolicy(FixedChoice::Default)->decide(no));
  CHECK(makeFixedPolicy(FixedChoice::Always)->decide(no));
  CHECK_FALSE(makeFixedPolicy(FixedChoice::Never)->decide(yes));
  CHECK(makeFixedPolicy(FixedChoice::Default)->needsDefaultDecision());
  CHECK_FALSE(makeFixedPolicy(FixedChoice::Always)->needsDefaultDecision());
}
