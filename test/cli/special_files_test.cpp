// Inputs are read only from regular files: a named pipe or a device where a
// file is expected (planted in a corpus, or given as a flag) is an error
// naming it, never a run that hangs or reads forever.
#include <catch2/catch.hpp>

#include <sys/stat.h>

#include <fstream>

#include "mlgo/support/exit_codes.h"
#include "support/test_environment.h"

using namespace mlgo;
using Catch::Matchers::Contains;
namespace fs = std::filesystem;

namespace {

/// mlgo under timeout(1): a command that blocks on a pipe ends with 124.
test::CommandOutcome runBounded(std::vector<std::string> args) {
  args.insert(args.begin(), {"60", test::mlgoBinary()});
  return test::runProgram("/usr/bin/timeout", args);
}

/// A copy of `directory` with `file` in it replaced by a named pipe.
fs::path withPipe(const fs::path &directory, const std::string &copy, const std::string &file) {
  const fs::path target = directory.parent_path() / copy;
  fs::copy(directory, target, fs::copy_options::recursive);
  fs::remove(target / file);
  REQUIRE(::mkfifo((target / file).c_str(), 0600) == 0);
  return target;
}

}  // namespace

TEST_CASE("inputs: named pipes and devices are refused, never read", "[cli][errors][security]") {
  test::TracedTestCorpus traced;
  const fs::path corpus = traced / "corpus", trace = traced / "trace";

  // A module's bitcode: that module fails, the run goes on (exit 4).
  const auto bitcode = runBounded({"eval", "--corpus", withPipe(corpus, "pipe-bc", "helpers.o.bc").string()});
  CHECK(bitcode.exitCode == exit_code::kPartialFailure);
  CHECK_THAT(bitcode.err, Contains("helpers.o.bc") && Contains("named pipe"));

  for (const char *file : {"helpers.o.cmd", "corpus_description.json"}) {
    INFO(file);
    const auto outcome =
        runBounded({"eval", "--corpus", withPipe(corpus, std::string("pipe-") + file, file).string()});
    CHECK(outcome.exitCode != 124);
    CHECK((outcome.exitCode == exit_code::kBadInput || outcome.exitCode == exit_code::kPartialFailure));
    CHECK_THAT(outcome.err, Contains(file) && Contains("named pipe"));
  }

  // A trace shard, and a config given as a flag.
  std::string shard;
  for (const auto &entry : fs::directory_iterator(trace))
    if (entry.path().extension() == ".mlgotrace") shard = entry.path().filename().string();
  REQUIRE_FALSE(shard.empty());
  const auto pipedTrace = runBounded({"train-bc", "--trace", withPipe(trace, "pipe-trace", shard).string(), "--vocab",
                                      (traced / "vocab").string(), "--output", (traced / "bc1").string()});
  CHECK(pipedTrace.exitCode == exit_code::kBadInput);
  CHECK_THAT(pipedTrace.err, Contains(shard) && Contains("named pipe"));
  REQUIRE(::mkfifo((traced / "config.json").c_str(), 0600) == 0);
  const auto pipedConfig =
      runBounded({"train-bc", "--trace", trace.string(), "--vocab", (traced / "vocab").string(), "--output",
                  (traced / "bc2").string(), "--config", (traced / "config.json").string()});
  CHECK(pipedConfig.exitCode == exit_code::kBadInput);
  CHECK_THAT(pipedConfig.err, Contains("config.json") && Contains("named pipe"));

  // Objects for extract-ir: a pipe and /dev/zero are skipped with the reason.
  REQUIRE(::mkfifo((traced / "object.o").c_str(), 0600) == 0);
  test::ScratchDirectory lists;
  {
    std::ofstream objects(lists / "objects.txt");
    objects << (traced / "object.o").string() << "\n/dev/zero\n";
  }
  const auto extract = runBounded({"extract-ir", "--input", (lists / "objects.txt").string(), "--input-type",
                                   "objects", "--output-dir", (lists / "corpus").string()});
  CHECK(extract.exitCode == exit_code::kFailure);  // nothing extracted
  CHECK_THAT(extract.err, Contains("object.o") && Contains("/dev/zero") && Contains("not a regular file"));
}

TEST_CASE("inputs: cache entries replaced by named pipes are skipped and rewritten, never opened", "[cli][errors]") {
  // The memo names its entries itself: whatever stands at such a name is
  // replaced when the entry is written back, so a planted pipe can neither
  // be read nor block the writer waiting for a reader.
  test::ScratchDirectory scratch;
  const Corpus corpus = test::extractTestCorpus(scratch / "corpus");
  const std::string cache = (scratch / "cache").string();
  const std::vector<std::string> eval = {"eval", "--corpus", (scratch / "corpus").string(), "--cache-dir", cache,
                                         "--threads", "1"};
  const auto filled = runBounded(eval);
  REQUIRE(filled.exitCode == exit_code::kSuccess);
  std::vector<fs::path> entries;
  for (const auto &entry : fs::recursive_directory_iterator(cache))
    if (entry.path().extension() == ".json") entries.push_back(entry.path());
  REQUIRE(entries.size() >= corpus.modules.size());
  for (const fs::path &entry : entries) {
    fs::remove(entry);
    REQUIRE(::mkfifo(entry.c_str(), 0600) == 0);
  }

  const auto piped = runBounded(eval);
  CHECK(piped.exitCode != 124);  // timeout(1): blocked on a pipe
  CHECK(piped.exitCode == exit_code::kSuccess);
  CHECK_THAT(piped.err, Contains("named pipe"));
  CHECK_THAT(piped.out, Contains(std::to_string(corpus.modules.size()) + " modules, " +
                                 std::to_string(corpus.modules.size()) + " compared, 0 failed"));
  for (const fs::path &entry : entries) CHECK(fs::is_regular_file(fs::symlink_status(entry)));
}
