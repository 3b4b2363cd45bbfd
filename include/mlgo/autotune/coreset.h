#pragma once
// A coreset of pass lists (Liang et al., "Learning Compiler Pass Orders using
// Coreset and Normalized Value Prediction", ICML 2023): a few lists chosen
// from a sweep so that, together, they cover as much of the training
// modules' gain over -Oz as possible. Selection is greedy on the gain each
// list adds over the lists already chosen, which is within 1 - 1/e of the
// best set of that size (the coverage is submodular). The file is versioned,
// human-readable JSON shipped under configs/autotune/.
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "mlgo/autotune/pass_sweep.h"
#include "mlgo/autotune/search_space.h"
#include "mlgo/driver/compile_result.h"

namespace mlgo::autotune {

struct CoresetList {
  std::vector<std::string> passes;
  std::string pipeline;
  /// The gate rejected it for C++ modules (a C++ program no longer links).
  bool cOnly = false;
  /// Sum over the training modules of what it adds to the coverage (log of
  /// -Oz's size over the list's), when chosen.
  double addedGain = 0;
  /// Training modules for which it is the best list of the coreset.
  size_t modulesBest = 0;
  bool usableFor(bool cxxModule) const { return !cOnly || !cxxModule; }
};

struct Coreset {
  static constexpr const char *kFormat = "mlgo-coreset";
  static constexpr int kVersion = 1;

  SizeMetric metric = SizeMetric::TextPlusData;
  std::vector<CoresetList> lists;
  size_t trainingModules = 0;
  /// Geometric-mean size change vs -Oz on the training modules if each took
  /// its best list of the coreset (and -Oz when none beats it): the most a
  /// predictor over this coreset can reach there.
  double oracleGeomeanChange = 0;
  /// The same with every list of the sweep: what selection gave up.
  double poolGeomeanChange = 0;

  /// Read from a file: the pipelines of its lists that use an element the
  /// search space excludes (one excluded after the coreset was chosen, say
  /// for miscompiling), left out. The oracle figures above still count them.
  std::vector<std::string> excludedLists;
  /// Read from a file: each list's index among the file's lists (they differ
  /// once a list was left out).
  std::vector<size_t> fileIndices;

  nlohmann::json toJson() const;
  /// Writes the file atomically.
  void write(const std::filesystem::path &file) const;
  /// Throws InputError naming the file and what is wrong (another format or
  /// version, a malformed list).
  /// Every list's passes must be passes of `space` (SearchSpace::checkedPipeline),
  /// except that a list using an element the space excludes is left out
  /// (excludedLists): the other lists keep their order, and a file need not
  /// be rewritten when the space excludes a pass. Names the space does not
  /// know are refused.
  static Coreset fromJson(const nlohmann::json &document, const std::string &file, const SearchSpace &space);
  static Coreset read(const std::filesystem::path &file, const SearchSpace &space);

  /// The lists usable for a module of this language, in the coreset's order
  /// (the order they were selected in): the ranking without a predictor.
  std::vector<size_t> orderFor(bool cxxModule) const;
};

/// Greedy maximum coverage. `gains[m][l]` is what list l gains on module m
/// (negative or -infinity where it loses or may not be used); a module's
/// coverage is max(0, its best gain among the chosen lists). Returns up to
/// `size` list indices in the order chosen, stopping early when no list adds
/// anything; ties go to the lower index.
std::vector<size_t> selectCoreset(const std::vector<std::vector<double>> &gains, size_t size);

/// gains[m][l] = log(-Oz size / list size) under `metric` for usable lists
/// (SweepTable::usable), -infinity elsewhere.
std::vector<std::vector<double>> gainMatrix(const SweepTable &table, SizeMetric metric, bool allowUngated);

/// After selectCoreset's `order`: the other lists that gain on some module
/// (gains as gainMatrix), by their gain summed over the modules (each
/// module's gain counted from 0, -Oz; ties go to the lower index), until
/// `size` lists in all. Candidates for a wider sweep: lists the greedy choice
/// left out because, on these modules, others covered what they gain.
std::vector<size_t> fillByTotalGain(const std::vector<std::vector<double>> &gains, std::vector<size_t> order,
                                    size_t size);

/// Selects a coreset of at most `size` lists from a sweep. With `fill`, the
/// greedy choice is followed by fillByTotalGain (the added lists add nothing
/// to the coverage, so the oracle figures are the greedy choice's).
Coreset buildCoreset(const SweepTable &table, SizeMetric metric, size_t size, bool allowUngated, bool fill = false);

/// columns[k]: the sweep's list that is coreset list k, found by pipeline.
/// Throws InputError naming the list when the sweep did not compile one of
/// them.
std::vector<size_t> coresetColumns(const SweepTable &table, const Coreset &coreset);

/// gains[m][k]: what coreset list k gains on swept module m (as gainMatrix),
/// the lists found in the sweep by pipeline. Throws InputError naming the
/// list when the sweep did not compile one of them.
std::vector<std::vector<double>> coresetGains(const SweepTable &table, const Coreset &coreset, bool allowUngated);

/// The geometric-mean size change vs -Oz when a module compiles the first
/// `budget` lists of `ranking` and -Oz and keeps the smallest: one module's
/// log-gain contribution (>= 0) given its row of coresetGains.
double bestOfFirst(const std::vector<double> &gains, const std::vector<size_t> &ranking, size_t budget);

/// configs/autotune/coreset.json of mlgo's data directory.
std::filesystem::path defaultCoresetFile();

}  // namespace mlgo::autotune
