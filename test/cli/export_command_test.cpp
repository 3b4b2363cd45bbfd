#include <catch2/catch.hpp>

#include "mlgo/export/yes_no_model_aot.h"
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

TEST_CASE("cli export: --force replaces an earlier export only, and an output of the other kind is a bad flag value",
          "[cli][export][errors]") {
  test::TracedTestCorpus traced;
  test::randomInliningPolicy(traced, 2).save(traced / "policy");
  auto exportTo = [&](const std::string &format, const std::string &output, bool force) {
    std::vector<std::string> args{"export", "--policy", (traced / "policy").string(), "--format", format,
                                  "--output", output};
    if (force) args.push_back("--force");
    return test::runMlgo(args);
  };
  // A directory the user made, holding a file of theirs, stays as it was.
  writeFileAtomically(traced / "mine" / "notes.txt", "mine");
  const test::CommandOutcome mine = exportTo("llvm-aot", (traced / "mine").string() + "/", true);
  CHECK(mine.exitCode == exit_code::kUsage);
  CHECK_THAT(mine.err, Catch::Contains("notes.txt") && Catch::Contains("mlgo export did not write"));
  CHECK(readFile(traced / "mine" / "notes.txt") == "mine");
  CHECK_FALSE(fs::exists(traced / "mine" / kInlinerSource));

  // An earlier export is replaced, however the directory is spelled.
  REQUIRE(exportTo("llvm-aot", (traced / "aot").string(), false).exitCode == exit_code::kSuccess);
  for (const std::string &spelling : {(traced / "aot").string() + "/", (traced / "." / "aot" / ".").string()}) {
    INFO(spelling);
    const test::CommandOutcome again = exportTo("llvm-aot", spelling, true);
    INFO(again.err);
    CHECK(again.exitCode == exit_code::kSuccess);
    CHECK(fs::exists(traced / "aot" / kInlinerSource));
    CHECK_FALSE(fs::exists(traced / "aot.partial"));
    CHECK_FALSE(fs::exists(traced / "aot.old"));
    CHECK_FALSE(fs::exists(traced / "aot" / ".partial"));
  }
  // An empty directory holds nothing to lose.
  fs::create_directories(traced / "empty");
  CHECK(exportTo("llvm-aot", (traced / "empty").string(), true).exitCode == exit_code::kSuccess);

  // A file for llvm-aot, a directory for torchscript: refused before the policy is read.
  writeFileAtomically(traced / "a-file", "mine");
  const test::CommandOutcome file = exportTo("llvm-aot", (traced / "a-file").string(), true);
  CHECK(file.exitCode == exit_code::kUsage);
  CHECK_THAT(file.err, Catch::Contains("a-file is a file"));
  CHECK(readFile(traced / "a-file") == "mine");
  const test::CommandOutcome directory = exportTo("torchscript", (traced / "mine").string(), true);
  CHECK(directory.exitCode == exit_code::kUsage);
  CHECK_THAT(directory.err, Catch::Contains("mine is a directory"));
}
