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
    CommandKind kind;
    std::string reason;
  };
  const std::vector<Case> cases{
      {"clang-19", {"a.o", "b.o", "-o", "program"}, CommandKind::Other, "compiles no C or C++ source"},  // a link
      {"clang-19", {"-E", "a.c"}, CommandKind::Other, "compiles no C or C++ source"},  // preprocessing
      {"clang-19", {"-fsyntax-only", "a.c"}, CommandKind::Other, "compiles no C or C++ source"},
      {"clang-19", {"-c", "a.s", "-o", "a.o"}, CommandKind::Other, "compiles no C or C++ source"},  // assembly
      {"clang-19", {"-###", "-c", "a.c"}, CommandKind::Other, "asks for -###"},
      {"clang-19", {"--version"}, CommandKind::Other, "asks for --version"},
      {"clang-19", {"-c", "a.c", "--no-such-option"}, CommandKind::Other, "the driver reports an error"},
      {"/bin/sh", {"-c", "a.c"}, CommandKind::Other, "not clang-19"},  // another compiler
      {"no-such-compiler-mlgo", {"-c", "a.c"}, CommandKind::Other, "no compiler no-such-compiler-mlgo"},
      {"clang-19", {"-O2", "-c", "a.c", "b.c"}, CommandKind::Unapplied, "several sources"},
      {"clang-19", {"-O2", "a.c", "-o", "program"}, CommandKind::Unapplied, "compiles and links"},
      {"clang-19", {"-O2", "-S", "a.c", "-o", "a.s"}, CommandKind::Unapplied, "does not write an object"},
      {"clang-19", {"-O2", "-c", "-emit-llvm", "a.c"}, CommandKind::Unapplied, "asks for -emit-llvm"},
      {"clang-19", {"-O2", "-c", "a.c", "-save-temps"}, CommandKind::Unapplied, "asks for -save-temps"},
      {"clang-19", {"-O2", "-c", "-x", "c", "-", "-o", "a.o"}, CommandKind::Unapplied, "standard stream"},
      {"clang-19", {"-O2", "-c", "a.c", "-o", "-"}, CommandKind::Unapplied, "standard stream"},
      {"clang-19", {"-O2", "-c", "a.ll", "-o", "a.o"}, CommandKind::Unapplied, "not one C or C++ source"},
      {"clang-19", {"-Oz", "-c", "-flto=thin", "a.c"}, CommandKind::LtoCompile, "LTO compile"},
      {"clang-19", {"-Oz", "-c", "-flto", "a.c"}, CommandKind::LtoCompile, "LTO compile"},
      {"clang-19", {"-flto=thin", "-fuse-ld=lld", "a.o", "b.o", "-o", "program"}, CommandKind::LtoLink, "LTO link"},
  };
  for (const Case &planned : cases) {
    CAPTURE(planned.compiler, planned.args);
    const CompilePlan plan = planCompile(planned.compiler, planned.args);
    CHECK_FALSE(plan.inProcess());
    CHECK(int(plan.kind) == int(planned.kind));
    CHECK_THAT(plan.plainReason, Contains(planned.reason));
  }
}

TEST_CASE("compile plan: links, their linker and the optimization level, as the driver runs them", "[launcher]") {
  const CompilePlan lld = planCompile("clang-19", {"-flto=thin", "-fuse-ld=lld", "a.o", "-o", "program"});
  CHECK(lld.links);
  CHECK(lld.linksWithLld);
  const CompilePlan gnu = planCompile("clang-19", {"-flto", "a.o", "-o", "program"});
  CHECK(gnu.kind == CommandKind::LtoLink);
  CHECK_FALSE(gnu.linksWithLld);
  const CompilePlan both = planCompile("clang-19", {"-Oz", "-flto=thin", "-fuse-ld=lld", "a.c", "-o", "program"});
  CHECK(both.kind == CommandKind::LtoCompile);
  CHECK(both.links);
  CHECK(both.source == "a.c");
  const std::vector<std::pair<std::vector<std::string>, unsigned>> levels{
      {{}, 0}, {{"-O0"}, 0}, {{"-O1"}, 1}, {{"-O2"}, 2}, {{"-O3"}, 3}, {{"-Os"}, 2},
      {{"-Oz"}, 2}, {{"-Og"}, 1}, {{"-O2", "-O0"}, 0}, {{"-O0", "-Oz"}, 2}};
  for (const auto &[flags, level] : levels) {
    std::vector<std::string> args = flags;
    args.insert(args.end(), {"-c", "a.c", "-o", "a.o"});
    CAPTURE(args);
    const CompilePlan plan = planCompile("clang-19", args);
    REQUIRE(plan.inProcess());
    CHECK(plan.optimizationLevel == level);
    CHECK(plan.optimizes() == (level > 0));
  }
}

TEST_CASE("compile plan: response files are read as clang's driver reads them", "[launcher]") {
  test::ScratchDirectory scratch;
  writeFileAtomically(scratch / "inner.rsp", "-o 'obj dir/x.o'\n");
  writeFileAtomically(scratch / "args.rsp", "-Oz -c\n\"src dir/x.c\" @" + (scratch / "inner.rsp").string() + "\n");
  const CompilePlan plan = planCompile("clang-19", {"@" + (scratch / "args.rsp").string()});
  REQUIRE(plan.inProcess());
  CHECK(plan.source == "src dir/x.c");
  CHECK(plan.object == "obj dir/x.o");
  CHECK(plan.optimizationLevel == 2);
  // As clang leaves an @name it cannot find unexpanded, and then fails on it.
  const CompilePlan missing = planCompile("clang-19", {"@" + (scratch / "missing.rsp").string()});
  CHECK(missing.kind == CommandKind::Other);
}

TEST_CASE("compile plan: a compiler is found by path or in PATH", "[launcher]") {
  CHECK(findCompiler("clang-19").filename() == "clang-19");
  CHECK(findCompiler(test::clangPath()) == test::clangPath());
  CHECK(findCompiler("/no/such/compiler").empty());
  CHECK(findCompiler("no-such-compiler-mlgo").empty());
}
