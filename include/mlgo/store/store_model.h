#pragma once
// What a project's store decides, apart from how it keeps its rows
// (build_store.h): a unit's trials and verdicts; which list each unit of a
// build ships, under one compile budget for the whole build; and how a
// build's exploration is shared among its units.
//
// The build's compile budget. Each unit starts at its cheapest list that is
// no larger than its recorded level and moves up, list by list, to smaller
// and dearer ones, the moves that save the most bytes per estimated
// nanosecond first (a greedy multiple-choice knapsack over each unit's
// lower convex hull of (cost, shipped bytes)), while the whole build's
// estimated compile cost stays within the bound times its plain cost. An
// expensive list can then win on a large unit, paid for by lists cheaper
// than -Oz on others; no unit ships larger than its recorded level.
//
// The build's exploration. `--explore N` gives a build N plain builds' worth
// of estimated compile cost (what N trials of every unit would cost), spent
// where the linked bytes are expected to shrink most (see
// explorationShares).
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "mlgo/driver/compile_result.h"

namespace mlgo::store {

/// One compile of a unit: `pipeline` "" is the unit's recorded level.
struct StoredTrial {
  std::string pipeline;
  bool compiled = false;  ///< false: the compile failed (not tried again)
  SectionSizes sizes;
  uint64_t irInstructions = 0;
  /// The compile's estimated nanoseconds: frontend, optimization and code
  /// generation (mlgo/driver/optimization_work.h): what a rebuild with this
  /// list pays, against the recorded level's.
  uint64_t work = 0;
  /// What the linker kept of the unit's sections compiled so, in the last
  /// build whose linker maps were read (text; data: every other loaded
  /// byte; bss); unset where unknown.
  std::optional<SectionSizes> kept;
};

/// What the linker kept of one unit compiled with `pipeline`.
struct KeptByLinker {
  std::string unit;
  std::string pipeline;
  SectionSizes sizes;
};

/// Where an object mlgo cc wrote comes from: the unit and the pipeline it
/// was compiled with ("" its recorded level), found by the object's hash in
/// a link's inputs.
struct ObjectOrigin {
  std::string unit;
  std::string pipeline;
  /// The name of the plain object the link compares it with (beside the
  /// store: BuildStore::recordedObjectPath): the unit's recorded level
  /// compiled in the object's own tree, whose paths it carries.
  std::string plain;
};

/// The correctness gate's verdict on a list (autotune::GateVerdict's fields).
struct StoredVerdict {
  bool passed = false;
  bool cxxLinkOnly = false;  ///< every failure is a C++ program that no longer links
  std::string failure;
  bool acceptsFor(bool cxxModule) const { return passed || (cxxLinkOnly && !cxxModule); }
};

struct StoredUnit {
  std::string key;
  std::string module;  ///< its name as extract-ir names it (the smallest name seen)
  bool cxx = false;
  std::map<std::string, StoredTrial> trials;  ///< by pipeline
  /// The chosen pipeline ("" the recorded level); unset until the recorded
  /// level compiled once.
  std::optional<std::string> choice;
  /// When a compile last used it (Unix milliseconds, each use after the
  /// store's latest; refreshed at most hourly on a store hit, so that a
  /// rebuild writes nothing); 0: before stores knew.
  int64_t used = 0;
};

/// What one link through the store shipped: its output (absolute), the
/// .text+.data of the file that shipped and of its plain link (the same
/// number where the link had nothing of the store's).
struct StoredLink {
  std::string output;
  uint64_t shipped = 0;
  uint64_t plain = 0;
  int64_t used = 0;  ///< when (as StoredUnit::used)
};

/// The default bound on a build's estimated compile cost against its plain
/// build's (--cost-bound): a rebuild from the store then costs about a plain
/// build, with mlgo cc's own start and bitcode hand-over on top. A bound of
/// 1.0 was tried per unit and dropped: the estimate is not that precise, and
/// on pcre2 it traded lists that compile faster than -Oz for -Oz itself (its
/// units' compile time rose 14% against the same store's choices at 1.05).
inline constexpr double kDefaultCostBound = 1.05;
/// The bounds --cost-bound takes: below 1, the plain build itself is over.
inline constexpr double kMinCostBound = 1.0, kMaxCostBound = 100.0;

/// What a trial puts into the linked files, as far as it is known: the
/// bytes the linker kept of it where a build's linker maps said; otherwise
/// its object's .text+.data less what the linker dropped of the recorded
/// level's object (nothing when that is not known either).
int64_t shippedBytes(const StoredUnit &unit, const StoredTrial &trial);

/// The units a build is made of, as far as the store knows it: for each
/// module name, the unit a compile used last (ties: the smaller key). An
/// edited file's earlier versions are left out.
std::vector<const StoredUnit *> currentUnits(const std::vector<StoredUnit> &units);

/// The lists the units of one build ship: `units` share one compile budget,
/// `costBound` times the sum of their recorded levels' estimated costs (see
/// above). A list counts only where the gate accepts it for the unit's
/// language (the recorded level needs no verdict); among lists as small, the
/// cheaper wins, then the recorded level, the shorter pipeline, the first in
/// text order. A unit whose recorded level never compiled has no choice (it
/// is left out of the result).
std::map<std::string, std::string> chooseForBuild(const std::vector<const StoredUnit *> &units,
                                                 const std::map<std::string, StoredVerdict> &verdicts,
                                                 double costBound);

/// Whether `trial` of `unit` could be chosen in a build of `units` at
/// `costBound`: what it costs over its unit's recorded level fits in what the
/// whole build may spend over its plain cost. A list that cannot is not
/// worth gating.
bool affordableInBuild(const StoredUnit &unit, const StoredTrial &trial, const std::vector<const StoredUnit *> &units,
                       double costBound);

/// One unit's choice with a budget of its own (costBound times its recorded
/// level's cost): a unit no current build is made of. Unset when the
/// recorded level never compiled.
std::optional<std::string> chooseTrial(const StoredUnit &unit, const std::map<std::string, StoredVerdict> &verdicts,
                                       double costBound = kDefaultCostBound);

/// The search's expected gain on a unit before it has tried anything, as a
/// fraction of its bytes: autotune's geomean at budget 500 on the demo's 40
/// modules (-5.23%, BENCHMARKS).
inline constexpr double kPriorSearchGain = 0.05;
/// One unit takes at most this many times N trials of a build: a -j build
/// should not wait long on one straggling compile.
inline constexpr size_t kMaxShareFactor = 10;

/// The build's exploration for `--explore perUnit` and a search `budget`.
/// It spends perUnit plain builds' worth of estimated compile cost (what
/// perUnit trials of every unit would cost), each next trial to the unit
/// whose expected linked gain from it is largest. A unit's expected gain
/// from its k-th trial is its shipped bytes at its recorded level, times its
/// expected search gain G, times log((2+k)/(1+k)) / log(1+budget) (search
/// finds most early, as log(1+k) grows); G is kPriorSearchGain, or more
/// where the unit's own trials found more (what they found, extrapolated
/// along the same curve). A trial costs its unit's recorded-level compile.
/// A unit gets nothing once it has tried `budget` lists (decided), and at
/// most kMaxShareFactor * perUnit.
///
/// The price is the gain of the first trial the budget cannot buy (0 when it
/// buys every unit's cap): each compile takes the trials of its unit whose
/// expected gain is above it. Every compile is its own process, so the
/// price is what they share: set once per build (at its links, from the
/// whole store), each unit's share then comes from the unit alone and a
/// -j build's shares do not drift as its units explore. Deterministic: ties
/// go to the first unit.
double explorationPrice(const std::vector<const StoredUnit *> &units, size_t perUnit, size_t budget);

/// The trials of `unit` whose expected gain is above `price`.
size_t explorationShare(const StoredUnit &unit, double price, size_t perUnit, size_t budget);

/// Each unit's share at the price of `units` (keyed by unit).
std::map<std::string, size_t> explorationShares(const std::vector<const StoredUnit *> &units, size_t perUnit,
                                                size_t budget);

/// A store's cleanup to a size bound: the units that go, in the order they
/// go, until what is left fits. First the units no build is made of any
/// more (an edited file's earlier versions), then the build's own units,
/// each least recently used first (ties: the smaller key). `footprint` is
/// each unit's bytes in the store (its rows and recorded object); `bytes`
/// the store's whole size now. Units used at `keepUsedSince` or later stay
/// whatever the bound: a build still running may link their objects, and a
/// link compares only the objects the store knows.
std::vector<std::string> unitsToRemove(const std::vector<StoredUnit> &units,
                                       const std::map<std::string, uint64_t> &footprint, uint64_t bytes,
                                       uint64_t maxBytes, int64_t keepUsedSince);

}  // namespace mlgo::store
