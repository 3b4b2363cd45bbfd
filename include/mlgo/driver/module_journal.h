#pragma once
// The finished modules of an interrupted per-module run (explore,
// sweep-passes), kept one file per module so that a kill loses only the
// modules in flight and `--resume` takes up the rest. Each file starts with
// the module's compile key (its bitcode's hash, command line and versions),
// so a module that changed since is done again; the run's settings are kept
// beside them, and resuming under other settings is refused.
#include <filesystem>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "mlgo/corpus/corpus.h"

namespace mlgo {

class ModuleJournal {
 public:
  /// Opens `directory` (created). With `resume`, its settings must equal
  /// `settings` (UsageError naming `what`, e.g. "an exploration", otherwise);
  /// without, whatever it held is discarded.
  ModuleJournal(std::filesystem::path directory, const nlohmann::json &settings, bool resume,
                const std::string &what);
  /// The module's encoded result, when an earlier run finished it.
  std::optional<std::string> find(const CorpusModule &module) const;
  /// Keeps a finished module's encoded result (atomically).
  void keep(const CorpusModule &module, const std::string &encoded) const;
  /// Deletes the journal: the run finished and wrote its outputs.
  void remove() const;

 private:
  std::filesystem::path fileOf(const std::string &moduleName) const;
  std::filesystem::path directory_;
};

}  // namespace mlgo
