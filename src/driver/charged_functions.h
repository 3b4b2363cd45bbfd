#pragma once
// What the compile-cost model charges a pass invocation by, shared by the
// model (optimization_work.cpp) and the timing it is calibrated on
// (pass_timing.cpp), so that both count alike.
#include <cstdint>

#include <llvm/ADT/STLFunctionalExtras.h>
#include <llvm/ADT/StringRef.h>

namespace llvm {
class Any;
}

namespace mlgo {

/// `unit` is what the pass instrumentation hands a pass (a function, loop,
/// call-graph SCC or module): `charge` is called with the IR instructions of
/// each function it covers (a loop: its own).
void forEachChargedFunction(const llvm::Any &unit, llvm::function_ref<void(uint64_t)> charge);

/// Pass managers and adaptors hand each pass its unit in turn: the model
/// charges the passes that do work, not the wrappers around them.
inline bool isPassWrapper(llvm::StringRef pass) {
  return pass.contains("PassManager") || pass.contains("PassAdaptor");
}

}  // namespace mlgo
