#include <catch2/catch.hpp>

#include <llvm/Support/CommandLine.h>

#include "mlgo/driver/backend_options.h"
#include "mlgo/driver/compiler_driver.h"

using namespace mlgo;
using Catch::Matchers::Contains;

TEST_CASE("backend options: only code-generation options pass", "[driver][security]") {
  for (const char *refused : {"-print-after-all", "-ir-dump-directory=/tmp/d", "-time-passes", "-info-output-file=f",
                              "-stats-json", "-view-cfg", "-load=evil.so", "--load-pass-plugin=evil.so",
                              "-inliner-interactive-channel-base=/tmp/x", "-enable-ml-inliner=release",
                              "-ml-advisor-size-increase-threshold=2", "-inline-remark-attribute",
                              "-pass-remarks-output=r.yaml", "-x86-debug-something"}) {
    INFO(refused);
    CHECK_THAT(refusedBackendOption(refused), Contains(refused) && Contains("mllvm-options"));
  }
  for (const char *allowed : {"-inline-threshold=500", "-inlinehint-threshold=100", "-unroll-runtime",
                              "-unroll-threshold=0", "-x86-asm-syntax=intel", "-x86-indirect-branch-tracking",
                              "-enable-machine-outliner=never", "-asan-stack=0", "--align-all-functions=4"}) {
    INFO(allowed);
    CHECK(refusedBackendOption(allowed).empty());
  }
}

TEST_CASE("backend options: every named entry of the allow-list is an option of LLVM 19", "[driver]") {
  CompilerDriver driver({});  // registers LLVM's options
  const auto &registered = llvm::cl::getRegisteredOptions();
  for (const AllowedBackendOption &option : allowedBackendOptions()) {
    if (option.pattern.back() == '*') continue;
    INFO(option.pattern);
    CHECK(registered.count(option.pattern) == 1);
  }
}
