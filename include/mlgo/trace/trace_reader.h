#pragma once
// Reads a trace directory (see trace_format.h): the description, the
// baselines, and every module record in corpus order.
#include <filesystem>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "mlgo/trace/trace_format.h"

namespace mlgo::trace {

class TraceReader {
 public:
  /// Throws InputError for a missing or incomplete trace, a malformed
  /// description, or shards whose headers disagree with it.
  explicit TraceReader(const std::filesystem::path &directory);

  const nlohmann::json &description() const { return description_; }
  const std::string &problem() const { return problem_; }
  const std::vector<std::string> &featureNames() const { return featureNames_; }
  /// The decisions' layout (version 1 traces: int64 scalars, 2 actions).
  const DecisionSpec &decisionSpec() const { return spec_; }
  /// Module name -> native size under the default heuristic.
  std::map<std::string, uint64_t> baselines() const;

  /// Calls `visit` for every module in corpus order. A damaged or truncated
  /// record ends its shard: every intact record of the other shards is still
  /// visited, then InputError names the shard file and the record's offset.
  void forEachModule(const std::function<void(const ModuleTrace &)> &visit) const;

 private:
  std::filesystem::path directory_;
  nlohmann::json description_;
  std::string problem_;
  std::vector<std::string> featureNames_;
  DecisionSpec spec_;
  std::vector<std::filesystem::path> shards_;
};

}  // namespace mlgo::trace
