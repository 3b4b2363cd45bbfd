#pragma once
// What the compile-cost model charges a pass invocation by, shared by the
// model (optimization_work.cpp) and the timing it is calibrated on
// (pass_timing.cpp), so that both count alike.
#include <cstdint>

#include <llvm/ADT/STLFunctionalExtras.h>

namespace llvm {
class Any;
}

namespace mlgo {

/// `unit` is what the pass instrumentation hands a pass (a function, loop,
/// call-graph SCC or module): `charge` is called with the IR instructions of
/// each function it covers (a loop: its own).
void forEachChargedFunction(const llvm::Any &unit, llvm::function_ref<void(uint64_t)> charge);

}  // namespace mlgo
