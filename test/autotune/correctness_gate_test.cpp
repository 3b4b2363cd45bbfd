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
  options.threads = 2;
  return options;
}

/// Compile workers of the mlgo binary (the test binary is not one).
std::function<std::vector<std::string>(const fs::path &)> mlgoWorkers(const std::string &fault = "") {
  return [fault](const fs::path &corpus) {
    std::vector<std::string> command{test::mlgoBinary(), "compile-worker", "--corpus", corpus.string(), "--no-memo"};
    if (!fault.empty()) command.insert(command.end(), {"--inject-fault", fault});
    return command;
  };
}

}  // namespace

TEST_CASE("correctness gate: -Oz passes, a crashing compile or a failing program rejects", "[autotune][gate]") {
  test::ScratchDirectory scratch;
  CorrectnessGate gate(smallGate(scratch));
  CHECK(gate.programCount() == 3);
  // The programs became a corpus of unoptimized bitcode with clang's -Oz command.
  const Corpus programs = Corpus::load(scratch / "work" / "corpus");
  REQUIRE(programs.modules.size() == 3);
  CHECK(isCxxModule(programs.modules[0]));  // ast_interpreter
  CHECK_FALSE(isCxxModule(programs.modules[1]));
  CHECK(gate.check("default<Oz>").passed);
  CHECK(gate.check("default<Oz>,mergefunc").passed);
  CHECK(gate.listsChecked() == 2);
  CHECK(gate.check("default<Oz>").passed);  // cached
  CHECK(gate.listsChecked() == 2);
  CHECK(gate.check("default<Oz>").program.empty());
  // Only links and runs are left in the work directory's files: every object and binary is gone.
  for (const auto &entry : fs::directory_iterator(scratch / "work"))
    CHECK((entry.path().filename() == "corpus" || entry.path().extension() == ".txt"));

  // A compile that crashes (injected into one program) rejects every list, naming the program.
  test::ScratchDirectory crashing;
  GateOptions crashOptions = smallGate(crashing);
  crashOptions.faults.crashModule = "avl_order_stats";
  CorrectnessGate crashGate(crashOptions);
  const GateVerdict crash = crashGate.check("default<Oz>");
  CHECK_FALSE(crash.passed);
  CHECK_FALSE(crash.cxxLinkOnly);
  REQUIRE(crash.program == "avl_order_stats");
  CHECK_THAT(crash.failure, Catch::StartsWith("avl_order_stats: compiling failed (crash)"));
  // Culprit isolation runs that program alone.
  const size_t before = crashGate.programRuns();
  CHECK(crashGate.breaks("default<Oz>", crash.program, true));
  CHECK(crashGate.programRuns() == before + 1);
  CHECK_FALSE(crashGate.breaks("default<Oz>", "base_encodings", true));
  CHECK_FALSE(crashGate.breaks("default<Oz>", "no_such_program", true));

  // The first program in name order miscompiles: with one thread, the others never run.
  test::ScratchDirectory first;
  GateOptions firstOptions = smallGate(first);
  firstOptions.threads = 1;
  firstOptions.faults.crashModule = "ast_interpreter";
  CorrectnessGate firstGate(firstOptions);
  const GateVerdict stopped = firstGate.check("default<Oz>");
  CHECK(stopped.program == "ast_interpreter");
  CHECK(firstGate.programRuns() == 1);
  CHECK(gate.programRuns() == 3 * 2);  // the passing lists ran every program

  // A program that fails its own test rejects every list, naming itself.
  test::ScratchDirectory other;
  CorrectnessGate failing(smallGate(other, "/* always fails */\nint main(void) { return 3; }\n"));
  const GateVerdict verdict = failing.check("default<Oz>");
  CHECK_FALSE(verdict.passed);
  CHECK_THAT(verdict.failure, Catch::Contains("extra: the program exited with status 3"));
  CHECK(verdict.program == "extra");
  CHECK(failing.breaks("default<Oz>", "extra", true));
}

TEST_CASE("correctness gate: in compile workers, a compile that kills its process rejects the list and the gate "
          "goes on",
          "[autotune][gate]") {
  test::ScratchDirectory scratch;
  GateOptions options = smallGate(scratch);
  options.workerCommand = mlgoWorkers();
  CorrectnessGate gate(options);
  test::ScratchDirectory plain;
  const GateVerdict inProcess = CorrectnessGate(smallGate(plain)).check("default<Oz>,mergefunc");
  CHECK(gate.check("default<Oz>,mergefunc").passed == inProcess.passed);
  CHECK(gate.check("default<Oz>").passed);

  // A crash kills the worker: the verdict names the program, a new worker compiles the next list.
  test::ScratchDirectory crashing;
  GateOptions crashOptions = smallGate(crashing);
  crashOptions.workerCommand = mlgoWorkers("crash:base_encodings");
  CorrectnessGate crashGate(crashOptions);
  const GateVerdict crash = crashGate.check("default<Oz>");
  CHECK_FALSE(crash.passed);
  CHECK(crash.program == "base_encodings");
  CHECK_THAT(crash.failure, Catch::Contains("compiling failed (crash)"));
  CHECK_FALSE(crashGate.breaks("default<Oz>", "avl_order_stats", true));
  CHECK(crashGate.breaks("default<Oz>,mergefunc", "base_encodings", true));
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
    crashed = first.check("function(mem2reg)");
    CHECK(first.listsChecked() == 2);
    CHECK(first.verdictsRemembered() == 0);
  }
  auto sameVerdict = [](const GateVerdict &a, const GateVerdict &b) {
    return a.passed == b.passed && a.failure == b.failure && a.program == b.program && a.cxxLinkOnly == b.cxxLinkOnly;
  };
  CorrectnessGate second(options);
  CHECK(sameVerdict(second.check("default<Oz>"), passed));
  CHECK(sameVerdict(second.check("function(mem2reg)"), crashed));
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
  GateOptions options = smallGate(scratch);
  fs::copy_file(test::testData() / "gate" / "extern_template.cpp", scratch / "programs" / "extern_template.cpp");
  CorrectnessGate gate(options);
  // mem2reg alone does not inline the available_externally body clang keeps
  // of an extern template's member: a reference nothing defines.
  const GateVerdict linkOnly = gate.check("function(mem2reg)");
  CHECK_FALSE(linkOnly.passed);
  CHECK(linkOnly.cxxLinkOnly);
  CHECK(linkOnly.program == "extern_template");
  CHECK_THAT(linkOnly.failure, Catch::Contains("linking exited"));
  CHECK(linkOnly.acceptsFor(false));
  CHECK_FALSE(linkOnly.acceptsFor(true));
  CHECK(gate.breaks("function(mem2reg)", "extern_template", true));
  CHECK_FALSE(gate.breaks("function(mem2reg)", "extern_template", false));
  // libstdc++'s own always_inline members no longer break it: every list runs the always-inliner first.
  CHECK_FALSE(gate.breaks("function(mem2reg)", "ast_interpreter", true));
  CHECK(gate.check("default<Oz>").acceptsFor(true));
  // A crash is a miscompile: rejected for every module.
  test::ScratchDirectory crashing;
  GateOptions crashOptions = smallGate(crashing);
  crashOptions.faults.crashModule = "base_encodings";
  const GateVerdict crash = CorrectnessGate(crashOptions).check("default<Oz>");
  CHECK_FALSE(crash.cxxLinkOnly);
  CHECK_FALSE(crash.acceptsFor(false));
}
