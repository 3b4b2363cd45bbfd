#pragma once
// mlgo's trace format (docs/formats.md, "Trace format").
//
// A trace is a directory:
//   trace_description.json   written last: what was traced, counts, failures
//   baselines.json           per module, its native size (text) under the
//                            default heuristic: the baseline rewards use
//   <problem>-SSSSS-of-NNNNN.mlgotrace   shards of TFRecord-framed records
// Shard k holds the k-th, (k+N)-th, ... traced module in corpus order, so
// shards are written without a shared lock and the bytes never depend on the
// thread count. The first record of a shard is a JSON header (format, version,
// problem, the decision spec, shard index); every other record is one module.
// Version 2 added the decision spec (typed feature tensors, the number of
// actions); a version 1 trace is one of int64 scalars and 2 actions, and its
// records are the same bytes.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "mlgo/trace/decision_spec.h"

namespace mlgo::trace {

inline constexpr const char *kFormatName = "mlgo-trace";
inline constexpr int kFormatVersion = 2;
inline constexpr int kOldestFormatVersion = 1;
inline constexpr const char *kDescriptionFile = "trace_description.json";
inline constexpr const char *kBaselinesFile = "baselines.json";
inline constexpr const char *kShardSuffix = ".mlgotrace";

/// What a trace directory's writer puts in it (glob patterns of top-level
/// names): what `--force` may remove.
inline std::vector<std::string> traceDirectoryEntries() {
  return {"*.mlgotrace", "*.mlgotrace.partial", kDescriptionFile, kBaselinesFile};
}

/// The decisions of one module. Features are stored flat, decision-major,
/// featureCount int64 words a decision (DecisionSpec: the tensors' bytes).
/// A discrete decision's default and action are in defaultDecisions and
/// actions; a continuous one's in defaultValues and values (float, the type
/// LLVM's ML advisors use for a continuous decision).
struct ModuleTrace {
  uint64_t position = 0;  ///< index of the module in the corpus
  std::string name;
  uint64_t nativeSize = 0;  ///< text under the decisions recorded
  size_t featureCount = 0;
  /// The layout of a decision's features; null: featureCount int64 scalars.
  /// Must outlive the trace (problems' specs are static; readers own theirs).
  const DecisionSpec *spec = nullptr;
  std::vector<int64_t> features;         ///< decisions() * featureCount words
  std::vector<int8_t> defaultDecisions;  ///< the default's action, or -1 when not computed
  std::vector<uint8_t> actions;          ///< what was done
  std::vector<float> defaultValues;      ///< continuous: the default's value, NaN when not computed
  std::vector<float> values;             ///< continuous: what was done

  /// One of actions and values is empty.
  size_t decisions() const { return actions.size() + values.size(); }
  const int64_t *featuresOf(size_t decision) const { return features.data() + decision * featureCount; }
  void addDecision(const int64_t *words, int64_t defaultDecision, int64_t action);
  void addContinuousDecision(const int64_t *words, float defaultValue, float value);
};

std::string encodeModule(const ModuleTrace &module);
/// Throws ByteReader::DecodeError on malformed bytes. The first form reads
/// int64 scalars and 2 actions; the second a spec's decisions (`spec` must
/// outlive the result).
ModuleTrace decodeModule(std::string_view bytes, size_t featureCount);
ModuleTrace decodeModule(std::string_view bytes, const DecisionSpec &spec);
/// What ModuleTrace::spec holds for decisions of `spec`: null for yes/no
/// decisions (each word a feature, as in every trace of format version 1),
/// else `spec`.
const DecisionSpec *recordedSpec(const DecisionSpec &spec);

/// The JSON header of a trace's shards and the start of its description:
/// format, version, problem, feature_names and the decision spec.
nlohmann::json traceHeader(const std::string &problem, const DecisionSpec &spec);

std::string shardFileName(const std::string &problem, size_t shard, size_t shards);

}  // namespace mlgo::trace
