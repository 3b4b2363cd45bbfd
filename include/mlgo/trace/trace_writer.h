#pragma once
// Writes a trace as compiles finish: module records go to their shard in
// corpus order (a small reorder buffer per shard absorbs out-of-order
// completion), shards are written under temporary names and renamed, and the
// description comes last, so an interrupted run never looks complete.
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace mlgo::trace {

class TraceWriter {
 public:
  /// `header` is the JSON header record of every shard (its "shard" and
  /// "shards" keys are added here). Throws when the directory cannot be made.
  TraceWriter(const std::filesystem::path &directory, const std::string &problem, nlohmann::json header,
              size_t shards);
  ~TraceWriter();

  /// Slot k is the k-th module of the run; it goes to shard k % shards. Pass
  /// std::nullopt for a module that failed, so later ones are not held back.
  /// Thread-safe: shards lock separately.
  void submit(size_t slot, std::optional<std::string> encodedModule);

  /// Flushes every shard, renames them into place, then writes `baselines`
  /// and `description` (which gains "shard_files" and "trace_bytes").
  /// Returns the bytes of all shards.
  uint64_t finish(nlohmann::json description, const nlohmann::json &baselines);

  uint64_t recordBytes() const;  ///< bytes of module records so far

 private:
  struct Shard;
  std::filesystem::path directory_;
  std::vector<std::unique_ptr<Shard>> shards_;
};

}  // namespace mlgo::trace
