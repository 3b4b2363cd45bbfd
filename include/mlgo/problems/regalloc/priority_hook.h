#pragma once
// Register allocation's priority decision, as LLVM 19 defines it for MLGO
// (lib/CodeGen/MLRegAllocPriorityAdvisor.cpp): each time the greedy allocator
// queues a live range, the priority advisor gives it a priority, and ranges
// are allocated highest first. LLVM's ML advisor describes a range by three
// scalars (RA_PRIORITY_FEATURES_LIST: `li_size`, `stage`, `weight`) and reads
// back `priority`, a float, which it truncates to LLVM's unsigned priority.
//
// A PriorityHook puts a compile's priorities in the hands of a PrioritySteer.
// At each decision it asks LLVM's default advisor for its priority, on the
// compiling thread (src/problems/regalloc/priority_seam.cpp tells how), and
// it measures LLVM's regalloc score as an EvictionHook without a steer does.
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "mlgo/driver/pipeline_hook.h"
#include "mlgo/trace/decision_spec.h"

namespace mlgo::regalloc {

class EvictionHook;

inline constexpr const char *kPriorityDecisionName = "priority";
/// The largest float below 2^32: the largest answer LLVM's ML advisor can
/// cast to its unsigned priority. A policy's answers are clamped to it.
inline constexpr double kLargestPriority = 4294967040.0;

/// LLVM 19's priority decision: its three features (in its order, with its
/// types) and one real-valued action.
const trace::DecisionSpec &priorityDecisionSpec();

/// One decision: the range's features as LLVM's ML advisor computes them,
/// and LLVM's default priority for it.
struct PriorityObservation {
  int64_t size;              ///< li_size: the live range's size in slot indexes
  int64_t stage;             ///< stage: the greedy allocator's stage of the range (LiveRangeStage)
  float weight;              ///< weight: the range's spill weight
  uint32_t defaultPriority;  ///< what LLVM's DefaultPriorityAdvisor answered
  std::string_view function; ///< the name of the machine function being allocated
};

class PrioritySteer {
 public:
  virtual ~PrioritySteer() = default;
  /// The range's priority. LLVM's priorities are unsigned 32-bit integers:
  /// the answer is truncated toward zero, as LLVM's ML advisor does with its
  /// model's float; an answer that is not a number or outside [0, 2^32) is
  /// not taken (the default's is, and the hook reports the error).
  virtual double decide(const PriorityObservation &observation) = 0;
};

/// Hook for the compiles of one module at a time (its counters are per hook).
/// With a steer, every priority comes from it; without one, LLVM's default
/// advisor decides and the hook only measures the score.
class PriorityHook final : public PipelineHook {
 public:
  explicit PriorityHook(std::shared_ptr<PrioritySteer> steer = nullptr);
  ~PriorityHook() override;
  void beginCompile() override;
  void endCompile() override;
  bool affectsCodeGeneration() const override { return true; }
  bool affectsOptimization() const override { return false; }
  uint64_t decisionsTaken() const override;

  /// LLVM's regalloc score summed over the functions of the last compile.
  double score() const;
  /// The same per function, by name.
  const std::map<std::string, double> &functionScores() const;
  /// Decisions where the steer's priority differed from the default's.
  uint64_t changedDecisions() const;
  /// What went wrong with the steer's answers; empty when nothing did. Each
  /// such decision took the default's priority.
  std::vector<std::string> problems() const;

  struct State;

 private:
  std::shared_ptr<PrioritySteer> steer_;
  std::unique_ptr<State> state_;
  std::unique_ptr<EvictionHook> scoring_;  ///< LLVM's eviction advisor, measuring the score
};

/// Makes the priority advisor of every later compile in this process come
/// from PriorityHook when one is active on the compiling thread (LLVM's own
/// otherwise). Called by PriorityHook; idempotent.
void installPrioritySeam();

}  // namespace mlgo::regalloc
