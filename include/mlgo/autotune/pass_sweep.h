#pragma once
// `mlgo sweep-passes`: every module of a corpus compiled under every list of
// a pool of pass lists and under its recorded -Oz, with the module's
// features (mlgo/autotune/module_features.h): the table a coreset of lists is
// selected from and a pass-list predictor trained on. Every list of the pool
// goes through the correctness gate once; its verdict is kept with the list,
// and a list enters a coreset only for the modules its verdict accepts.
//
// Compiles run on the driver's threads (or in worker processes), a module per
// thread; with ranks each sweeps its share. A finished module is kept in a
// journal at once, so `--resume` after a kill does only the rest; the table
// is the same whatever --threads, ranks or interruptions.
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "mlgo/autotune/correctness_gate.h"
#include "mlgo/autotune/pass_list_search.h"
#include "mlgo/autotune/search_space.h"
#include "mlgo/distributed/cluster.h"

namespace mlgo::autotune {

/// One list of the pool: its search-space elements and the opt pipeline.
struct PoolList {
  std::vector<std::string> passes;
  std::string pipeline;
  std::optional<GateVerdict> gate;  ///< unset: not gated (--no-gate)
};

/// A list's outcome on one module.
struct ListOutcome {
  SectionSizes sizes;
  uint64_t irInstructions = 0;
};

struct SweptModule {
  std::string name;
  bool cxx = false;
  std::vector<double> features;
  ListOutcome oz;
  /// One per pool list; unset where that compile failed.
  std::vector<std::optional<ListOutcome>> lists;
};

struct SweepTable {
  static constexpr const char *kFormat = "mlgo-pass-sweep";
  static constexpr int kVersion = 1;
  static constexpr const char *kFile = "sweep.json";

  std::vector<PoolList> lists;
  std::vector<std::string> featureNames;
  std::vector<SweptModule> modules;  ///< those whose -Oz compile succeeded
  std::vector<std::pair<std::string, std::string>> failedModules;  ///< name, why
  std::string file;  ///< the sweep.json it was read from ("" for one made in memory), for messages

  /// Whether list `l` may be used on module `m`: it compiled there and its
  /// gate verdict accepts it for the module's language (an ungated list is
  /// usable only when `allowUngated`).
  bool usable(size_t m, size_t l, bool allowUngated = false) const;

  nlohmann::json toJson() const;
  /// Reads DIR/sweep.json or a file. Throws InputError naming the file and
  /// the entry that is wrong.
  static SweepTable read(const std::filesystem::path &path);
};

/// The lists of a pool file, duplicates dropped, in order of first appearance.
/// Either a harvested pool's directory (pass_pool.h: its gated lists, most
/// often best first), autotune's best.json (each module's list), a coreset
/// file, or text:
/// one list per line as search-space elements separated by spaces (the
/// output of `autotune --list-passes` names them), `#` comments. Throws
/// InputError naming the file and line or entry of an unknown element.
std::vector<PoolList> readPassListPool(const std::filesystem::path &file, const SearchSpace &space);
/// The lists of several pool files, in order, each list once (the first
/// file's order first). Each file must hold at least one list.
std::vector<PoolList> readPassListPools(const std::vector<std::filesystem::path> &files,
                                        const SearchSpace &space);

struct SweepOptions {
  std::vector<PoolList> lists;
  CandidateCompile compile;  ///< empty: in-process on the driver's threads
  PassListGate *gate = nullptr;
  std::filesystem::path output;
  bool resume = false;
  std::function<void(size_t done, size_t total)> progress;
};

struct SweepSummary {
  size_t modules = 0, swept = 0, resumed = 0, compiles = 0, failedCompiles = 0;
  size_t listsRejected = 0, listsCxxLinkOnly = 0;
  double seconds = 0;
};

/// Sweeps and writes OUTPUT/sweep.json (rank 0; the other ranks return an
/// empty summary).
/// Where the correctness gate compiles and runs its programs during a sweep,
/// inside the sweep's output.
inline constexpr const char *kGateWorkDirectory = "gate-work";

/// What sweep-passes writes into its output (glob patterns of top-level
/// names): sweep.json and, while it runs, its journal and the gate's work.
std::vector<std::string> sweepDirectoryEntries();

SweepSummary sweepPassLists(const Corpus &corpus, const CompilerDriver &driver, SweepOptions options,
                            Cluster &cluster);

}  // namespace mlgo::autotune
