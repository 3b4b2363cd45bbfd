#include "mlgo/trace/trace_stats.h"

#include <algorithm>
#include <cstdio>

#include "mlgo/support/errors.h"
#include "mlgo/support/table.h"

namespace mlgo::trace {

using nlohmann::json;

TraceStats computeTraceStats(const TraceReader &reader) {
  TraceStats stats;
  stats.features.resize(reader.featureNames().size());
  try {
    reader.forEachModule([&](const ModuleTrace &module) {
      ++stats.modules;
      stats.decisions += module.decisions();
      for (size_t d = 0; d < module.decisions(); ++d) {
        stats.inlined += module.actions[d];
        stats.defaultInlined += module.defaultDecisions[d] == 1;
        const int64_t *values = module.featuresOf(d);
        for (size_t f = 0; f < module.featureCount; ++f) {
          FeatureRange &range = stats.features[f];
          range.min = std::min(range.min, values[f]);
          range.max = std::max(range.max, values[f]);
          range.sum += static_cast<double>(values[f]);
        }
      }
    });
  } catch (const InputError &e) {
    stats.error = e.what();
  }
  return stats;
}

json traceStatsToJson(const TraceReader &reader, const TraceStats &stats) {
  json features = json::object();
  for (size_t f = 0; f < stats.features.size(); ++f) {
    const FeatureRange &range = stats.features[f];
    features[reader.featureNames()[f]] =
        stats.decisions ? json{{"min", range.min}, {"max", range.max}, {"mean", range.sum / stats.decisions}}
                        : json::object();
  }
  const json &description = reader.description();
  const uint64_t recordBytes = description.value("record_bytes", uint64_t(0));
  json out{{"problem", reader.problem()},
           {"modules", stats.modules},
           {"decisions", stats.decisions},
           {"inlined", stats.inlined},
           {"default_inlined", stats.defaultInlined},
           {"modules_failed", description.value("modules_failed", json::array())},
           {"trace_bytes", description.value("trace_bytes", uint64_t(0))},
           {"bytes_per_decision", stats.decisions ? double(recordBytes) / stats.decisions : 0.0},
           {"features", std::move(features)}};
  if (!stats.error.empty()) out["error"] = stats.error;
  return out;
}

std::string traceStatsToText(const TraceReader &reader, const TraceStats &stats) {
  const json summary = traceStatsToJson(reader, stats);
  char line[512];
  std::snprintf(line, sizeof line,
                "problem %s: %llu modules, %llu decisions (%llu inlined, default would inline %llu), %zu modules "
                "failed; %llu bytes, %.1f bytes per decision\n",
                reader.problem().c_str(), (unsigned long long)stats.modules, (unsigned long long)stats.decisions,
                (unsigned long long)stats.inlined, (unsigned long long)stats.defaultInlined,
                summary["modules_failed"].size(), (unsigned long long)summary["trace_bytes"].get<uint64_t>(),
                summary["bytes_per_decision"].get<double>());
  std::string out = line;
  TextTable table({"feature", "min", "max", "mean"});
  for (size_t f = 0; f < stats.features.size(); ++f) {
    if (!stats.decisions) break;
    const FeatureRange &range = stats.features[f];
    std::snprintf(line, sizeof line, "%.2f", range.sum / stats.decisions);
    table.addRow({reader.featureNames()[f], std::to_string(range.min), std::to_string(range.max), line});
  }
  out += table.render();
  for (const json &failure : summary["modules_failed"])
    out += "failed: " + failure.value("name", "") + ": " + failure.value("failure", "") + ": " +
           failure.value("message", "") + "\n";
  if (!stats.error.empty()) out += "error: " + stats.error + "\n";
  return out;
}

json moduleToJson(const TraceReader &reader, const ModuleTrace &module) {
  json decisions = json::array();
  for (size_t d = 0; d < module.decisions(); ++d) {
    json decision = json::object();
    const int64_t *values = module.featuresOf(d);
    for (size_t f = 0; f < module.featureCount; ++f) decision[reader.featureNames()[f]] = values[f];
    decision["default"] = module.defaultDecisions[d];
    decision["action"] = module.actions[d];
    decisions.push_back(std::move(decision));
  }
  return {{"name", module.name}, {"position", module.position}, {"native_size", module.nativeSize},
          {"decisions", std::move(decisions)}};
}

}  // namespace mlgo::trace
