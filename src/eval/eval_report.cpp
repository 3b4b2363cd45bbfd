#include "mlgo/eval/eval_report.h"

#include <cstdio>

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
  if (!report.baselineMeasureTotals.empty())
    totals["measures"] = measuresToJson(report.baselineMeasureTotals, report.candidateMeasureTotals);
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
  for (const auto &[name, baseline] : report.baselineMeasureTotals) {
    auto candidate = report.candidateMeasureTotals.find(name);
    if (candidate == report.candidateMeasureTotals.end()) continue;
    std::snprintf(summary, sizeof summary, "%s: %.0f baseline, %.0f candidate, %+.2f%%\n", name.c_str(), baseline,
                  candidate->second, 100 * relativeChange(candidate->second, baseline));
    out += summary;
  }
  for (const ModuleEvaluation &module : report.modules) {
    if (module.ok()) continue;
    const CompileResult &failed = module.baseline.ok() ? module.candidate : module.baseline;
    out += "failed: " + module.name + ": " + failureKindName(failed.failure) + ": " + failed.message + "\n";
  }
  return out;
}

}  // namespace mlgo
