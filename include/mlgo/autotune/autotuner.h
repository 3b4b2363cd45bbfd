#pragma once
// `mlgo autotune`: per-module pass-list search for code size over a corpus.
// Every module is searched on the driver's pool (one module per thread, its
// compilations in sequence), then the most frequent winning lists are
// broadcast to every module, winners go through the correctness gate (a
// module whose best list is rejected falls back to its runners-up, each
// first run on the gate programs that have failed so far), and
// every module keeps -Oz when nothing beats it (the -Oz backup).
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "mlgo/autotune/correctness_gate.h"
#include "mlgo/autotune/pass_list_search.h"
#include "mlgo/autotune/search_space.h"
#include "mlgo/distributed/cluster.h"

namespace mlgo::autotune {

struct AutotuneOptions {
  size_t budget = 500;  ///< compilations per module, all phases included
  SizeMetric metric = SizeMetric::TextPlusData;
  SearchOptions search;
  /// How many of the most frequent winning lists every module tries.
  size_t broadcastLists = 10;
  /// How many runners-up a module whose best list the gate rejects puts
  /// through the whole gate before it falls back to -Oz. Runners-up that
  /// break a program that failed before (the prescreen) do not count.
  size_t gateFallbacks = 10;
  /// How many of a module's compiled lists smaller than -Oz (smallest first)
  /// its fallbacks are looked for in.
  size_t runnerUpPool = 50;
  /// Single-program gate runs spent isolating the culprit of one rejected list.
  size_t culpritChecks = 64;
  /// How many further lists smaller than -Oz (runners-up, smallest first)
  /// each module keeps besides its best, each accepted by the gate for the
  /// module: what a pass-list pool harvests (harvest.h).
  size_t alternativesKept = 0;
  /// Called after each module's search on this rank (done, modules of this
  /// rank), serialized.
  std::function<void(size_t done, size_t total)> progress;
  /// Where candidates compile; empty: in-process on the driver's threads.
  CandidateCompile compile;
};

/// One compiled list of a module and what it gave.
struct TunedList {
  std::vector<int> list;
  SectionSizes sizes;
  uint64_t irInstructions = 0;
  /// "passed", "passed for C" (only C++ programs fail, to link), or
  /// "unchecked" (no gate ran).
  std::string gate;
};

struct ModuleTuning {
  std::string name;
  bool ok = false;          ///< false: the -Oz compile itself failed
  std::string failure;
  SectionSizes ozSizes;     ///< the recorded -Oz compile
  SectionSizes bestSizes;   ///< under the chosen list (= ozSizes for -Oz)
  uint64_t ozIrInstructions = 0, bestIrInstructions = 0;  ///< after the optimization pipeline
  std::vector<int> best;    ///< empty: keep -Oz
  size_t compilations = 0;  ///< real compilations used (cache hits are free)
  size_t failedCandidates = 0;
  bool fromBroadcast = false;
  std::optional<bool> gatePassed;  ///< unset: no list to gate (-Oz kept)
  std::string gateFailure;         ///< why the best list was rejected
  bool gateFallback = false;       ///< the best was rejected; a runner-up passed
  /// AutotuneOptions::alternativesKept lists besides the best, smallest first.
  std::vector<TunedList> alternatives;
};

/// A smallest part of a rejected list that still breaks a gate program.
struct Culprit {
  std::vector<int> passes;
  std::string program;
  std::vector<int> rejectedList;  ///< the list it was isolated from
};

struct AutotuneReport {
  std::vector<ModuleTuning> modules;
  size_t improved = 0;
  /// Geometric mean over modules tuned of best/-Oz under the metric, minus 1.
  double geomeanChange = 0;
  /// The same of the IR instruction count after optimization (the measure
  /// Coreset-NVP and GRACE report).
  double geomeanIrChange = 0;
  size_t compilations = 0;
  size_t failedCandidates = 0;
  size_t listsGated = 0, listsRejected = 0;
  /// Rejected lists whose only failures are C++ programs that no longer link:
  /// rejected for C++ modules, kept by C modules (GateVerdict::cxxLinkOnly).
  size_t listsFailingOnlyCxxLinks = 0;
  size_t cModulesKeepingCxxLinkFailures = 0;
  std::vector<Culprit> culprits;     ///< one per rejection with a failing program, in order
  size_t culpritChecks = 0;          ///< single-program gate runs spent isolating them
  size_t fallbacksScreenedOut = 0;   ///< runners-up that broke a program in the prescreen
  size_t prescreenRuns = 0;          ///< single-program gate runs spent prescreening
  double seconds = 0;
};

/// With ranks, each searches its share of the modules (round-robin) and rank
/// 0 gates and returns the report, the same as a single-process run's; the
/// other ranks return an empty report.
AutotuneReport autotuneCorpus(const Corpus &corpus, const CompilerDriver &driver, const SearchSpace &space,
                              const AutotuneOptions &options, PassListGate *gate, Cluster &cluster);
/// The same, in a cluster of one.
AutotuneReport autotuneCorpus(const Corpus &corpus, const CompilerDriver &driver, const SearchSpace &space,
                              const AutotuneOptions &options, PassListGate *gate);

/// best.json: per module the list, sizes under every metric, -Oz's, the
/// compilations used and the gate's verdict; a summary (geometric-mean change,
/// share improved, list-length distribution).
nlohmann::json autotuneReportToJson(const AutotuneReport &report, const SearchSpace &space,
                                    const AutotuneOptions &options);

/// Module name -> opt pipeline, read from a best.json (only modules whose list
/// is not -Oz) or from `predict-passes --json` (each module's first-ranked
/// list). Throws InputError naming the file and entry.
std::map<std::string, std::string> readPassLists(const std::filesystem::path &bestJson, const SearchSpace &space);

}  // namespace mlgo::autotune
