#include "mlgo/builds/linked_choices.h"

#include <set>

#include "mlgo/support/atomic_file.h"
#include "mlgo/support/text_input.h"

namespace mlgo::builds {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

/// The way a log record says its unit was compiled: a pass list when one was
/// applied, the policy when one was (and --never-larger kept it), plain
/// otherwise.
launcher::UnitChoice wayOfRecord(const json &record) {
  launcher::UnitChoice way;
  if (record.contains("fallback") || record.value("backup", false)) return way;
  const json applied = record.value("applied", json::object());
  if (applied.contains("pass_list") && applied["pass_list"].is_string()) {
    way.way = launcher::UnitWay::PassList;
    way.pipeline = applied["pass_list"].get<std::string>();
  } else if (applied.contains("policy")) {
    way.way = launcher::UnitWay::Policy;
  }
  return way;
}

uint64_t keptIn(const BuiltVariant &built, const std::string &linked, const std::string &unit,
                uint64_t (*metric)(const SectionSizes &)) {
  auto file = built.kept.byLinkedFile.find(linked);
  if (file == built.kept.byLinkedFile.end()) return 0;
  auto found = file->second.find(unit);
  return found == file->second.end() ? 0 : metric(found->second);
}

uint64_t textOf(const SectionSizes &sizes) { return sizes.text; }
uint64_t textPlusDataOf(const SectionSizes &sizes) { return sizes.textPlusData(); }

}  // namespace

std::map<std::string, LoggedUnit> loggedUnits(const BuiltVariant &built, const fs::path &buildRoot) {
  std::map<std::string, LoggedUnit> units;
  if (built.outcome.ccLog.empty() || !fs::exists(built.outcome.ccLog)) return units;
  forEachLine(readFile(built.outcome.ccLog), [&](size_t, std::string_view line) {
    const json record = parseJsonOrDiscarded(line);
    if (!record.is_object() || !record.contains("module") || !record["module"].is_string() ||
        !record.contains("directory") || !record["directory"].is_string() || !record.contains("object") ||
        !record["object"].is_string())
      return;
    const fs::path object = fs::path(record["directory"].get<std::string>()) / record["object"].get<std::string>();
    const fs::path relative = object.lexically_normal().lexically_relative(buildRoot.lexically_normal());
    if (relative.empty() || *relative.begin() == "..") return;
    units[relative.generic_string()] = {record["module"].get<std::string>(), wayOfRecord(record),
                                        record.value("store_unit", std::string())};
  });
  return units;
}

std::vector<store::KeptByLinker> keptForStore(const BuiltVariant &storeWay, const BuiltVariant &plain,
                                                 const fs::path &buildRoot) {
  std::vector<store::KeptByLinker> kept;
  if (!storeWay.outcome.built || !plain.outcome.built) return kept;
  const std::map<std::string, SectionSizes> applied = storeWay.kept.byUnit(), recorded = plain.kept.byUnit();
  for (const auto &[object, logged] : loggedUnits(storeWay, buildRoot)) {
    if (logged.storeUnit.empty()) continue;
    // A unit the linker kept nothing of (an object no link took) ships nothing either way.
    if (auto found = applied.find(object); found != applied.end())
      kept.push_back({logged.storeUnit, logged.way.pipeline, found->second});
    // A unit compiled at its recorded level has just said what the linker kept of that.
    if (auto found = recorded.find(object); found != recorded.end() && !logged.way.pipeline.empty())
      kept.push_back({logged.storeUnit, "", found->second});
  }
  return kept;
}

launcher::UnitChoices chooseUnits(const std::vector<BuiltVariant> &variants, const fs::path &buildRoot,
                                  const fs::path &policy) {
  launcher::UnitChoices choices;
  if (variants.empty()) return choices;
  const std::map<std::string, SectionSizes> plain = variants.front().kept.byUnit();
  struct Best {
    std::string module;
    launcher::UnitChoice way;
    uint64_t kept = 0;
  };
  std::map<std::string, Best> best;  // by unit
  for (size_t v = 1; v < variants.size(); ++v) {
    if (!variants[v].outcome.built) continue;
    const std::map<std::string, SectionSizes> kept = variants[v].kept.byUnit();
    for (const auto &[unit, logged] : loggedUnits(variants[v], buildRoot)) {
      auto base = plain.find(unit);
      auto current = best.try_emplace(unit, Best{logged.module, {}, base == plain.end() ? 0 : base->second.textPlusData()});
      if (logged.way.way == launcher::UnitWay::Plain) continue;
      auto found = kept.find(unit);
      const uint64_t size = found == kept.end() ? 0 : found->second.textPlusData();
      if (size < current.first->second.kept) current.first->second = {logged.module, logged.way, size};
    }
  }
  for (const auto &[unit, chosen] : best) {
    choices.units[chosen.module] = chosen.way;
    if (chosen.way.way == launcher::UnitWay::Policy) choices.policy = policy;
  }
  return choices;
}

std::vector<std::string> largerLinkedFiles(const BuiltVariant &built, const BuiltVariant &reference) {
  std::vector<std::string> larger;
  for (const auto &[path, base] : reference.artifacts.linked) {
    auto found = built.artifacts.linked.find(path);
    if (found == built.artifacts.linked.end() || found->second.text > base.text ||
        found->second.textPlusData() > base.textPlusData())
      larger.push_back(path);
  }
  return larger;
}

size_t revertUnits(launcher::UnitChoices &choices, const BuiltVariant &built, const BuiltVariant &reference,
                   const std::vector<std::string> &larger, const fs::path &buildRoot) {
  const std::map<std::string, LoggedUnit> units = loggedUnits(built, buildRoot);
  std::set<std::string> revert;
  for (const std::string &linked : larger) {
    std::set<std::string> grew, present;
    for (const auto &[unit, logged] : units) {
      auto choice = choices.units.find(logged.module);
      if (choice == choices.units.end() || choice->second.way == launcher::UnitWay::Plain) continue;
      if (keptIn(built, linked, unit, textPlusDataOf) == 0 && keptIn(built, linked, unit, textOf) == 0) continue;
      present.insert(logged.module);
      if (keptIn(built, linked, unit, textPlusDataOf) > keptIn(reference, linked, unit, textPlusDataOf) ||
          keptIn(built, linked, unit, textOf) > keptIn(reference, linked, unit, textOf))
        grew.insert(logged.module);
    }
    // An inline function's kept copy that moved away from a chosen unit
    // (it inlined its calls, another unit's copy is kept instead).
    std::set<std::string> moved;
    auto before = reference.kept.sectionOwners.find(linked);
    auto after = built.kept.sectionOwners.find(linked);
    if (before != reference.kept.sectionOwners.end())
      for (const auto &[section, owner] : before->second) {
        const std::string now = after == built.kept.sectionOwners.end() || !after->second.count(section)
                                    ? ""
                                    : after->second.at(section);
        auto logged = units.find(owner);
        if (!now.empty() && now != owner && logged != units.end() && present.count(logged->second.module))
          moved.insert(logged->second.module);
      }
    grew.insert(moved.begin(), moved.end());
    const std::set<std::string> &chosen = grew.empty() ? present : grew;
    revert.insert(chosen.begin(), chosen.end());
  }
  for (const std::string &module : revert) choices.units[module] = launcher::UnitChoice{};
  return revert.size();
}

}  // namespace mlgo::builds
