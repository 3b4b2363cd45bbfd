// The same inputs and seed train the same policy whatever the CPU: the
// kernels OpenBLAS, ATen and glibc's libm would pick on other machines are
// forced here through their environment variables, on the real mlgo binary,
// and compare-runs reads the runs' manifests.
#include <catch2/catch.hpp>

#include <fstream>

#include "mlgo/support/atomic_file.h"
#include "mlgo/support/exit_codes.h"
#include "support/test_environment.h"

using namespace mlgo;
using Catch::Matchers::Contains;
namespace fs = std::filesystem;

namespace {

bool cpuHas(const std::string &flag) {
  std::ifstream cpuinfo("/proc/cpuinfo");
  for (std::string line; std::getline(cpuinfo, line);)
    if (line.rfind("flags", 0) == 0) return (line + " ").find(" " + flag + " ") != std::string::npos;
  return false;
}

/// Environments standing for three machines: OpenBLAS kernels this CPU can
/// run (every x86-64 runs Prescott), ATen's kernels, and glibc's libm with
/// and without its FMA and AVX2 variants.
std::vector<std::vector<std::string>> machines() {
  std::vector<std::vector<std::string>> environments{
      {"OPENBLAS_CORETYPE=Prescott", "ATEN_CPU_CAPABILITY=default", "GLIBC_TUNABLES=glibc.cpu.hwcaps=-AVX2,-FMA"}};
  environments.push_back({std::string("OPENBLAS_CORETYPE=") + (cpuHas("avx2") ? "Haswell" : "Nehalem"),
                          "ATEN_CPU_CAPABILITY=avx2"});
  environments.push_back({std::string("OPENBLAS_CORETYPE=") + (cpuHas("avx512f") ? "SkylakeX" : "Sandybridge"),
                          "ATEN_CPU_CAPABILITY=avx512"});
  return environments;
}

/// Runs `args` (the output directory last but one... given as `output`) on
/// every machine, each into output-<i>; returns the directories.
std::vector<fs::path> runOnEveryMachine(const test::TracedTestCorpus &traced, const std::string &output,
                                        const std::function<std::vector<std::string>(const fs::path &)> &args) {
  std::vector<fs::path> outputs;
  const auto environments = machines();
  for (size_t i = 0; i < environments.size(); ++i) {
    outputs.push_back(traced / (output + "-" + std::to_string(i)));
    const auto outcome = test::runMlgoWithEnvironment(environments[i], args(outputs.back()));
    INFO(outcome.err);
    REQUIRE(outcome.exitCode == exit_code::kSuccess);
  }
  return outputs;
}

void requireSameRunsAndPolicies(const std::vector<fs::path> &outputs, const std::string &policyFile) {
  for (size_t i = 1; i < outputs.size(); ++i) {
    INFO(outputs[i]);
    CHECK(readFile(outputs[i] / policyFile) == readFile(outputs[0] / policyFile));
    const auto compared = test::runMlgo({"compare-runs", outputs[0].string(), outputs[i].string()});
    CHECK(compared.exitCode == exit_code::kSuccess);
    CHECK(compared.out == "same run, same result\n");
  }
}

}  // namespace

TEST_CASE("reproducibility: train-bc, train-ppo and train-es train byte-identical policies under every CPU kernel",
          "[cli][determinism]") {
  test::TracedTestCorpus traced;
  const auto bc = runOnEveryMachine(traced, "bc", [&](const fs::path &output) {
    return std::vector<std::string>{"train-bc", "--trace", (traced / "trace").string(), "--vocab",
                                    (traced / "vocab").string(), "--output", output.string(), "--seed", "4",
                                    "--set", "iterations=300", "--set", "report_every=100"};
  });
  requireSameRunsAndPolicies(bc, "policy/policy.json");

  const auto ppo = runOnEveryMachine(traced, "ppo", [&](const fs::path &output) {
    auto arguments = test::trainPPOArguments(traced, output.filename().string(), 2, 2);
    arguments.insert(arguments.end(), {"--warmstart", (bc[0] / "policy").string()});
    return arguments;
  });
  requireSameRunsAndPolicies(ppo, "policy/policy.json");

  // Evolution strategies run without LibTorch: the libm kernels matter there.
  const auto es = runOnEveryMachine(traced, "es", [&](const fs::path &output) {
    return std::vector<std::string>{
        "train-es",  "--corpus", (traced / "corpus").string(), "--warmstart", (bc[0] / "policy").string(),
        "--baselines", (traced / "trace").string(), "--output", output.string(), "--set", "iterations=2",
        "--set", "perturbations=2", "--set", "modules_per_iteration=4", "--set", "checkpoint_every=0"};
  });
  requireSameRunsAndPolicies(es, "policy/policy.json");
}

TEST_CASE("reproducibility: compare-runs names a changed config key, a changed module, and the iteration where "
          "the system BLAS made a run diverge",
          "[cli][determinism]") {
  test::TracedTestCorpus traced;
  auto trainBC = [&](const std::string &output, const std::string &trace, const std::string &learningRate) {
    return test::runMlgo({"train-bc", "--trace", (traced / trace).string(), "--vocab", (traced / "vocab").string(),
                          "--output", (traced / output).string(), "--set", "iterations=100", "--set",
                          "learning_rate=" + learningRate});
  };
  REQUIRE(trainBC("base", "trace", "0.001").exitCode == exit_code::kSuccess);
  REQUIRE(trainBC("other-rate", "trace", "0.002").exitCode == exit_code::kSuccess);
  const auto rate = test::runMlgo({"compare-runs", (traced / "base").string(), (traced / "other-rate").string()});
  CHECK(rate.exitCode == exit_code::kRunsDiffer);
  CHECK_THAT(rate.out, Contains("different runs: config key learning_rate: 0.001 vs 0.002 (--set)"));

  // One module of a corpus changed (its bitcode replaced by another
  // module's): eval's manifest beside its JSON names the module's file.
  fs::copy(traced / "corpus", traced / "corpus-copy", fs::copy_options::recursive);
  fs::copy_file(traced / "corpus/recursion.o.bc", traced / "corpus-copy/helpers.o.bc",
                fs::copy_options::overwrite_existing);
  for (const char *corpus : {"corpus", "corpus-copy"})
    REQUIRE(test::runMlgo({"eval", "--corpus", (traced / corpus).string(), "--json",
                           (traced / (std::string(corpus) + ".json")).string()})
                .exitCode == exit_code::kSuccess);
  const auto module = test::runMlgo(
      {"compare-runs", (traced / "corpus.json").string(), (traced / "corpus-copy.json").string()});
  CHECK(module.exitCode == exit_code::kRunsDiffer);
  CHECK_THAT(module.out, Contains("different runs: file helpers.o.bc differs in input --corpus") &&
                             Contains("also: output --json: /modules/helpers.o/"));

  const auto json = test::runMlgo({"compare-runs", "--json", (traced / "base").string(), (traced / "base").string()});
  CHECK(json.exitCode == exit_code::kSuccess);
  CHECK(nlohmann::json::parse(json.out)["same_result"] == true);

  // The control: with the system's OpenBLAS put back in front of mlgo's
  // routines (LD_PRELOAD comes first in the loader's order), two kernels
  // train two policies, and compare-runs names the first report that differs.
  const std::string openblas = "/usr/lib/x86_64-linux-gnu/libopenblas.so.0";
  REQUIRE(fs::exists(openblas));
  auto trainWithSystemBlas = [&](const std::string &output, const std::string &kernel) {
    return test::runMlgoWithEnvironment(
        {"LD_PRELOAD=" + openblas, "OPENBLAS_CORETYPE=" + kernel},
        {"train-bc", "--trace", (traced / "trace").string(), "--vocab", (traced / "vocab").string(), "--output",
         (traced / output).string(), "--set", "iterations=300", "--set", "report_every=100"});
  };
  REQUIRE(trainWithSystemBlas("system-prescott", "Prescott").exitCode == exit_code::kSuccess);
  REQUIRE(trainWithSystemBlas("system-other", cpuHas("avx2") ? "Haswell" : "Nehalem").exitCode ==
          exit_code::kSuccess);
  const auto diverged =
      test::runMlgo({"compare-runs", (traced / "system-prescott").string(), (traced / "system-other").string()});
  CHECK(diverged.exitCode == exit_code::kRunsDiffer);
  CHECK_THAT(diverged.out, Contains("same run, different result: output metrics.jsonl: iteration 100 (line 1)") &&
                               Contains("also: output policy/model.json: /layers/"));
}
