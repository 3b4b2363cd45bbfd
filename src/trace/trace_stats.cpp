#include "mlgo/trace/trace_stats.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "mlgo/support/errors.h"
#include "mlgo/support/table.h"

namespace mlgo::trace {

using nlohmann::json;

namespace {

/// Element `e` of a feature tensor whose bytes start at `bytes`, as a number.
double featureValue(const FeatureTensor &feature, const char *bytes, size_t e) {
  if (feature.type == FeatureTensor::Type::Float) {
    float value;
    std::memcpy(&value, bytes + e * sizeof value, sizeof value);
    return value;
  }
  int64_t value;
  std::memcpy(&value, bytes + e * sizeof value, sizeof value);
  return static_cast<double>(value);
}

/// A feature's value as JSON: an integer for int64 features.
json number(const FeatureTensor &feature, double value) {
  if (feature.type == FeatureTensor::Type::Int64) return static_cast<int64_t>(value);
  return value;
}

std::string numberText(const FeatureTensor &feature, double value) {
  if (feature.type == FeatureTensor::Type::Int64) return std::to_string(static_cast<int64_t>(value));
  char text[32];
  std::snprintf(text, sizeof text, "%g", value);
  return text;
}

void widen(FeatureRange &range, double value) {
  range.min = std::min(range.min, value);
  range.max = std::max(range.max, value);
  range.sum += value;
  ++range.elements;
}

/// Counts decision `d`'s action: yes/no decisions as yes and no, positions
/// by whether the default's was chosen, values by whether they equal the
/// default's and over their range.
void countAction(DecisionKind kind, const ModuleTrace &module, size_t d, TraceStats &stats) {
  switch (kind) {
    case DecisionKind::YesNo:
      stats.yes += module.actions[d];
      stats.defaultYes += module.defaultDecisions[d] == 1;
      [[fallthrough]];
    case DecisionKind::Position:
      stats.differing += module.defaultDecisions[d] >= 0 && module.actions[d] != module.defaultDecisions[d];
      return;
    case DecisionKind::Continuous:
      stats.differing += !std::isnan(module.defaultValues[d]) && module.values[d] != module.defaultValues[d];
      widen(stats.values, module.values[d]);
      return;
  }
}

json rangeJson(const FeatureTensor &feature, const FeatureRange &range) {
  if (!range.elements) return json::object();
  return {{"min", number(feature, range.min)},
          {"max", number(feature, range.max)},
          {"mean", range.sum / range.elements}};
}

}  // namespace

TraceStats computeTraceStats(const TraceReader &reader) {
  const DecisionSpec &spec = reader.decisionSpec();
  const DecisionKind kind = spec.kind();
  TraceStats stats;
  stats.features.resize(spec.features.size());
  try {
    reader.forEachModule([&](const ModuleTrace &module) {
      ++stats.modules;
      stats.decisions += module.decisions();
      for (size_t d = 0; d < module.decisions(); ++d) {
        countAction(kind, module, d, stats);
        const char *tensor = reinterpret_cast<const char *>(module.featuresOf(d));
        for (size_t f = 0; f < spec.features.size(); tensor += spec.features[f++].bytes()) {
          FeatureRange &range = stats.features[f];
          for (size_t e = 0; e < spec.features[f].elements(); ++e)
            widen(range, featureValue(spec.features[f], tensor, e));
        }
      }
    });
  } catch (const InputError &e) {
    stats.error = e.what();
  }
  return stats;
}

json traceStatsToJson(const TraceReader &reader, const TraceStats &stats) {
  const DecisionSpec &spec = reader.decisionSpec();
  json features = json::object();
  for (size_t f = 0; f < stats.features.size(); ++f)
    features[spec.features[f].name] = rangeJson(spec.features[f], stats.features[f]);
  const json &description = reader.description();
  const uint64_t recordBytes = description.value("record_bytes", uint64_t(0));
  json out{{"problem", reader.problem()},
           {"modules", stats.modules},
           {"decisions", stats.decisions},
           {"differ_from_default", stats.differing},
           {"modules_failed", description.value("modules_failed", json::array())},
           {"trace_bytes", description.value("trace_bytes", uint64_t(0))},
           {"bytes_per_decision", stats.decisions ? double(recordBytes) / stats.decisions : 0.0},
           {"features", std::move(features)}};
  switch (spec.kind()) {
    case DecisionKind::YesNo:
      out["yes"] = stats.yes;
      out["default_yes"] = stats.defaultYes;
      break;
    case DecisionKind::Position: break;
    case DecisionKind::Continuous:
      out["values"] = rangeJson({"value", FeatureTensor::Type::Float}, stats.values);
      break;
  }
  if (!stats.error.empty()) out["error"] = stats.error;
  return out;
}

std::string traceStatsToText(const TraceReader &reader, const TraceStats &stats) {
  const json summary = traceStatsToJson(reader, stats);
  const DecisionSpec &spec = reader.decisionSpec();
  char actions[160];
  switch (spec.kind()) {
    case DecisionKind::YesNo:
      std::snprintf(actions, sizeof actions, "%llu yes, the default %llu",
                    (unsigned long long)stats.yes, (unsigned long long)stats.defaultYes);
      break;
    case DecisionKind::Position:
      std::snprintf(actions, sizeof actions, "%llu differ from the default", (unsigned long long)stats.differing);
      break;
    case DecisionKind::Continuous:
      std::snprintf(actions, sizeof actions, "%llu differ from the default; values %g to %g",
                    (unsigned long long)stats.differing, stats.values.elements ? stats.values.min : 0.0,
                    stats.values.elements ? stats.values.max : 0.0);
      break;
  }
  char line[512];
  std::snprintf(line, sizeof line,
                "problem %s: %llu modules, %llu decisions (%s), %zu modules failed; %llu bytes, %.1f bytes per "
                "decision\n",
                reader.problem().c_str(), (unsigned long long)stats.modules, (unsigned long long)stats.decisions,
                actions, summary["modules_failed"].size(), (unsigned long long)summary["trace_bytes"].get<uint64_t>(),
                summary["bytes_per_decision"].get<double>());
  std::string out = line;
  TextTable table({"feature", "min", "max", "mean"});
  for (size_t f = 0; f < stats.features.size(); ++f) {
    const FeatureRange &range = stats.features[f];
    if (!range.elements) break;
    std::snprintf(line, sizeof line, "%.2f", range.sum / range.elements);
    table.addRow({spec.features[f].name, numberText(spec.features[f], range.min),
                  numberText(spec.features[f], range.max), line});
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
  const DecisionSpec &spec = reader.decisionSpec();
  for (size_t d = 0; d < module.decisions(); ++d) {
    json decision = json::object();
    const char *tensor = reinterpret_cast<const char *>(module.featuresOf(d));
    for (const FeatureTensor &feature : spec.features) {
      if (feature.elements() == 1) {
        decision[feature.name] = number(feature, featureValue(feature, tensor, 0));
      } else {
        json values = json::array();
        for (size_t e = 0; e < feature.elements(); ++e)
          values.push_back(number(feature, featureValue(feature, tensor, e)));
        decision[feature.name] = std::move(values);
      }
      tensor += feature.bytes();
    }
    if (module.values.empty()) {
      decision["default"] = module.defaultDecisions[d];
      decision["action"] = module.actions[d];
    } else {
      // JSON has no NaN: a default not computed is null.
      decision["default"] = std::isnan(module.defaultValues[d]) ? json() : json(module.defaultValues[d]);
      decision["action"] = module.values[d];
    }
    decisions.push_back(std::move(decision));
  }
  return {{"name", module.name}, {"position", module.position}, {"native_size", module.nativeSize},
          {"decisions", std::move(decisions)}};
}

}  // namespace mlgo::trace
