#pragma once
// manifest.json: what a run read, how it was asked, and what it wrote, so
// that two runs can be compared (run_comparison.h), e.g. a training rerun by
// CI on a fresh machine against the one it should reproduce.
//
// Written by the command-line layer into every output directory that trains,
// traces, tunes or evaluates (beside an output file, as FILE.manifest.json),
// after the run wrote its results. Format (docs/formats.md):
//   {"format": "mlgo-run-manifest", "version": 1, "command": "train-bc",
//    "mlgo_version": ..., "llvm_version": ...,
//    "flags": {"--seed": ["0"], "--set": ["iterations=300"], ...}, "output_flag": "--output",
//    "inputs": {"--trace": {"path": ..., "files": {"shard-0.tfrecord": "sha256:..."}}, ...},
//    "outputs": {"policy/policy.json": "sha256:...", ...},
//    "machine": {...}}           (informational: never compared)
#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace mlgo {

/// A command's flags as given (or their defaults), by long name.
using RunFlags = std::map<std::string, std::vector<std::string>>;

struct RunDescription {
  std::string command;  ///< the subcommand
  RunFlags flags;
  /// The flag naming the output (its value is where the run wrote); not an input.
  std::string outputFlag;
  /// Inputs the command layer describes itself ({"path", "files"}, by flag),
  /// where the command reads less of them than every byte below the path: a
  /// policy given as a training's output directory is read from its policy/
  /// only, and not for the record of where it was trained
  /// (policy_directory::describeAsInput). A flag not here is read whole.
  std::map<std::string, nlohmann::json> inputsDescribed;
};

/// Flags that never change a run's result (documented so: threads, ranks'
/// timeouts, --force, --resume, the compile memo): recorded, not compared,
/// and their paths are not read as inputs.
bool flagLeavesResultAlone(const std::string &flag);

/// "sha256:<hex>" of a regular file's bytes. Throws InputError naming the
/// file when it is not a regular file or cannot be read.
std::string contentHash(const std::filesystem::path &file);

/// "sha256:<hex>" of bytes in memory.
std::string textHash(std::string_view text);

/// Where the manifest of an output (a directory or a file) lives.
std::filesystem::path manifestPath(const std::filesystem::path &output);

/// The manifest of a finished run: every flag value that names an existing
/// file or directory is an input, hashed (a directory file by file, below it;
/// links to directories are not followed; TensorBoard event files left out),
/// unless `run.inputsDescribed` describes it;
/// everything the output holds but its lock and the manifest itself is an
/// output, hashed.
nlohmann::json describeRun(const RunDescription &run);

/// describeRun, written atomically into the output.
void writeRunManifest(const RunDescription &run);

/// The files of an output directory as describeRun hashes them (by path
/// relative to it, its lock and manifests left out): what compare-runs hashes
/// again to see whether an output changed after its manifest was written.
std::map<std::string, std::filesystem::path> outputFilesBelow(const std::filesystem::path &output);

/// Whether a file is a TensorBoard event file ("events.out.tfevents.<time>.<host>.<pid>..."):
/// a log of a run, never read by another.
bool isTensorBoardEvents(const std::string &name);

}  // namespace mlgo
