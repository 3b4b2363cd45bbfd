#include <catch2/catch.hpp>

#include <filesystem>

#include "mlgo/launcher/compile_plan.h"
#include "mlgo/launcher/frontend.h"
#include "mlgo/support/atomic_file.h"
#include "support/test_environment.h"

using namespace mlgo;
using namespace mlgo::launcher;

namespace fs = std::filesystem;

namespace {

FrontendResult frontendOf(const fs::path &source) {
  const CompilePlan plan = planCompile("clang-19", {"-Oz", "-c", source.string(), "-o", (source.string() + ".o")});
  REQUIRE(plan.inProcess());
  return runFrontend(plan.cc1);
}

}  // namespace

TEST_CASE("frontend: the source bytes it read are every file it opened, once, the same on every run",
          "[launcher][clang]") {
  test::ScratchDirectory scratch;
  const std::string header = "static inline int twice(int x) { return 2 * x; }\n/* padding */\n";
  const std::string alone = "int unit(int x) { return x + 1; }\n";
  const std::string including = "#include \"helper.h\"\n#include \"helper.h\"\nint unit(int x) { return twice(x); }\n";
  writeFileAtomically(scratch / "helper.h", "#pragma once\n" + header);
  writeFileAtomically(scratch / "alone.c", alone);
  writeFileAtomically(scratch / "including.c", including);

  const FrontendResult plain = frontendOf(scratch / "alone.c");
  REQUIRE(plain.ok);
  const FrontendResult withHeader = frontendOf(scratch / "including.c");
  REQUIRE(withHeader.ok);
  // clang's own predefines count alike in both; the header counts once.
  const uint64_t headerBytes = fs::file_size(scratch / "helper.h");
  CHECK(withHeader.sourceBytes - plain.sourceBytes == headerBytes + including.size() - alone.size());
  CHECK(frontendOf(scratch / "including.c").sourceBytes == withHeader.sourceBytes);
}
