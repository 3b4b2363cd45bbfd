#pragma once
// Compares two runs by their manifests (run_manifest.h) and their outputs:
// are they the same run (command, versions, flags, inputs) with the same
// result, and if not, what is the first difference a person can act on.
//
// Flags and inputs are compared as their manifests recorded them. Outputs are
// hashed as they are now, each run's against its own manifest (a policy
// edited or removed after the run is named) and the two runs' against each
// other; only files inside a run's output are read, whatever its manifest
// names. Where two outputs differ, JSON and JSON-lines outputs are compared
// value by value (at any depth, without recursion), leaving
// out what measures time (every key that contains "second") and the compile
// memo's statistics ("memo"), so that a rerun is the same result whatever the
// machine's speed. TensorBoard event files carry wall-clock times and repeat
// metrics.jsonl: they are not compared.
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace mlgo {

struct RunDifference {
  /// "command", "version", "flag", "input" or "output".
  std::string kind;
  /// One line naming what differs: the flag, the config key, the module, or
  /// the first iteration whose output differs.
  std::string what;
};

struct RunComparison {
  std::vector<RunDifference> differences;  ///< most telling first
  bool sameRun() const;                    ///< no command, version, flag or input differs
  bool sameResult() const { return differences.empty(); }
};

/// Compares the runs whose outputs are `a` and `b` (directories, or output
/// files with FILE.manifest.json beside them). Throws InputError naming the
/// run that cannot be read, or the manifest that is missing or malformed and
/// its entry (the wrong JSON type, an output named outside the run), or an
/// output file that links out of its run.
RunComparison compareRuns(const std::filesystem::path &a, const std::filesystem::path &b);

/// Paths that stand for each other in two runs (the first run's input or
/// output path, the second run's): an output that records where its inputs
/// were is the same result wherever they were.
using PathCorrespondence = std::vector<std::pair<std::string, std::string>>;

/// The first place two JSON values differ, as a path ("/training/seed"), or
/// "" when they are equal (time and memo keys are left out; strings that
/// differ only in corresponding path prefixes are equal).
std::string firstJsonDifference(const nlohmann::json &a, const nlohmann::json &b,
                                const PathCorrespondence &paths = {});

}  // namespace mlgo
