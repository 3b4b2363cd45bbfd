// The priority advisor LLVM's greedy allocator gets while a PriorityHook is
// active on the compiling thread, and how it gets there: installPrioritySeam()
// replaces the registry constructor of the priority advisor analysis, once
// per process (pass_constructor.h). At each decision the advisor asks LLVM's
// DefaultPriorityAdvisor for its priority, computes the three features as
// LLVM's ML advisor does (MLRegAllocPriorityAdvisor.cpp), and returns the
// steer's priority. Answering with the default's priority gives LLVM's
// default code byte for byte (tested).
#include <cmath>
#include <mutex>

#include <llvm/CodeGen/LiveInterval.h>
#include <llvm/CodeGen/MachineFunction.h>
#include <llvm/CodeGen/SlotIndexes.h>
#include <llvm/InitializePasses.h>

// Private to LLVM's lib/CodeGen; fetched by cmake/LLVMCodeGenHeaders.cmake.
#include "RegAllocGreedy.h"
#include "RegAllocPriorityAdvisor.h"

#include "pass_constructor.h"
#include "priority_state.h"

namespace mlgo::regalloc {

namespace {

class SteeredPriorityAdvisor final : public llvm::RegAllocPriorityAdvisor {
 public:
  SteeredPriorityAdvisor(const llvm::MachineFunction &function, const llvm::RAGreedy &allocator,
                         llvm::SlotIndexes *indexes, PriorityHook::State &state)
      : RegAllocPriorityAdvisor(function, allocator, indexes),
        default_(function, allocator, indexes),
        state_(state),
        function_(function.getName().str()) {}

  unsigned getPriority(const llvm::LiveInterval &range) const override {
    // Asked exactly once per decision, as LLVM would: the default keeps a
    // process-wide counter for ranges in the memory stage.
    const unsigned byDefault = defaultAdvisor().getPriority(range);
    if (!state_.steer) return byDefault;
    const PriorityObservation observation{static_cast<int64_t>(range.getSize()),
                                          static_cast<int64_t>(RA.getExtraInfo().getStage(range)),
                                          range.weight(), byDefault, function_};
    double chosen;
    try {
      chosen = state_.steer->decide(observation);
    } catch (const std::exception &error) {
      state_.reportProblem(error.what());
      return byDefault;
    }
    ++state_.decisions;
    if (!(chosen >= 0 && chosen < 4294967296.0)) {  // also false for NaN
      state_.reportProblem("the policy answered priority " + std::to_string(chosen) +
                           ", outside LLVM's unsigned 32-bit priorities; the default's was taken");
      return byDefault;
    }
    const auto priority = static_cast<unsigned>(chosen);
    if (priority != byDefault) ++state_.changed;
    return priority;
  }

 private:
  /// DefaultPriorityAdvisor overrides privately; its base's interface is public.
  const RegAllocPriorityAdvisor &defaultAdvisor() const { return default_; }

  llvm::DefaultPriorityAdvisor default_;
  PriorityHook::State &state_;
  std::string function_;
};

class SteeredPriorityAnalysis final : public llvm::RegAllocPriorityAdvisorAnalysis {
 public:
  explicit SteeredPriorityAnalysis(PriorityHook::State &state)
      : RegAllocPriorityAdvisorAnalysis(AdvisorMode::Release), state_(state) {}

  std::unique_ptr<llvm::RegAllocPriorityAdvisor> getAdvisor(const llvm::MachineFunction &function,
                                                            const llvm::RAGreedy &allocator) override {
    return std::make_unique<SteeredPriorityAdvisor>(
        function, allocator, &getAnalysis<llvm::SlotIndexesWrapperPass>().getSI(), state_);
  }

 private:
  void getAnalysisUsage(llvm::AnalysisUsage &usage) const override {
    // What LLVM's default analysis needs.
    usage.addRequired<llvm::SlotIndexesWrapperPass>();
    RegAllocPriorityAdvisorAnalysis::getAnalysisUsage(usage);
  }

  PriorityHook::State &state_;
};

llvm::PassInfo::NormalCtor_t stockPriorityAnalysis = nullptr;

llvm::Pass *createPriorityAnalysis() {
  if (PriorityHook::State *state = activePriorityState()) return new SteeredPriorityAnalysis(*state);
  return stockPriorityAnalysis();
}

}  // namespace

void installPrioritySeam() {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::initializeRegAllocPriorityAdvisorAnalysisPass(*llvm::PassRegistry::getPassRegistry());
    stockPriorityAnalysis = replacePassConstructor(&llvm::RegAllocPriorityAdvisorAnalysis::ID, &createPriorityAnalysis);
  });
}

}  // namespace mlgo::regalloc
