#pragma once
// Register allocation's eviction decision, as LLVM 19 defines it for MLGO
// (lib/CodeGen/MLRegAllocEvictAdvisor.cpp): when the greedy allocator finds no
// free register for a live range, the advisor picks which of up to 32
// interfering registers' live ranges to evict, or position 32 (the candidate
// itself: no eviction). LLVM's ML advisor describes each decision by 21
// feature tensors of 33 positions (plus `progress`) with a mask of the
// positions that may be chosen, and reads back `index_to_evict`.
//
// An EvictionHook puts a compile's eviction decisions in the hands of an
// EvictionSteer. At each decision it asks LLVM's default advisor for its
// choice and LLVM's own ML advisor for the features, on the compiling thread
// (src/problems/regalloc/eviction_seam.cpp tells how), and it sums LLVM's
// regalloc score (`calculateRegAllocScore`) over the compile's functions.
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "mlgo/driver/pipeline_hook.h"
#include "mlgo/trace/decision_spec.h"

namespace mlgo::regalloc {

inline constexpr size_t kPositions = 33;          ///< 32 interfering registers + the candidate
inline constexpr int64_t kCandidatePosition = 32;  ///< "evict nothing"
inline constexpr const char *kDecisionName = "index_to_evict";

/// LLVM 19's eviction decision: its features (RA_EVICT_FEATURES_LIST, in its
/// order, with its types and shapes) and kPositions actions.
const trace::DecisionSpec &decisionSpec();

/// One decision, as LLVM's ML advisor logged it.
struct EvictionObservation {
  /// Every feature tensor's raw bytes, in decisionSpec() order.
  std::string_view featureBytes;
  std::vector<bool> mask;     ///< kPositions entries: which positions may be chosen
  int64_t defaultPosition;    ///< what LLVM's default advisor chose
  std::string_view function;  ///< the name of the machine function being allocated
};

class EvictionSteer {
 public:
  virtual ~EvictionSteer() = default;
  /// The position to evict; it must be in the mask (a position outside it is
  /// not taken: the default's is, and the hook reports the error).
  virtual int64_t decide(const EvictionObservation &observation) = 0;
};

/// Hook for the compiles of one module at a time (its counters are per hook).
/// With a steer, every eviction decision goes to it; without one, LLVM's
/// default advisor decides and the hook only measures the score.
class EvictionHook final : public PipelineHook {
 public:
  explicit EvictionHook(std::shared_ptr<EvictionSteer> steer = nullptr);
  ~EvictionHook() override;
  void beginCompile() override;
  void endCompile() override;
  bool affectsCodeGeneration() const override { return true; }
  bool affectsOptimization() const override { return false; }
  uint64_t decisionsTaken() const override;

  /// LLVM's regalloc score summed over the functions of the last compile.
  double score() const;
  /// The same per function, by name.
  const std::map<std::string, double> &functionScores() const;
  /// Decisions where the steer chose another position than the default's.
  uint64_t changedDecisions() const;
  /// What went wrong on the channel or with the steer's answers; empty when
  /// nothing did. Each such decision was taken by the default advisor.
  std::vector<std::string> problems() const;

  struct State;

 private:
  std::shared_ptr<EvictionSteer> steer_;
  std::unique_ptr<State> state_;
};

/// Makes the eviction advisor of every later compile in this process come
/// from EvictionHook when one is active on the compiling thread (LLVM's own
/// otherwise). Called by EvictionHook; idempotent.
void installEvictionSeam();

}  // namespace mlgo::regalloc
