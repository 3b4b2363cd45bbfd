#include <catch2/catch.hpp>

#include "mlgo/launcher/compile_plan.h"
#include "mlgo/support/atomic_file.h"
#include "support/test_environment.h"

using namespace mlgo;
using namespace mlgo::launcher;
using Catch::Matchers::Contains;

TEST_CASE("compile plan: one C or C++ source to one object runs in-process, as clang's driver plans it",
          "[launcher]") {
  const std::string compiler = GENERATE(std::string("clang-19"), std::string("clang++-19"), test::clangPath());
  const CompilePlan plan = planCompile(compiler, {"-O2", "-g", "-c", "x.c", "-o", "first.o", "--output=obj/x.o"});
  CAPTURE(compiler);
  REQUIRE(plan.inProcess());
  CHECK(plan.cc1.front() == "-cc1");
  CHECK(plan.source == "x.c");
  CHECK(plan.object == "obj/x.o");  // the last output, as clang writes it
  CHECK(std::find(plan.cc1.begin(), plan.cc1.end(), "-emit-obj") != plan.cc1.end());
  CHECK(std::find(plan.cc1.begin(), plan.cc1.end(), "-debug-info-kind=constructor") != plan.cc1.end());
  const bool cxxMode = compiler == "clang++-19";
  CHECK((std::find(plan.cc1.begin(), plan.cc1.end(), "c++") != plan.cc1.end()) == cxxMode);
}

TEST_CASE("compile plan: everything else runs the real compiler, with the reason", "[launcher]") {
  struct Case {
    std::string compiler;
    std::vector<std::string> args;
    std::string reason;
  };
  const std::vector<Case> cases{
      {"clang-19", {"a.o", "b.o", "-o", "program"}, "runs"},              // a link
      {"clang-19", {"-c", "a.c", "b.c"}, "several jobs"},                 // two sources
      {"clang-19", {"-E", "a.c"}, "does not write an object"},            // preprocessing
      {"clang-19", {"-S", "a.c", "-o", "a.s"}, "does not write an object"},
      {"clang-19", {"-c", "-emit-llvm", "a.c"}, "asks for -emit-llvm"},
      {"clang-19", {"-c", "-flto=thin", "a.c"}, "asks for -flto=thin"},
      {"clang-19", {"-c", "a.s", "-o", "a.o"}, "runs"},                   // assembly: clang's integrated assembler
      {"clang-19", {"-c", "a.c", "-save-temps"}, "asks for -save-temps"},
      {"clang-19", {"-###", "-c", "a.c"}, "asks for -###"},
      {"clang-19", {"-c", "-x", "c", "-", "-o", "a.o"}, "standard stream"},
      {"clang-19", {"-c", "a.c", "-o", "-"}, "standard stream"},
      {"clang-19", {"-c", "a.c", "--no-such-option"}, "the driver reports an error"},
      {"/bin/sh", {"-c", "a.c"}, "not clang-19"},  // another compiler
      {"no-such-compiler-mlgo", {"-c", "a.c"}, "no compiler no-such-compiler-mlgo"},
  };
  for (const Case &planned : cases) {
    CAPTURE(planned.compiler, planned.args);
    const CompilePlan plan = planCompile(planned.compiler, planned.args);
    CHECK_FALSE(plan.inProcess());
    CHECK_THAT(plan.plainReason, Contains(planned.reason));
  }
}

TEST_CASE("compile plan: a compiler is found by path or in PATH", "[launcher]") {
  CHECK(findCompiler("clang-19").filename() == "clang-19");
  CHECK(findCompiler(test::clangPath()) == test::clangPath());
  CHECK(findCompiler("/no/such/compiler").empty());
  CHECK(findCompiler("no-such-compiler-mlgo").empty());
}
