#include <catch2/catch.hpp>

#include "mlgo/autotune/correctness_gate.h"
#include "mlgo/eval/clang_subprocess.h"
#include "mlgo/support/atomic_file.h"
#include "mlgo/support/errors.h"
#include "support/test_environment.h"

using namespace mlgo;
using namespace mlgo::autotune;
namespace fs = std::filesystem;

namespace {

/// A gate over a few of the suite's programs (one C, one C++), plus `extra`.
GateOptions smallGate(const test::ScratchDirectory &scratch, const std::string &extra = "") {
  fs::create_directories(scratch / "programs");
  for (const char *name : {"avl_order_stats.c", "ast_interpreter.cpp", "base_encodings.c"})
    fs::copy_file(defaultGatePrograms() / name, scratch / "programs" / name);
  if (!extra.empty()) writeFileAtomically(scratch / "programs" / "extra.c", extra);
  GateOptions options;
  options.programs = scratch / "programs";
  options.workDirectory = scratch / "work";
  options.clang = findClang("");
  options.opt = findOpt();
  options.threads = 2;
  return options;
}

}  // namespace

TEST_CASE("correctness gate: -Oz passes, a crashing compiler or a failing program rejects", "[autotune][gate]") {
  test::ScratchDirectory scratch;
  REQUIRE_FALSE(findOpt().empty());
  CorrectnessGate gate(smallGate(scratch));
  CHECK(gate.programCount() == 3);
  CHECK(gate.check("default<Oz>").passed);
  CHECK(gate.check("default<Oz>,mergefunc").passed);
  // codegenprepare segfaults in opt-19 outside a code generator.
  const GateVerdict crash = gate.check("function(codegenprepare)");
  CHECK_FALSE(crash.passed);
  CHECK_THAT(crash.failure, Catch::Contains("opt died with signal"));
  CHECK(gate.listsChecked() == 3);
  CHECK_FALSE(gate.check("function(codegenprepare)").passed);  // cached
  CHECK(gate.listsChecked() == 3);
  // The verdict names the program, which culprit isolation then runs alone.
  REQUIRE(crash.program == "ast_interpreter");  // the first in name order
  CHECK_THAT(crash.failure, Catch::StartsWith("ast_interpreter: "));
  CHECK(gate.breaks("function(codegenprepare)", crash.program, true));
  CHECK_FALSE(gate.breaks("default<Oz>", crash.program, true));
  CHECK_FALSE(gate.breaks("function(codegenprepare)", "no_such_program", true));
  CHECK(gate.check("default<Oz>").program.empty());

  // A program that fails its own test rejects every list, naming itself.
  test::ScratchDirectory other;
  CorrectnessGate failing(smallGate(other, "/* always fails */\nint main(void) { return 3; }\n"));
  const GateVerdict verdict = failing.check("default<Oz>");
  CHECK_FALSE(verdict.passed);
  CHECK_THAT(verdict.failure, Catch::Contains("extra: the program exited with status 3"));
  CHECK(verdict.program == "extra");
  CHECK(failing.breaks("default<Oz>", "extra", true));
}

TEST_CASE("correctness gate: verdicts remembered across runs, asked again when a program changes",
          "[autotune][gate]") {
  test::ScratchDirectory scratch;
  GateOptions options = smallGate(scratch);
  options.verdictCache = scratch / "cache" / "gate-verdicts";
  GateVerdict passed, crashed;
  {
    CorrectnessGate first(options);
    passed = first.check("default<Oz>");
    crashed = first.check("function(codegenprepare)");
    CHECK(first.listsChecked() == 2);
    CHECK(first.verdictsRemembered() == 0);
  }
  auto sameVerdict = [](const GateVerdict &a, const GateVerdict &b) {
    return a.passed == b.passed && a.failure == b.failure && a.program == b.program && a.cxxLinkOnly == b.cxxLinkOnly;
  };
  CorrectnessGate second(options);
  CHECK(sameVerdict(second.check("default<Oz>"), passed));
  CHECK(sameVerdict(second.check("function(codegenprepare)"), crashed));
  CHECK(second.listsChecked() == 0);
  CHECK(second.verdictsRemembered() == 2);

  // A damaged entry is asked again (and rewritten); another list is never a hit.
  for (const auto &entry : fs::directory_iterator(options.verdictCache)) writeFileAtomically(entry.path(), "{garbage");
  CorrectnessGate third(options);
  CHECK(sameVerdict(third.check("default<Oz>"), passed));
  CHECK(third.listsChecked() == 1);
  CHECK(third.check("default<Oz>,mergefunc").passed);
  CHECK(third.listsChecked() == 2);

  // One program's source changed: every verdict is asked again.
  writeFileAtomically(scratch / "programs" / "base_encodings.c",
                      readFile(scratch / "programs" / "base_encodings.c") + "\n/* changed */\n");
  CorrectnessGate changed(options);
  CHECK(sameVerdict(changed.check("default<Oz>"), passed));
  CHECK(changed.listsChecked() == 1);
  CHECK(changed.verdictsRemembered() == 0);
}

TEST_CASE("correctness gate: a program that does not compile is bad input", "[autotune][gate][errors]") {
  test::ScratchDirectory scratch;
  CHECK_THROWS_WITH(CorrectnessGate(smallGate(scratch, "int main(void) { return nope; }\n")),
                    Catch::Contains("extra: clang exited"));
  test::ScratchDirectory empty;
  fs::create_directories(empty / "none");
  GateOptions options = smallGate(empty);
  options.programs = empty / "none";
  CHECK_THROWS_AS(CorrectnessGate(options), InputError);
}

TEST_CASE("correctness gate: a C++ program that only fails to link rejects a list for C++ modules, not C ones",
          "[autotune][gate]") {
  test::ScratchDirectory scratch;
  CorrectnessGate gate(smallGate(scratch));
  // mem2reg alone neither inlines nor drops the available_externally bodies
  // clang leaves: references to libstdc++ instances the library does not export.
  const GateVerdict linkOnly = gate.check("function(mem2reg)");
  CHECK_FALSE(linkOnly.passed);
  CHECK(linkOnly.cxxLinkOnly);
  CHECK(linkOnly.program == "ast_interpreter");
  CHECK_THAT(linkOnly.failure, Catch::Contains("linking exited"));
  CHECK(linkOnly.acceptsFor(false));
  CHECK_FALSE(linkOnly.acceptsFor(true));
  CHECK(gate.breaks("function(mem2reg)", "ast_interpreter", true));
  CHECK_FALSE(gate.breaks("function(mem2reg)", "ast_interpreter", false));
  // A crash is a miscompile: rejected for every module.
  const GateVerdict crash = gate.check("function(codegenprepare)");
  CHECK_FALSE(crash.cxxLinkOnly);
  CHECK_FALSE(crash.acceptsFor(false));
  CHECK(gate.check("default<Oz>").acceptsFor(true));
}
