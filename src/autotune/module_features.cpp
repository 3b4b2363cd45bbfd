#include "mlgo/autotune/module_features.h"

#include <llvm/Analysis/FunctionPropertiesAnalysis.h>
#include <llvm/Analysis/LoopInfo.h>
#include <llvm/Bitcode/BitcodeReader.h>
#include <llvm/IR/Dominators.h>
#include <llvm/IR/Instruction.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/Support/Error.h>
#include <llvm/Support/MemoryBuffer.h>

#include <algorithm>

#include "mlgo/support/atomic_file.h"
#include "mlgo/support/errors.h"

namespace mlgo::autotune {

namespace {

// FunctionPropertiesInfo's fields that LLVM always computes (the detailed
// ones need a global cl::opt and are left alone). MaxLoopDepth is a maximum,
// the others are sums over the module's functions.
#define MLGO_FUNCTION_PROPERTIES(X)            \
  X(BasicBlockCount)                           \
  X(BlocksReachedFromConditionalInstruction)   \
  X(Uses)                                      \
  X(DirectCallsToDefinedFunctions)             \
  X(LoadInstCount)                             \
  X(StoreInstCount)                            \
  X(MaxLoopDepth)                              \
  X(TopLevelLoopCount)                         \
  X(TotalInstructionCount)

constexpr const char *kModuleCounts[] = {"module.defined_functions", "module.declared_functions",
                                         "module.internal_functions", "module.global_variables",
                                         "module.loops", "module.cxx"};

// The opcodes that have a name (the enumeration has no gaps today, but a
// name check keeps a future gap out of the feature list).
std::vector<unsigned> namedOpcodes() {
  std::vector<unsigned> opcodes;
  for (unsigned opcode = 1; opcode < llvm::Instruction::OtherOpsEnd; ++opcode)
    if (std::string(llvm::Instruction::getOpcodeName(opcode)) != "<Invalid operator>") opcodes.push_back(opcode);
  return opcodes;
}

const std::vector<unsigned> &opcodes() {
  static const std::vector<unsigned> named = namedOpcodes();
  return named;
}

std::vector<std::string> featureNames() {
  std::vector<std::string> names;
  for (unsigned opcode : opcodes()) names.push_back(std::string("op.") + llvm::Instruction::getOpcodeName(opcode));
#define MLGO_NAME(field) names.push_back("fp." #field);
  MLGO_FUNCTION_PROPERTIES(MLGO_NAME)
#undef MLGO_NAME
  names.insert(names.end(), std::begin(kModuleCounts), std::end(kModuleCounts));
  return names;
}

}  // namespace

const std::vector<std::string> &moduleFeatureNames() {
  static const std::vector<std::string> names = featureNames();
  return names;
}

std::vector<double> moduleFeatures(llvm::Module &module, bool cxx) {
  std::vector<double> opcodeCounts(llvm::Instruction::OtherOpsEnd, 0);
  llvm::FunctionPropertiesInfo total;
  double defined = 0, declared = 0, internal = 0, loops = 0;
  for (llvm::Function &function : module) {
    if (function.isDeclaration()) {
      ++declared;
      continue;
    }
    ++defined;
    internal += function.hasLocalLinkage();
    for (const llvm::BasicBlock &block : function)
      for (const llvm::Instruction &instruction : block) ++opcodeCounts[instruction.getOpcode()];
    llvm::DominatorTree dominators(function);
    llvm::LoopInfo loopInfo(dominators);
    loops += double(loopInfo.getLoopsInPreorder().size());
    const llvm::FunctionPropertiesInfo properties =
        llvm::FunctionPropertiesInfo::getFunctionPropertiesInfo(function, dominators, loopInfo);
    const int64_t deepest = std::max(total.MaxLoopDepth, properties.MaxLoopDepth);
#define MLGO_ADD(field) total.field += properties.field;
    MLGO_FUNCTION_PROPERTIES(MLGO_ADD)
#undef MLGO_ADD
    total.MaxLoopDepth = deepest;  // a maximum, not a sum
  }
  std::vector<double> features;
  features.reserve(moduleFeatureNames().size());
  for (unsigned opcode : opcodes()) features.push_back(opcodeCounts[opcode]);
#define MLGO_VALUE(field) features.push_back(double(total.field));
  MLGO_FUNCTION_PROPERTIES(MLGO_VALUE)
#undef MLGO_VALUE
  for (double count : {defined, declared, internal, double(module.global_size()), loops, cxx ? 1.0 : 0.0})
    features.push_back(count);
  return features;
}

std::vector<double> moduleFeatures(const CorpusModule &module) {
  if (!module.loadError.empty()) throw InputError(describeInputProblem(module.name, "", module.loadError));
  requireRegularFile(module.bitcodePath);
  auto buffer = llvm::MemoryBuffer::getFile(module.bitcodePath.string());
  if (!buffer)
    throw InputError(describeInputProblem(module.bitcodePath.string(), "", buffer.getError().message()));
  llvm::LLVMContext context;
  llvm::Expected<std::unique_ptr<llvm::Module>> parsed = llvm::parseBitcodeFile(**buffer, context);
  if (!parsed)
    throw InputError(describeInputProblem(module.bitcodePath.string(), "", llvm::toString(parsed.takeError())));
  return moduleFeatures(**parsed, isCxxModule(module));
}

}  // namespace mlgo::autotune
