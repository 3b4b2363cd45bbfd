// The eviction advisor LLVM's greedy allocator gets while an EvictionHook is
// active on the compiling thread (eviction_seam.cpp puts it there). At each
// decision it asks:
//   1. LLVM's DefaultEvictionAdvisor for its register (the default choice);
//   2. LLVM's release-mode ML advisor for the features, over an
//      InteractiveModelRunner channel whose answer (the default's position)
//      is queued before the question is asked;
//   3. the steer, whose position it maps back to a register itself.
// Answering with the default's position gives the default's register, so
// the code is LLVM's default code byte for byte (tested).
#include <algorithm>
#include <cstring>
#include <mutex>
#include <optional>

#include <llvm/CodeGen/LiveInterval.h>
#include <llvm/CodeGen/MachineBlockFrequencyInfo.h>
#include <llvm/CodeGen/MachineFunction.h>
#include <llvm/CodeGen/MachineLoopInfo.h>
#include <llvm/Support/CommandLine.h>

// Private to LLVM's lib/CodeGen; fetched by cmake/LLVMCodeGenHeaders.cmake.
#include "AllocationOrder.h"
#include "RegAllocEvictionAdvisor.h"

#include "eviction_channel.h"
#include "eviction_seam.h"
#include "mlgo/serve/channel_policy.h"
#include "mlgo/support/errors.h"

namespace mlgo::regalloc {

namespace {

using llvm::MCRegister;

/// LLVM reads its channel option once per runner, when the runner is made;
/// the option is process-wide, so making runners is serialized.
std::mutex channelOptionMutex;
constexpr const char *kChannelOption = "regalloc-evict-interactive-channel-base";

void setChannelOption(const std::string &value) {
  auto &options = llvm::cl::getRegisteredOptions();
  auto found = options.find(kChannelOption);
  if (found == options.end())
    throw std::runtime_error(std::string("this LLVM has no -") + kChannelOption + " option");
  static_cast<llvm::cl::opt<std::string> *>(found->second)->setValue(value);
}

class SteeredEvictionAdvisor final : public llvm::RegAllocEvictionAdvisor {
 public:
  SteeredEvictionAdvisor(const llvm::MachineFunction &function, const llvm::RAGreedy &allocator,
                         EvictionHook::State &state, std::unique_ptr<RegAllocEvictionAdvisor> featureSource,
                         EvictionChannel *channel)
      : RegAllocEvictionAdvisor(function, allocator),
        default_(function, allocator),
        state_(state),
        featureSource_(std::move(featureSource)),
        channel_(channel) {}

  MCRegister tryFindEvictionCandidate(const llvm::LiveInterval &virtualRegister, const llvm::AllocationOrder &order,
                                      uint8_t costPerUseLimit,
                                      const llvm::SmallVirtRegSet &fixedRegisters) const override {
    const MCRegister byDefault =
        defaultAdvisor().tryFindEvictionCandidate(virtualRegister, order, costPerUseLimit, fixedRegisters);
    if (!featureSource_) return byDefault;
    try {
      return steer(virtualRegister, order, costPerUseLimit, fixedRegisters, byDefault);
    } catch (const std::exception &error) {
      state_.reportProblem(error.what());
      return byDefault;
    }
  }

  bool canEvictHintInterference(const llvm::LiveInterval &virtualRegister, MCRegister physicalRegister,
                                const llvm::SmallVirtRegSet &fixedRegisters) const override {
    // What LLVM's ML advisor does too.
    return defaultAdvisor().canEvictHintInterference(virtualRegister, physicalRegister, fixedRegisters);
  }

 private:
  /// DefaultEvictionAdvisor overrides privately; its base's interface is public.
  const RegAllocEvictionAdvisor &defaultAdvisor() const { return default_; }

  /// The registers at the positions LLVM's ML advisor numbers: the
  /// allocation order up to its limit (hints first).
  std::vector<MCRegister> positions(const llvm::LiveInterval &virtualRegister, const llvm::AllocationOrder &order,
                                    uint8_t costPerUseLimit) const {
    std::vector<MCRegister> registers;
    const std::optional<unsigned> limit = getOrderLimit(virtualRegister, order, costPerUseLimit);
    if (!limit) return registers;
    for (auto it = order.begin(), end = order.getOrderLimitEnd(*limit); it != end; ++it) registers.push_back(*it);
    return registers;
  }

  MCRegister steer(const llvm::LiveInterval &virtualRegister, const llvm::AllocationOrder &order,
                   uint8_t costPerUseLimit, const llvm::SmallVirtRegSet &fixedRegisters, MCRegister byDefault) const {
    const std::vector<MCRegister> registers = positions(virtualRegister, order, costPerUseLimit);
    int64_t defaultPosition = kCandidatePosition;
    if (byDefault) {
      auto found = std::find(registers.begin(), registers.end(), byDefault);
      if (found == registers.end()) throw std::runtime_error("the default's register is at no position");
      defaultPosition = found - registers.begin();
    }
    channel_->answerInAdvance(defaultPosition);
    const MCRegister byLLVMsModel =
        featureSource_->tryFindEvictionCandidate(virtualRegister, order, costPerUseLimit, fixedRegisters);
    std::string features;
    if (!channel_->takeObservation(features)) return byDefault;  // no register could be freed
    if (byLLVMsModel != byDefault)
      throw std::runtime_error("LLVM's ML advisor, answered the default's position, chose another register");

    const llvm::StringRef function = MF.getName();
    EvictionObservation observation{features, std::vector<bool>(kPositions), defaultPosition,
                                    std::string_view(function.data(), function.size())};
    for (size_t position = 0; position < kPositions; ++position) {
      int64_t allowed;
      std::memcpy(&allowed, features.data() + position * sizeof allowed, sizeof allowed);  // mask comes first
      observation.mask[position] = allowed != 0;
    }
    const int64_t chosen = state_.steer->decide(observation);
    ++state_.decisions;
    const bool valid = chosen >= 0 && chosen < static_cast<int64_t>(kPositions) && observation.mask[chosen] &&
                       (chosen == kCandidatePosition || chosen < static_cast<int64_t>(registers.size()));
    if (!valid) {
      state_.reportProblem("the policy chose position " + std::to_string(chosen) +
                           ", which the mask does not allow; the default's was taken");
      return byDefault;
    }
    if (chosen != defaultPosition) ++state_.changed;
    return chosen == kCandidatePosition ? MCRegister() : registers[chosen];
  }

  llvm::DefaultEvictionAdvisor default_;
  EvictionHook::State &state_;
  std::unique_ptr<RegAllocEvictionAdvisor> featureSource_;
  EvictionChannel *channel_;
};

class SteeredEvictionAnalysis final : public llvm::RegAllocEvictionAdvisorAnalysis {
 public:
  explicit SteeredEvictionAnalysis(EvictionHook::State &state)
      : RegAllocEvictionAdvisorAnalysis(AdvisorMode::Release), state_(state) {}

  ~SteeredEvictionAnalysis() override {
    // The feature source shares this pass's resolver, which Pass deletes.
    if (featureAnalysis_) featureAnalysis_->setResolver(nullptr);
  }

  std::unique_ptr<llvm::RegAllocEvictionAdvisor> getAdvisor(const llvm::MachineFunction &function,
                                                            const llvm::RAGreedy &allocator) override {
    std::unique_ptr<llvm::RegAllocEvictionAdvisor> featureSource;
    if (state_.steer && !broken_) {
      try {
        featureSource = featureAdvisor(function, allocator);
      } catch (const std::exception &error) {
        broken_ = true;
        state_.reportProblem(error.what());
      }
    }
    return std::make_unique<SteeredEvictionAdvisor>(function, allocator, state_, std::move(featureSource),
                                                    channel_.get());
  }

 private:
  void getAnalysisUsage(llvm::AnalysisUsage &usage) const override {
    // What LLVM's release-mode analysis needs, so that it can use ours.
    usage.addRequired<llvm::MachineBlockFrequencyInfoWrapperPass>();
    usage.addRequired<llvm::MachineLoopInfoWrapperPass>();
    RegAllocEvictionAdvisorAnalysis::getAnalysisUsage(usage);
  }

  /// LLVM's ML advisor for `function`, talking to this compile's channel.
  std::unique_ptr<llvm::RegAllocEvictionAdvisor> featureAdvisor(const llvm::MachineFunction &function,
                                                                const llvm::RAGreedy &allocator) {
    if (featureAnalysis_) return featureAnalysis_->getAdvisor(function, allocator);
    channel_ = std::make_unique<EvictionChannel>();
    std::unique_ptr<llvm::RegAllocEvictionAdvisor> advisor;
    {
      // LLVM makes the release-mode analysis only while a channel is named,
      // and its runner opens the channel on the first getAdvisor.
      std::lock_guard<std::mutex> lock(channelOptionMutex);
      setChannelOption(channel_->base());
      featureAnalysis_.reset(llvm::createReleaseModeAdvisor());
      if (featureAnalysis_) {
        featureAnalysis_->setResolver(getResolver());
        advisor = featureAnalysis_->getAdvisor(function, allocator);
      }
      setChannelOption("");
    }
    if (!advisor) throw std::runtime_error("LLVM made no release-mode eviction advisor");
    channel_->connect();
    serve::requireFeatures(channel_->header(), decisionSpec(), "LLVM's eviction channel");
    return advisor;
  }

  EvictionHook::State &state_;
  std::unique_ptr<EvictionChannel> channel_;
  std::unique_ptr<llvm::RegAllocEvictionAdvisorAnalysis> featureAnalysis_;
  bool broken_ = false;
};

}  // namespace

llvm::Pass *createSteeredEvictionAnalysis(EvictionHook::State &state) { return new SteeredEvictionAnalysis(state); }

}  // namespace mlgo::regalloc
