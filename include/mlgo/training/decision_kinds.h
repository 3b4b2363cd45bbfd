#pragma once
// One bundle per kind of decision (yes/no, position, continuous): what
// differs between them is declared once per kind, in decision_kinds.cpp
// (export, train-es: libmlgo_core) and learning_kinds.cpp (train-bc and
// train-ppo: libmlgo_training, which links LibTorch); the stages ask the
// kind's bundle instead of switching on the kind. docs/architecture.md shows
// what adding a kind takes.
#include <cstdint>
#include <filesystem>
#include <memory>
#include <stdexcept>
#include <string>

#include "mlgo/export/generated_cpp.h"
#include "mlgo/problems/problem.h"
#include "mlgo/trace/decision_spec.h"

namespace mlgo {

class CompilerDriver;
class ESObjective;
class TrajectoryMemo;
struct Corpus;

/// What a kind of decision brings to the stages built into libmlgo_core.
struct DecisionKindBundle {
  trace::DecisionKind kind;
  /// Whether --format torchscript exports its policies (LibTorch runs the
  /// inliner's two logits: yes/no decisions only).
  bool torchScript;
  /// llvm-aot: the policy directory's sources for the problem's release-mode
  /// model, which `model` gives once the policy has been read.
  GeneratedSources (*exportModel)(const Problem &problem, const std::filesystem::path &policy,
                                  ReleaseModeModel (*model)(const Problem &), const std::string &origin);
  /// train-es: the objective over the weights of the policy in `warmstart`;
  /// `trajectories` (may be null) replays compiles where the kind can.
  std::unique_ptr<ESObjective> (*esObjective)(const Problem &problem, const std::filesystem::path &warmstart,
                                              const Corpus &corpus, const CompilerDriver &driver, uint64_t seed,
                                              TrajectoryMemo *trajectories);
};

/// The bundle of `kind`; std::logic_error for a kind with none (a kind added
/// to the enum but not to the registry).
const DecisionKindBundle &decisionKindBundle(trace::DecisionKind kind);

/// The entry of `kind` in a registry of bundles (each with a `kind`).
template <class Bundle, size_t N>
const Bundle &bundleOfKind(const Bundle (&bundles)[N], trace::DecisionKind kind) {
  for (const Bundle &bundle : bundles)
    if (bundle.kind == kind) return bundle;
  throw std::logic_error(std::string("no bundle for decisions of kind ") + trace::decisionKindName(kind));
}

}  // namespace mlgo
