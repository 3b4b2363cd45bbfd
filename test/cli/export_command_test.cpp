#include <catch2/catch.hpp>

#include "mlgo/export/llvm_aot_export.h"
#include "mlgo/support/atomic_file.h"
#include "mlgo/support/exit_codes.h"
#include "support/test_environment.h"

using namespace mlgo;
namespace fs = std::filesystem;

// The class the inlining problem names for LLVM's release-mode inliner.
const std::string kInlinerHeader = "InlinerSizeModel.h", kInlinerSource = "InlinerSizeModel.cpp";

TEST_CASE("cli export: both formats from a policy directory, bad policies and existing outputs refused",
          "[cli][export]") {
  test::TracedTestCorpus traced;
  test::randomInliningPolicy(traced, 2).save(traced / "policy");
  const std::string policy = (traced / "policy").string();

  test::CommandOutcome aot = test::runProgram(test::mlgoBinary(), {"export", "--policy", policy, "--format", "llvm-aot",
                                                                   "--output", (traced / "aot").string()});
  INFO(aot.err);
  CHECK(aot.exitCode == exit_code::kSuccess);
  CHECK_THAT(aot.out, Catch::Contains("InlinerSizeModel.h"));
  CHECK(fs::exists(traced / "aot" / kInlinerSource));

  test::CommandOutcome script = test::runProgram(
      test::mlgoBinary(),
      {"export", "--policy", policy, "--format", "torchscript", "--output", (traced / "p.pt").string()});
  CHECK(script.exitCode == exit_code::kSuccess);
  CHECK(fs::file_size(traced / "p.pt") > 1000);

  // An existing output stays as it was.
  const std::string before = readFile(traced / "aot" / kInlinerSource);
  test::CommandOutcome again =
      test::runProgram(test::mlgoBinary(),
                       {"export", "--policy", policy, "--format", "llvm-aot", "--output", (traced / "aot").string()});
  CHECK(again.exitCode == exit_code::kUsage);
  CHECK_THAT(again.err, Catch::Contains("exists (pass --force"));
  CHECK(readFile(traced / "aot" / kInlinerSource) == before);

  // An incomplete policy directory is named with what is missing.
  fs::remove(traced / "policy" / "model.json");
  test::CommandOutcome broken = test::runProgram(
      test::mlgoBinary(),
      {"export", "--policy", policy, "--format", "torchscript", "--output", (traced / "q.pt").string()});
  CHECK(broken.exitCode == exit_code::kBadInput);
  CHECK_THAT(broken.err, Catch::Contains("model.json"));
  CHECK_FALSE(fs::exists(traced / "q.pt"));

  test::CommandOutcome unknown = test::runProgram(
      test::mlgoBinary(), {"export", "--policy", policy, "--format", "tflite", "--output", (traced / "r").string()});
  CHECK(unknown.exitCode == exit_code::kUsage);
}
