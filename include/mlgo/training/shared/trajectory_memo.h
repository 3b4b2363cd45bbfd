#pragma once
// The compile memo of reinforcement-learning collection. A compile is
// deterministic: the features of a module's k-th decision depend only on the
// module and the k-1 actions before it. So every compiled trajectory is a
// path in a tree per module (a node: the features of the next decision, or
// the compile's result when no decision follows), and a new sample can be
// replayed along the tree without compiling: the policy samples each action
// from the stored features; while its actions stay on known paths and reach
// a complete compile, the trajectory and the result are known, the same as
// compiling would give. Only a sample that leaves the tree is compiled (and
// then extends it). Once the policy is sharp, most samples repeat.
// Problem-agnostic: it sees features and actions only.
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

#include "mlgo/corpus/corpus.h"
#include "mlgo/driver/compile_result.h"
#include "mlgo/policy/trajectory.h"

namespace mlgo {

class TrajectoryMemo {
 public:
  /// The trees stop growing at `maxBytes` (new paths are then compiled
  /// each time, never stored).
  explicit TrajectoryMemo(size_t maxBytes) : maxBytes_(maxBytes) {}

  /// The key of a module's tree (CompilerDriver::requestMemoKey of its
  /// default compile: bitcode hash, command line, versions), computed once per
  /// run: collection samples the same modules every iteration (train-es many
  /// times an iteration), and rehashing their bitcode each time repeats work.
  std::string moduleKey(const CorpusModule &module);

  /// Samples the module's decisions from its tree with `sampler` (which
  /// records them into its trajectory). The compile's result when every
  /// action stays on a known path to a complete compile; otherwise nullopt,
  /// and the caller starts the sampler and the trajectory afresh.
  std::optional<CompileResult> replay(const std::string &moduleKey, ActionSampler &sampler) const;
  /// Adds a compiled trajectory and its result. Returns false when the
  /// trajectory disagrees with the tree (features differ where they must be
  /// equal: the compile was not deterministic); the tree keeps what it had.
  /// Trees hold yes/no decisions only: other trajectories are not stored.
  bool record(const std::string &moduleKey, const Trajectory &trajectory, const CompileResult &result);

  size_t bytes() const;

 private:
  struct Node {
    std::vector<int64_t> features;  ///< of the next decision; empty when unknown or complete
    std::unique_ptr<Node> next[2];
    std::unique_ptr<CompileResult> result;  ///< set when the compile ends here (leaves only: nodes stay small)
  };
  size_t maxBytes_;
  mutable std::mutex mutex_;
  std::unordered_map<std::string, std::unique_ptr<Node>> roots_;
  std::unordered_map<std::string, std::string> moduleKeys_;  ///< by module name
  size_t bytes_ = 0;
};

}  // namespace mlgo
