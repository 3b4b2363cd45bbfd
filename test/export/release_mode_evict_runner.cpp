// Compiled by position_model_aot_test.cpp at test time (not part of the test
// binary) into a shared library together with an exported
// RegAllocEvictModel.cpp: what a release-mode LLVM has in
// MLRegAllocEvictAdvisor.cpp, LLVM 19's own ReleaseModeModelRunner over the
// eviction features and "index_to_evict", built around the exported class.
#include <vector>

#include <llvm/Analysis/ReleaseModeModelRunner.h>
#include <llvm/Analysis/TensorSpec.h>

#include "RegAllocEvictModel.h"

extern "C" llvm::MLModelRunner *mlgoMakeEvictRunner(llvm::LLVMContext *context,
                                                    const std::vector<llvm::TensorSpec> *inputs) {
  static_assert(sizeof(llvm::RegAllocEvictModel) > 0, "the exported class must be complete");
  return new llvm::ReleaseModeModelRunner<llvm::RegAllocEvictModel>(*context, *inputs, "index_to_evict");
}
