#include <catch2/catch.hpp>

#include <unistd.h>

#include "mlgo/support/atomic_file.h"
#include "mlgo/support/errors.h"
#include "mlgo/support/output_directory.h"
#include "support/test_environment.h"

using namespace mlgo;
using Catch::Matchers::Contains;
namespace fs = std::filesystem;

TEST_CASE("output directory: a second writer is stopped, naming the first", "[support][output]") {
  test::ScratchDirectory scratch;
  const fs::path output = scratch / "out";
  {
    OutputDirectoryLock first = OutputDirectoryLock::claim(output, "train-ppo", ExistingOutput::Keep);
    CHECK(fs::is_directory(output));
    CHECK_THROWS_AS(OutputDirectoryLock::claim(output, "default-trace", ExistingOutput::Keep), OutputInUse);
    CHECK_THROWS_WITH(OutputDirectoryLock::claim(output, "default-trace", ExistingOutput::Keep),
                      Contains("train-ppo") && Contains("pid " + std::to_string(::getpid())) &&
                          Contains(output.string()));
  }
  // Released with its holder (the kernel releases it on kill -9 too).
  CHECK_NOTHROW(OutputDirectoryLock::claim(output, "default-trace", ExistingOutput::Keep));
  CHECK_FALSE(holdsOutput(output));  // the lock file is not output
}

TEST_CASE("output directory: an earlier run's files need --resume or --force", "[support][output]") {
  test::ScratchDirectory scratch;
  const fs::path output = scratch / "out";
  writeFileAtomically(output / "checkpoints/iteration-100/policy.json", "{}");
  CHECK_THROWS_AS(OutputDirectoryLock::claim(output, "train-ppo", ExistingOutput::Refuse, "pass --resume"),
                  UsageError);
  CHECK_THROWS_WITH(OutputDirectoryLock::claim(output, "train-ppo", ExistingOutput::Refuse, "pass --resume"),
                    Contains(output.string()) && Contains("--resume"));
  CHECK(fs::exists(output / "checkpoints/iteration-100/policy.json"));  // refused: nothing touched
  CHECK_NOTHROW(OutputDirectoryLock::claim(output, "train-ppo", ExistingOutput::Resume));
  CHECK(fs::exists(output / "checkpoints/iteration-100/policy.json"));
  CHECK_NOTHROW(OutputDirectoryLock::claim(output, "train-ppo", ExistingOutput::Replace, "", {"checkpoints"}));
  CHECK_FALSE(holdsOutput(output));
  CHECK_NOTHROW(OutputDirectoryLock::claim(output, "train-ppo", ExistingOutput::Refuse));  // empty again
}

TEST_CASE("output directory: --force removes an earlier run's files only, and refuses a directory holding "
          "anything else",
          "[support][output][security]") {
  test::ScratchDirectory scratch;
  const fs::path output = scratch / "out";
  const std::vector<std::string> own{"policy", "metrics.jsonl", "*.mlgotrace"};
  for (const char *file : {"policy/policy.json", "metrics.jsonl", "a-00000-of-00001.mlgotrace", "manifest.json",
                           "events.out.tfevents.1.host.2.0", "config.json.temp-stream-a1b2c3"})
    writeFileAtomically(output / file, "earlier run");
  writeFileAtomically(output / "thesis.txt", "mine");
  fs::create_directories(output / "notes");
  const std::string refused = test::messageOf<UsageError>(
      [&] { OutputDirectoryLock::claim(output, "train-bc", ExistingOutput::Replace, "", own); });
  CHECK_THAT(refused, Contains(output.string()) && Contains("no mlgo train-bc run writes") &&
                          Contains("nothing was removed"));
  CHECK((refused.find("thesis.txt") != std::string::npos || refused.find("notes") != std::string::npos));
  CHECK(readFile(output / "thesis.txt") == "mine");
  // Without --force the first message already names the file --force would refuse: no advice that cannot work.
  const std::string withoutForce = test::messageOf<UsageError>(
      [&] { OutputDirectoryLock::claim(output, "train-bc", ExistingOutput::Refuse, "", own); });
  CHECK_THAT(withoutForce, Contains("notes") && Contains("no mlgo train-bc run writes"));
  CHECK_THAT(withoutForce, !Contains("pass --force"));
  CHECK(fs::exists(output / "policy/policy.json"));  // refused: nothing removed
  CHECK(fs::exists(output / "metrics.jsonl"));

  fs::remove(output / "thesis.txt");
  fs::remove(output / "notes");
  CHECK_NOTHROW(OutputDirectoryLock::claim(output, "train-bc", ExistingOutput::Replace, "", own));
  CHECK_FALSE(holdsOutput(output));

  // The working directory, say: what no run of the command writes is never removed.
  writeFileAtomically(scratch / "work/CMakeLists.txt", "project(x)");
  CHECK_THROWS_AS(OutputDirectoryLock::claim(scratch / "work", "train-bc", ExistingOutput::Replace, "", own),
                  UsageError);
  CHECK(fs::exists(scratch / "work/CMakeLists.txt"));
}

TEST_CASE("output directory: a planted link is not followed for the lock", "[support][output][security]") {
  test::ScratchDirectory scratch;
  writeFileAtomically(scratch / "victim.txt", "kept");
  fs::create_directories(scratch / "out");
  fs::create_symlink(scratch / "victim.txt", scratch / "out" / OutputDirectoryLock::kLockFile);
  CHECK_THROWS_AS(OutputDirectoryLock::claim(scratch / "out", "report", ExistingOutput::Keep), UsageError);
  CHECK(readFile(scratch / "victim.txt") == "kept");
}
