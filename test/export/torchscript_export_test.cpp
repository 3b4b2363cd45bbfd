// LibTorch first: its logging defines a CHECK macro that Catch's must replace.
#include <torch/script.h>
#undef CHECK
#include <catch2/catch.hpp>

#include <cmath>

#include <nlohmann/json.hpp>

#include "mlgo/export/torchscript_export.h"
#include "mlgo/problems/inlining/inlining_policy.h"
#include "mlgo/support/atomic_file.h"
#include "mlgo/support/errors.h"
#include "mlgo/trace/trace_reader.h"
#include "support/test_environment.h"

using namespace mlgo;
namespace fs = std::filesystem;

namespace {

struct RecordedFeatures {
  size_t decisions = 0;
  std::vector<int64_t> values;  ///< decision-major
};

RecordedFeatures readFeatures(const fs::path &trace) {
  RecordedFeatures recorded;
  trace::TraceReader(trace).forEachModule([&](const trace::ModuleTrace &module) {
    recorded.values.insert(recorded.values.end(), module.features.begin(), module.features.end());
    recorded.decisions += module.decisions();
  });
  return recorded;
}

/// One int64 tensor per feature, [decisions] long, in LLVM's order.
std::vector<torch::jit::IValue> featureTensors(const RecordedFeatures &recorded) {
  const size_t width = inlining::featureCount();
  std::vector<torch::jit::IValue> tensors;
  for (size_t f = 0; f < width; ++f) {
    std::vector<int64_t> column;
    for (size_t d = 0; d < recorded.decisions; ++d) column.push_back(recorded.values[d * width + f]);
    tensors.emplace_back(torch::tensor(column, torch::kInt64));
  }
  return tensors;
}

}  // namespace

TEST_CASE("torchscript export: LibTorch loads the module and it decides like the policy", "[export][torchscript]") {
  test::TracedTestCorpus traced;
  const YesNoPolicy policy = test::randomInliningPolicy(traced, 5, GENERATE(false, true));
  const fs::path file = traced / "policy.pt";
  exportTorchScript(policy, file, false);

  torch::jit::ExtraFilesMap extra{{"mlgo_policy.json", ""}};
  torch::jit::Module module = torch::jit::load(file.string(), c10::nullopt, extra);
  CHECK(nlohmann::json::parse(extra["mlgo_policy.json"]) == policy.metadata());

  const RecordedFeatures recorded = readFeatures(traced / "trace");
  REQUIRE(recorded.decisions > 100);
  const torch::Tensor decisions = module.forward(featureTensors(recorded)).toTensor();
  REQUIRE(decisions.scalar_type() == torch::kInt64);
  REQUIRE(decisions.size(0) == int64_t(recorded.decisions));

  size_t inlined = 0, nearTies = 0;
  for (size_t d = 0; d < recorded.decisions; ++d) {
    const int64_t *features = recorded.values.data() + d * inlining::featureCount();
    float logits[2];
    policy.logits(features, logits);
    const bool expected = logits[1] > logits[0];
    inlined += expected;
    // LibTorch sums in another order than mlgo: only a near tie may differ.
    if (std::fabs(logits[1] - logits[0]) < 1e-4f) {
      ++nearTies;
      continue;
    }
    INFO("decision " << d);
    REQUIRE(decisions[d].item<int64_t>() == (expected ? 1 : 0));
  }
  CHECK(inlined > 0);
  CHECK(inlined < recorded.decisions);
  CHECK(nearTies <= recorded.decisions / 100);

  // One decision as LLVM passes it: shape [1] tensors, by name.
  std::unordered_map<std::string, torch::jit::IValue> named;
  for (size_t f = 0; f < inlining::featureCount(); ++f)
    named[inlining::featureNames()[f]] = torch::tensor({recorded.values[f]}, torch::kInt64);
  const torch::Tensor first = module.get_method("forward")({}, named).toTensor();
  REQUIRE(first.sizes() == torch::IntArrayRef{1});
  CHECK(first[0].item<int64_t>() == decisions[0].item<int64_t>());
}

TEST_CASE("torchscript export: an existing file is kept unless replaced", "[export][torchscript][errors]") {
  test::TracedTestCorpus traced;
  const YesNoPolicy policy = test::randomInliningPolicy(traced, 5);
  writeFileAtomically(traced / "policy.pt", "mine");
  CHECK_THROWS_AS(exportTorchScript(policy, traced / "policy.pt", false), UsageError);
  CHECK(readFile(traced / "policy.pt") == "mine");
  exportTorchScript(policy, traced / "policy.pt", true);
  CHECK(torch::jit::load((traced / "policy.pt").string()).find_method("logits"));
  for (const auto &entry : fs::directory_iterator(traced.scratch.path()))
    CHECK(entry.path().filename().string().find(".tmp.") == std::string::npos);
}
