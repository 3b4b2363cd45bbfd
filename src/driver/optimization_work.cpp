#include "mlgo/driver/optimization_work.h"

#include <algorithm>

#include <llvm/ADT/Any.h>
#include <llvm/ADT/StringMap.h>
#include <llvm/Analysis/LazyCallGraph.h>
#include <llvm/Analysis/LoopInfo.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/PassInstrumentation.h>
#include <llvm/Bitcode/BitcodeReader.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/Error.h>

#include "charged_functions.h"
#include "mlgo/support/atomic_file.h"
#include "mlgo/support/errors.h"

namespace mlgo {

namespace {

struct PassCost {
  const char *pass;
  double nsPerFunction;
  double nsPerInstruction;
  double nsPerSquaredInstruction;
  /// The largest function the pass was timed on: its fit holds up to it.
  double largestCalibratedFunction;
};

#include "pass_costs.inc"

/// Passes the calibration did not time (calibrate-costs: its median pass).
constexpr PassCost kUncalibrated{"", kUncalibratedNsPerFunction, kUncalibratedNsPerInstruction, 0.0,
                                 kLargestCalibratedFunction};

const PassCost &costOf(llvm::StringRef pass) {
  static const llvm::StringMap<const PassCost *> table = [] {
    llvm::StringMap<const PassCost *> byName;
    for (const PassCost &cost : kPassCosts) byName[cost.pass] = &cost;
    return byName;
  }();
  auto found = table.find(pass);
  return found == table.end() ? kUncalibrated : *found->second;
}

/// The cost of a pass on a unit of `instructions`. Past the largest function
/// the calibration timed that pass on, the quadratic term grows by one more
/// power: GVN hoisting on pcre2's 41,588-instruction match() takes 3.5 s,
/// nine times what its fit to smaller functions says. A function that large
/// is rare, and a list that might be slow on it is better left unchosen.
double costOn(const PassCost &cost, uint64_t instructions) {
  const double n = double(instructions);
  const double beyond = std::max(1.0, n / std::max(1.0, cost.largestCalibratedFunction));
  return cost.nsPerFunction + cost.nsPerInstruction * n + cost.nsPerSquaredInstruction * n * n * beyond;
}

double costOn(const PassCost &cost, const llvm::Any &unit) {
  double total = 0;
  forEachChargedFunction(unit, [&](uint64_t instructions) { total += costOn(cost, instructions); });
  return total;
}

}  // namespace

void forEachChargedFunction(const llvm::Any &unit, llvm::function_ref<void(uint64_t)> charge) {
  // A pass over several functions costs what it would on each alone: module
  // passes too grow with the square of each function, not of the module (the
  // IR outliner takes 23 s on pcre2's 36,928-instruction match() and no time
  // worth counting on modules of as many instructions in small functions).
  if (const auto *function = llvm::any_cast<const llvm::Function *>(&unit)) {
    charge((*function)->getInstructionCount());
  } else if (const auto *module = llvm::any_cast<const llvm::Module *>(&unit)) {
    for (const llvm::Function &each : **module)
      if (!each.isDeclaration()) charge(each.getInstructionCount());
  } else if (const auto *scc = llvm::any_cast<const llvm::LazyCallGraph::SCC *>(&unit)) {
    for (const llvm::LazyCallGraph::Node &node : **scc) charge(node.getFunction().getInstructionCount());
  } else if (const auto *loop = llvm::any_cast<const llvm::Loop *>(&unit)) {
    uint64_t count = 0;
    for (const llvm::BasicBlock *block : (*loop)->blocks()) count += block->size();
    charge(count);
  }
}

void OptimizationWork::registerCallbacks(llvm::PassBuilder &builder) {
  llvm::PassInstrumentationCallbacks *instrumentation = builder.getPassInstrumentationCallbacks();
  if (!instrumentation) return;
  instrumentation->registerBeforeNonSkippedPassCallback([this](llvm::StringRef pass, llvm::Any unit) {
    if (!isPassWrapper(pass)) nanoseconds_ += uint64_t(costOn(costOf(pass), unit));
  });
  instrumentation->registerShouldRunOptionalPassCallback([this](llvm::StringRef pass, llvm::Any unit) {
    if (limit_ == 0 || isPassWrapper(pass)) return true;
    if (!stopped_ && double(nanoseconds_) + costOn(costOf(pass), unit) > double(limit_)) stopped_ = true;
    return !stopped_;
  });
}

std::vector<uint64_t> functionInstructionCounts(const std::filesystem::path &bitcode) {
  const std::string bytes = readFile(bitcode);
  llvm::LLVMContext context;
  llvm::Expected<std::unique_ptr<llvm::Module>> module =
      llvm::parseBitcodeFile(llvm::MemoryBufferRef(bytes, bitcode.string()), context);
  if (!module)
    throw InputError(describeInputProblem(bitcode.string(), "", "not LLVM bitcode: " + llvm::toString(module.takeError())));
  std::vector<uint64_t> counts;
  for (const llvm::Function &function : **module)
    if (!function.isDeclaration()) counts.push_back(function.getInstructionCount());
  return counts;
}

uint64_t estimatedFrontendNanoseconds(uint64_t sourceBytes) {
  // CPU time of clang-19's frontend (-disable-llvm-passes -emit-llvm) on
  // pcre2_match.c, pcre2_compile.c, re2.cc and two of libebml's C++ files,
  // per byte of the source files it read: 90 to 190 ns.
  constexpr double kFrontendNsPerSourceByte = 150.0;
  return uint64_t(kFrontendNsPerSourceByte * double(sourceBytes));
}

uint64_t estimatedCodeGenerationNanoseconds(uint64_t instructions) {
  return uint64_t(kCodeGenerationNsPerModule + kCodeGenerationNsPerInstruction * double(instructions));
}

}  // namespace mlgo
