#include "mlgo/builds/build_comparison.h"

#include <algorithm>
#include <cstdio>

#include "mlgo/support/atomic_file.h"
#include "mlgo/support/table.h"
#include "mlgo/support/text_input.h"

namespace mlgo::builds {

using nlohmann::json;

namespace {

double change(double value, double base) { return base > 0 ? (value - base) / base : 0.0; }

SectionSizes linkedSum(const BuildArtifacts &artifacts) {
  SectionSizes sum;
  for (const auto &[path, sizes] : artifacts.linked) {
    sum.text += sizes.text;
    sum.rodata += sizes.rodata;
    sum.data += sizes.data;
  }
  return sum;
}

json sizesJson(const SectionSizes &sizes, const SectionSizes *reference) {
  json out{{"text", sizes.text}, {"text+data", sizes.textPlusData()}};
  if (reference) {
    out["text_change"] = change(double(sizes.text), double(reference->text));
    out["text+data_change"] = change(double(sizes.textPlusData()), double(reference->textPlusData()));
  }
  return out;
}

std::string secondsText(double seconds) {
  char text[32];
  std::snprintf(text, sizeof text, seconds < 10 ? "%.2f s" : "%.1f s", seconds);
  return text;
}

/// Per unit (object path in the tree), what the linker kept of it in each
/// way, from the linker maps.
json keptUnitsJson(const std::vector<BuiltVariant> &variants) {
  json units = json::object();
  for (const BuiltVariant &built : variants)
    for (const auto &[unit, sizes] : built.kept.byUnit())
      units[unit][built.variant.name] = {{"text", sizes.text}, {"text+data", sizes.textPlusData()}};
  return units;
}

/// A way's name as tables show it: a raw way says so.
std::string shownName(const BuildVariant &variant) { return variant.name + (variant.raw ? " (raw)" : ""); }

std::string testsText(const BuildOutcome &outcome) {
  if (outcome.tests == TestResult::None) return testResultName(outcome.tests);
  return std::string(testResultName(outcome.tests)) + " (" + secondsText(outcome.testSeconds) + ")";
}

}  // namespace

std::vector<std::string> compareBuildsEntries() {
  return {"clang-19", "mlgo-cc",  "policy",   "never-larger",    "pass-lists",   "predicted", "store-*",
          "choices",  "building", "units.db", "units.db-wal",    "units.db-shm", "units.db.gate-programs",
          "comparison.json", "choices.json"};
}

void countLauncherLog(BuiltVariant &built) {
  if (built.outcome.ccLog.empty() || !std::filesystem::exists(built.outcome.ccLog)) return;
  forEachLine(readFile(built.outcome.ccLog), [&](size_t, std::string_view line) {
    const json record = parseJsonOrDiscarded(line);
    if (record.is_discarded() || !record.is_object() || record.contains("link")) return;
    ++built.units;
    const bool unoptimized = record.value("unoptimized", false);
    built.unoptimized += unoptimized;
    built.fallbacks += record.contains("fallback") && !unoptimized;
    built.backups += record.value("backup", false);
  });
}

json comparisonToJson(const std::vector<BuiltVariant> &variants, const std::string &optimization) {
  json out{{"format", "mlgo-build-comparison"},
           {"version", 1},
           {"optimization", optimization.empty() ? "the project's own" : optimization},
           {"variants", json::array()}};
  if (variants.empty()) return out;
  const BuildArtifacts *reference = &variants.front().artifacts;
  for (const BuiltVariant &built : variants) {
    json linked = json::object();
    for (const auto &[path, sizes] : built.artifacts.linked) {
      auto base = reference->linked.find(path);
      linked[path] = sizesJson(sizes, base == reference->linked.end() ? nullptr : &base->second);
    }
    const SectionSizes sum = linkedSum(built.artifacts), referenceSum = linkedSum(*reference);
    out["variants"].push_back({{"name", built.variant.name},
                               {"mlgo_cc_environment", built.variant.ccEnvironment},
                               {"raw", built.variant.raw},
                               {"through_mlgo_cc", built.variant.throughLauncher},
                               {"measured", built.measured},
                               {"built", built.outcome.built},
                               {"configure_seconds", built.outcome.configureSeconds},
                               {"build_seconds", built.outcome.buildSeconds},
                               {"tests", testResultName(built.outcome.tests)},
                               {"test_seconds", built.outcome.testSeconds},
                               {"bench_seconds", built.outcome.benchSeconds},
                               {"units", built.units},
                               {"fallbacks", built.fallbacks},
                               {"unoptimized_units", built.unoptimized},
                               {"backups", built.backups},
                               {"linked", linked},
                               {"linked_sum", sizesJson(sum, &referenceSum)},
                               {"object_count", built.artifacts.objectCount},
                               {"objects_sum", sizesJson(built.artifacts.objects, &reference->objects)}});
  }
  out["units"] = keptUnitsJson(variants);
  return out;
}

std::string comparisonTable(const std::vector<BuiltVariant> &variants, const std::string &optimization) {
  if (variants.empty()) return "";
  const BuiltVariant &reference = variants.front();
  TextTable files({"linked file", "variant", ".text", "change", ".text+data", "change"});
  for (const auto &[path, base] : reference.artifacts.linked) {
    files.addRow({path, shownName(reference.variant), std::to_string(base.text), "", std::to_string(base.textPlusData()), ""});
    for (size_t v = 1; v < variants.size(); ++v) {
      auto found = variants[v].artifacts.linked.find(path);
      if (found == variants[v].artifacts.linked.end()) {
        files.addRow({"", shownName(variants[v].variant), "missing", "", "missing", ""});
        continue;
      }
      const SectionSizes &sizes = found->second;
      files.addRow({"", shownName(variants[v].variant), std::to_string(sizes.text), formatPercentChange(sizes.text, base.text),
                    std::to_string(sizes.textPlusData()), formatPercentChange(sizes.textPlusData(), base.textPlusData())});
    }
  }
  const bool benched = std::any_of(variants.begin(), variants.end(),
                                   [](const BuiltVariant &built) { return built.outcome.benchSeconds > 0; });
  std::vector<std::string> columns{"variant", "linked .text", "linked .text+data", "objects .text",
                                   "objects .text+data", "build", "tests", "fallbacks", "-O0 units"};
  if (benched) columns.push_back("bench (median)");
  TextTable summary(columns);
  const SectionSizes referenceLinked = linkedSum(reference.artifacts);
  for (const BuiltVariant &built : variants) {
    if (!built.outcome.built) {
      std::vector<std::string> row{shownName(built.variant), "", "", "", "", "failed", "", "", ""};
      if (benched) row.push_back("");
      summary.addRow(row);
      continue;
    }
    if (!built.measured) {
      std::vector<std::string> row{shownName(built.variant), "not measured", "", "", "", secondsText(built.outcome.buildSeconds),
                                   testsText(built.outcome), "0 of 0", ""};
      if (benched) row.push_back("");
      summary.addRow(row);
      continue;
    }
    const SectionSizes linked = linkedSum(built.artifacts);
    const SectionSizes &objects = built.artifacts.objects;
    const bool isReference = &built == &reference;
    auto withChange = [&](uint64_t value, uint64_t base) {
      return std::to_string(value) + (isReference ? "" : " (" + formatPercentChange(value, base) + ")");
    };
    std::vector<std::string> row{shownName(built.variant), withChange(linked.text, referenceLinked.text),
                                 withChange(linked.textPlusData(), referenceLinked.textPlusData()),
                                 withChange(objects.text, reference.artifacts.objects.text),
                                 withChange(objects.textPlusData(), reference.artifacts.objects.textPlusData()),
                                 secondsText(built.outcome.buildSeconds), testsText(built.outcome),
                                 built.variant.throughLauncher ? std::to_string(built.fallbacks) + " of " +
                                                                     std::to_string(built.units)
                                                               : "",
                                 built.variant.throughLauncher ? std::to_string(built.unoptimized) : ""};
    if (benched) row.push_back(built.outcome.benchSeconds > 0 ? secondsText(built.outcome.benchSeconds) : "");
    summary.addRow(row);
  }
  const std::string level = "compared at " + (optimization.empty() ? std::string("the project's own flags")
                                                                     : optimization) + "\n";
  bool anyRaw = false;
  for (const BuiltVariant &built : variants) anyRaw = anyRaw || built.variant.raw;
  const std::string rawNote = anyRaw ? "(raw): links ship as linked, unchecked, for comparison; every other way "
                                       "through mlgo cc ships no linked file larger than its plain link\n"
                                     : "";
  return files.render() + "\n" + summary.render() + level + rawNote;
}

}  // namespace mlgo::builds
