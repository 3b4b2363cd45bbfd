#pragma once
// What the register-allocation seams' tests share: a compile of one module
// with a hook (or without, for LLVM's own code), its object and what the
// hook measured, and running the object as a program.
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <catch2/catch.hpp>

#include "mlgo/driver/compiler_driver.h"
#include "support/test_environment.h"

namespace mlgo::test {

/// Keeps the object code of the compile it is part of.
class ObjectCapture final : public PipelineHook {
 public:
  void objectEmitted(std::string_view object) override { bytes.assign(object); }
  std::string bytes;
};

struct HookedCompile {
  CompileResult result;
  std::string object;
  double score = 0;
  uint64_t decisions = 0, changed = 0;
  std::vector<std::string> problems;
};

/// Compiles `module` with a `Hook` (EvictionHook, PriorityHook) around
/// `steer` (null: the hook only measures), or without one.
template <class Hook, class Steer>
HookedCompile compileHooked(const CompilerDriver &driver, const CorpusModule &module, std::shared_ptr<Steer> steer,
                            bool withHook) {
  auto capture = std::make_shared<ObjectCapture>();
  auto hook = std::make_shared<Hook>(std::move(steer));
  CompileRequest request{&module, "", {capture}};
  if (withHook) request.hooks.push_back(hook);
  HookedCompile compiled;
  compiled.result = driver.compile(request);
  compiled.object = capture->bytes;
  compiled.score = hook->score();
  compiled.decisions = hook->decisionsTaken();
  compiled.changed = hook->changedDecisions();
  compiled.problems = hook->problems();
  return compiled;
}

/// Links `object` into a program and runs it; its standard output.
inline std::string runLinked(const std::filesystem::path &directory, const std::string &name,
                             const std::string &object) {
  const std::filesystem::path objectFile = directory / (name + ".o"), program = directory / name;
  std::ofstream(objectFile, std::ios::binary) << object;
  const CommandOutcome link = runProgram(clangPath(), {objectFile.string(), "-o", program.string()});
  REQUIRE(link.exitCode == 0);
  const CommandOutcome run = runProgram(program.string(), {});
  REQUIRE(run.exitCode == 0);
  return run.out;
}

}  // namespace mlgo::test
