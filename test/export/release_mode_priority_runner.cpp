// Compiled by continuous_model_aot_test.cpp at test time (not part of the test
// binary) into a shared library together with an exported
// RegAllocPriorityModel.cpp: what a release-mode LLVM has in
// MLRegallocPriorityAdvisor.cpp, LLVM 19's own ReleaseModeModelRunner over the
// priority features and "priority", built around the exported class.
#include <vector>

#include <llvm/Analysis/ReleaseModeModelRunner.h>
#include <llvm/Analysis/TensorSpec.h>

#include "RegAllocPriorityModel.h"

extern "C" llvm::MLModelRunner *mlgoMakePriorityRunner(llvm::LLVMContext *context,
                                                       const std::vector<llvm::TensorSpec> *inputs) {
  static_assert(sizeof(llvm::RegAllocPriorityModel) > 0, "the exported class must be complete");
  return new llvm::ReleaseModeModelRunner<llvm::RegAllocPriorityModel>(*context, *inputs, "priority");
}
