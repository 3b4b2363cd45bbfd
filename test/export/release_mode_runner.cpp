// Compiled by yes_no_model_aot_test.cpp at test time (not part of the test
// binary) into a shared library together with an exported
// InlinerSizeModel.cpp: the glue a release-mode LLVM has in
// MLInlineAdvisor.cpp, LLVM 19's own ReleaseModeModelRunner over LLVM's
// FeatureMap and decision name, built around the exported class.
#include <llvm/Analysis/InlineModelFeatureMaps.h>
#include <llvm/Analysis/ReleaseModeModelRunner.h>

#include "InlinerSizeModel.h"

extern "C" llvm::MLModelRunner *mlgoMakeReleaseModeRunner(llvm::LLVMContext *context) {
  static_assert(sizeof(llvm::InlinerSizeModel) > 0, "the exported class must be complete");
  return new llvm::ReleaseModeModelRunner<llvm::InlinerSizeModel>(*context, llvm::FeatureMap, llvm::DecisionName);
}
