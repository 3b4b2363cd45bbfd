#pragma once
// mlgo's trace format (documented in README.md, "Trace format").
//
// A trace is a directory:
//   trace_description.json   written last: what was traced, counts, failures
//   baselines.json           per module, its native size (text) under the
//                            default heuristic: the baseline rewards use
//   <problem>-SSSSS-of-NNNNN.mlgotrace   shards of TFRecord-framed records
// Shard k holds the k-th, (k+N)-th, ... traced module in corpus order, so
// shards are written without a shared lock and the bytes never depend on the
// thread count. The first record of a shard is a JSON header (format, version,
// problem, feature names, shard index); every other record is one module.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace mlgo::trace {

inline constexpr const char *kFormatName = "mlgo-trace";
inline constexpr int kFormatVersion = 1;
inline constexpr const char *kDescriptionFile = "trace_description.json";
inline constexpr const char *kBaselinesFile = "baselines.json";
inline constexpr const char *kShardSuffix = ".mlgotrace";

/// The decisions of one module, features stored flat (decision-major).
struct ModuleTrace {
  uint64_t position = 0;  ///< index of the module in the corpus
  std::string name;
  uint64_t nativeSize = 0;  ///< text under the decisions recorded
  size_t featureCount = 0;
  std::vector<int64_t> features;  ///< decisions() * featureCount values
  std::vector<int8_t> defaultDecisions;  ///< 0/1, or -1 when not computed
  std::vector<uint8_t> actions;          ///< 0/1: what was done

  size_t decisions() const { return actions.size(); }
  const int64_t *featuresOf(size_t decision) const { return features.data() + decision * featureCount; }
  void addDecision(const int64_t *values, int64_t defaultDecision, bool action);
};

std::string encodeModule(const ModuleTrace &module);
/// Throws ByteReader::DecodeError on malformed bytes.
ModuleTrace decodeModule(std::string_view bytes, size_t featureCount);

std::string shardFileName(const std::string &problem, size_t shard, size_t shards);

}  // namespace mlgo::trace
