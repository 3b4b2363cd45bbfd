#include "mlgo/eval/eval_report.h"

#include <cstdio>
#include <map>
#include <optional>

#include "mlgo/support/table.h"

namespace mlgo {

using nlohmann::json;

double relativeChange(double candidate, double baseline) {
  if (baseline == 0) return candidate == 0 ? 0.0 : 1.0;
  return (candidate - baseline) / baseline;
}

namespace {

json sizesToJson(const SectionSizes &sizes, uint64_t irInstructions) {
  return json{{"text", sizes.text},
              {"data", sizes.data},
              {"rodata", sizes.rodata},
              {"bss", sizes.bss},
              {"text+data", sizes.textPlusData()},
              {"ir_instructions", irInstructions}};
}

json resultToJson(const CompileResult &result) {
  if (!result.ok())
    return json{{"failure", failureKindName(result.failure)}, {"message", result.message}, {"seconds", result.seconds}};
  json out = sizesToJson(result.sizes, result.irInstructions);
  out["seconds"] = result.seconds;
  return out;
}

json changeToJson(const SectionSizes &candidate, uint64_t candidateIR, const SectionSizes &baseline,
                  uint64_t baselineIR) {
  return json{{"text", relativeChange(candidate.text, baseline.text)},
              {"text+data", relativeChange(candidate.textPlusData(), baseline.textPlusData())},
              {"ir_instructions", relativeChange(candidateIR, baselineIR)}};
}

std::string number(uint64_t value) { return std::to_string(value); }

/// {"baseline": {measure: value}, "candidate": {...}, "change": {measure: relative change}}
json measuresToJson(const std::map<std::string, double> &baseline, const std::map<std::string, double> &candidate) {
  json change = json::object();
  for (const auto &[name, value] : baseline)
    if (auto found = candidate.find(name); found != candidate.end())
      change[name] = relativeChange(found->second, value);
  return json{{"baseline", baseline}, {"candidate", candidate}, {"change", change}};
}

/// How the compared modules moved on one measure: how many got smaller and
/// how many larger, and the one that grew most (the first such in the
/// report's order), or shrank least when none grew.
struct Spread {
  size_t smaller = 0, larger = 0;
  std::string worst;
  double worstChange = 0;
  json toJson() const {
    return json{{"smaller", smaller}, {"larger", larger}, {"worst", {{"module", worst}, {"change", worstChange}}}};
  }
};

/// The spread of `value` (baseline, candidate) over the modules that have it.
template <class Value>
Spread spreadOf(const EvalReport &report, Value value) {
  Spread spread;
  bool any = false;
  for (const ModuleEvaluation &module : report.modules) {
    const std::optional<std::pair<double, double>> values = value(module);
    if (!module.ok() || !values) continue;
    const auto [baseline, candidate] = *values;
    spread.smaller += candidate < baseline;
    spread.larger += candidate > baseline;
    const double change = relativeChange(candidate, baseline);
    if (!any || change > spread.worstChange) {
      spread.worst = module.name;
      spread.worstChange = change;
      any = true;
    }
  }
  return spread;
}

/// The spread of each size: .text, .text+data, IR instructions.
std::map<std::string, Spread> sizeSpreads(const EvalReport &report) {
  using Values = std::optional<std::pair<double, double>>;
  return {{"text", spreadOf(report, [](const ModuleEvaluation &m) -> Values {
             return std::make_pair(double(m.baseline.sizes.text), double(m.candidate.sizes.text));
           })},
          {"text+data", spreadOf(report, [](const ModuleEvaluation &m) -> Values {
             return std::make_pair(double(m.baseline.sizes.textPlusData()), double(m.candidate.sizes.textPlusData()));
           })},
          {"ir_instructions", spreadOf(report, [](const ModuleEvaluation &m) -> Values {
             return std::make_pair(double(m.baseline.irInstructions), double(m.candidate.irInstructions));
           })}};
}

/// The spread of a problem's own measure (regalloc's score), lower better.
Spread measureSpread(const EvalReport &report, const std::string &name) {
  return spreadOf(report, [&name](const ModuleEvaluation &m) -> std::optional<std::pair<double, double>> {
    auto baseline = m.baselineMeasures.find(name), candidate = m.candidateMeasures.find(name);
    if (baseline == m.baselineMeasures.end() || candidate == m.candidateMeasures.end()) return std::nullopt;
    return std::make_pair(baseline->second, candidate->second);
  });
}

}  // namespace

json evalReportToJson(const EvalReport &report, const std::string &corpusPath) {
  json modules = json::array();
  for (const ModuleEvaluation &module : report.modules) {
    json entry{{"name", module.name},
               {"status", module.ok() ? "ok" : "failed"},
               {"baseline", resultToJson(module.baseline)},
               {"candidate", resultToJson(module.candidate)},
               {"decisions", module.decisions},
               {report.problem + "_decisions", module.decisions}};
    if (module.keptBackup) entry["backup"] = true;
    if (module.ok())
      entry["change"] = changeToJson(module.candidate.sizes, module.candidate.irInstructions,
                                     module.baseline.sizes, module.baseline.irInstructions);
    if (!module.baselineMeasures.empty() || !module.candidateMeasures.empty())
      entry["measures"] = measuresToJson(module.baselineMeasures, module.candidateMeasures);
    modules.push_back(std::move(entry));
  }
  json totals{{"modules", report.modules.size()},
              {"compared", report.compared},
              {"failed", report.failed()},
              {"backups", report.backups},
              {"baseline", sizesToJson(report.baselineTotals.sizes, report.baselineTotals.irInstructions)},
              {"candidate", sizesToJson(report.candidateTotals.sizes, report.candidateTotals.irInstructions)},
              {"change", changeToJson(report.candidateTotals.sizes, report.candidateTotals.irInstructions,
                                      report.baselineTotals.sizes, report.baselineTotals.irInstructions)},
              {"geomean_change", {{"text+data", report.geomeanTextPlusDataChange}}}};
  for (const auto &[name, spread] : sizeSpreads(report)) totals["spread"][name] = spread.toJson();
  if (!report.baselineMeasureTotals.empty()) {
    totals["measures"] = measuresToJson(report.baselineMeasureTotals, report.candidateMeasureTotals);
    for (const auto &[name, value] : report.baselineMeasureTotals)
      totals["measures"]["spread"][name] = measureSpread(report, name).toJson();
  }
  return json{{"mlgo_version", MLGO_VERSION},
              {"corpus", corpusPath},
              {"problem", report.problem},
              {"baseline", report.baseline},
              {"candidate", report.candidate},
              {"threads", report.threads},
              {"wall_seconds", report.wallSeconds},
              {"modules", std::move(modules)},
              {"totals", std::move(totals)}};
}

std::string evalReportToTable(const EvalReport &report) {
  TextTable table({"module", "-Oz text", "text", "change", "-Oz text+data", "text+data", "change", "-Oz IR", "IR"});
  for (const ModuleEvaluation &module : report.modules) {
    if (!module.ok()) {
      const CompileResult &failed = module.baseline.ok() ? module.candidate : module.baseline;
      table.addRow({module.name, "failed:", failureKindName(failed.failure)});
      continue;
    }
    const SectionSizes &b = module.baseline.sizes, &c = module.candidate.sizes;
    table.addRow({module.name, number(b.text), number(c.text), formatPercentChange(c.text, b.text),
                  number(b.textPlusData()), number(c.textPlusData()),
                  formatPercentChange(c.textPlusData(), b.textPlusData()), number(module.baseline.irInstructions),
                  number(module.candidate.irInstructions)});
  }
  table.addRule();
  const SectionSizes &b = report.baselineTotals.sizes, &c = report.candidateTotals.sizes;
  table.addRow({"total (" + std::to_string(report.compared) + " modules)", number(b.text), number(c.text),
                formatPercentChange(c.text, b.text), number(b.textPlusData()), number(c.textPlusData()),
                formatPercentChange(c.textPlusData(), b.textPlusData()), number(report.baselineTotals.irInstructions),
                number(report.candidateTotals.irInstructions)});
  std::string out = "baseline: " + report.baseline + "; candidate: " + report.candidate + "\n";
  out += table.render();
  char summary[256];
  std::snprintf(summary, sizeof summary,
                "%zu modules, %zu compared, %zu failed; geomean text+data change %+.2f%%; %.1f s on %u threads\n",
                report.modules.size(), report.compared, report.failed(), 100 * report.geomeanTextPlusDataChange,
                report.wallSeconds, report.threads);
  out += summary;
  if (report.backups > 0)
    out += std::to_string(report.backups) + " modules larger than their plain compile counted as it (never larger)\n";
  auto describe = [](const std::string &name, const Spread &spread) {
    char line[512];
    std::snprintf(line, sizeof line, "%s: %zu smaller, %zu larger, worst %s %+.2f%%\n", name.c_str(), spread.smaller,
                  spread.larger, spread.worst.empty() ? "-" : spread.worst.c_str(), 100 * spread.worstChange);
    return std::string(line);
  };
  if (report.compared > 0)
    for (const auto &[name, spread] : sizeSpreads(report)) out += describe(name, spread);
  for (const auto &[name, baseline] : report.baselineMeasureTotals) {
    auto candidate = report.candidateMeasureTotals.find(name);
    if (candidate == report.candidateMeasureTotals.end()) continue;
    std::snprintf(summary, sizeof summary, "%s: %.0f baseline, %.0f candidate, %+.2f%%\n", name.c_str(), baseline,
                  candidate->second, 100 * relativeChange(candidate->second, baseline));
    out += summary + describe(name, measureSpread(report, name));
  }
  for (const ModuleEvaluation &module : report.modules) {
    if (module.ok()) continue;
    const CompileResult &failed = module.baseline.ok() ? module.candidate : module.baseline;
    out += "failed: " + module.name + ": " + failureKindName(failed.failure) + ": " + failed.message + "\n";
  }
  return out;
}

}  // namespace mlgo
