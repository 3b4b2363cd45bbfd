#pragma once
// What `mlgo trace-info` shows: counts, per-feature ranges, and one module's
// decisions.
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "mlgo/trace/trace_reader.h"

namespace mlgo::trace {

/// Over every element of a feature tensor, of every decision.
struct FeatureRange {
  double min = std::numeric_limits<double>::infinity();
  double max = -std::numeric_limits<double>::infinity();
  double sum = 0;
  uint64_t elements = 0;
};

struct TraceStats {
  uint64_t modules = 0;
  uint64_t decisions = 0;
  uint64_t yes = 0;         ///< yes/no decisions: actions 1 (inlining: inlined)
  uint64_t defaultYes = 0;  ///< yes/no decisions: decisions whose default was 1
  uint64_t differing = 0;       ///< decisions whose action is not the default's
  FeatureRange values;          ///< continuous decisions: the values taken
  std::vector<FeatureRange> features;
  std::string error;  ///< set when reading stopped at a damaged record
};

/// Reads the whole trace. A damaged record ends the scan: the stats cover the
/// modules before it and `error` says where.
TraceStats computeTraceStats(const TraceReader &reader);

nlohmann::json traceStatsToJson(const TraceReader &reader, const TraceStats &stats);
std::string traceStatsToText(const TraceReader &reader, const TraceStats &stats);
/// One module's decisions: {"name", "native_size", "decisions": [{feature: value, ..., "default", "action"}]}.
nlohmann::json moduleToJson(const TraceReader &reader, const ModuleTrace &module);

}  // namespace mlgo::trace
