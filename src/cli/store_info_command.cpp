// mlgo store-info: what a project's store (mlgo cc --store) holds: its units,
// the lists they tried, what the choices gain, and its size on disk.
#include <cstdio>
#include <ctime>
#include <memory>

#include <nlohmann/json.hpp>

#include "commands.h"
#include "common_options.h"
#include "mlgo/autotune/search_space.h"
#include "mlgo/autotune/pass_pool.h"
#include "mlgo/store/build_store.h"
#include "mlgo/support/byte_size.h"
#include "mlgo/support/exit_codes.h"

namespace mlgo::cli {

namespace {

struct StoreInfoFlags {
  std::string store;
  bool units = false;
  bool json = false;
};

double change(uint64_t before, uint64_t after) {
  return before ? double(after) / double(before) - 1.0 : 0.0;
}

nlohmann::json unitsToJson(const std::vector<store::StoredUnit> &units) {
  nlohmann::json rows = nlohmann::json::array();
  for (const store::StoredUnit &unit : units) {
    nlohmann::json row{{"module", unit.module}, {"key", unit.key}, {"trials", unit.trials.size()}};
    auto recorded = unit.trials.find("");
    if (unit.choice && recorded != unit.trials.end()) {
      row["choice"] = *unit.choice;
      row["recorded_text_data"] = recorded->second.sizes.textPlusData();
      row["chosen_text_data"] = unit.trials.at(*unit.choice).sizes.textPlusData();
      if (recorded->second.kept) row["recorded_kept_text_data"] = recorded->second.kept->textPlusData();
      if (const auto &kept = unit.trials.at(*unit.choice).kept) row["chosen_kept_text_data"] = kept->textPlusData();
    }
    rows.push_back(row);
  }
  return rows;
}

void printUnits(const std::vector<store::StoredUnit> &units) {
  for (const store::StoredUnit &unit : units) {
    auto recorded = unit.trials.find("");
    if (!unit.choice || recorded == unit.trials.end()) {
      std::printf("  %-40s %4zu lists  (its recorded level never compiled)\n", unit.module.c_str(), unit.trials.size());
      continue;
    }
    const uint64_t before = recorded->second.sizes.textPlusData();
    const uint64_t after = unit.trials.at(*unit.choice).sizes.textPlusData();
    std::printf("  %-40s %4zu lists  %8llu -> %8llu  %+6.2f%%  %s\n", unit.module.c_str(), unit.trials.size(),
                (unsigned long long)before, (unsigned long long)after, 100 * change(before, after),
                unit.choice->empty() ? "(recorded level)" : unit.choice->c_str());
  }
}

/// What ships first: each output linked through the store and the sum.
nlohmann::json linkedToJson(const store::StoreSummary &summary) {
  nlohmann::json files = nlohmann::json::array();
  for (const store::StoredLink &link : summary.links)
    files.push_back({{"output", link.output},
                     {"shipped_text_data", link.shipped},
                     {"plain_text_data", link.plain},
                     {"change", change(link.plain, link.shipped)}});
  return {{"files", files},
          {"shipped_text_data", summary.linkedShipped},
          {"plain_text_data", summary.linkedPlain},
          {"removed_bytes", int64_t(summary.linkedPlain) - int64_t(summary.linkedShipped)},
          {"change", change(summary.linkedPlain, summary.linkedShipped)}};
}

/// ", units used from 2026-11-02 to 2026-12-07" (UTC): how far back a
/// cleanup's least recently used reach; "" when no unit has a use noted.
std::string usesSince(const store::StoreSummary &summary) {
  if (summary.oldestUse == 0) return "";
  auto day = [](int64_t milliseconds) {
    const std::time_t seconds = std::time_t(milliseconds / 1000);
    std::tm utc{};
    gmtime_r(&seconds, &utc);
    char text[16];
    std::strftime(text, sizeof text, "%Y-%m-%d", &utc);
    return std::string(text);
  };
  return ", units used from " + day(summary.oldestUse) + " to " + day(summary.latestUse);
}

void printLinked(const store::StoreSummary &summary) {
  if (summary.links.empty()) {
    std::printf("linked: no link through the store yet (give mlgo cc the links too: what ships is measured there)\n");
    return;
  }
  std::printf("linked .text+.data, shipped vs plain link, as each file's latest link through the store left it:\n");
  for (const store::StoredLink &link : summary.links)
    std::printf("  %-60s %10llu -> %10llu  %+6.2f%%\n", link.output.c_str(), (unsigned long long)link.plain,
                (unsigned long long)link.shipped, 100 * change(link.plain, link.shipped));
  std::printf("  %-60s %10llu -> %10llu  %+6.2f%%  (the choices remove %lld bytes from what ships)\n", "sum",
              (unsigned long long)summary.linkedPlain, (unsigned long long)summary.linkedShipped,
              100 * change(summary.linkedPlain, summary.linkedShipped),
              (long long)summary.linkedPlain - (long long)summary.linkedShipped);
}

int runStoreInfo(const StoreInfoFlags &flags) {
  const std::unique_ptr<store::BuildStore> store = store::BuildStore::openExisting(flags.store);
  const store::StoreSummary summary = store->summarize();
  const autotune::SearchSpace space = autotune::SearchSpace::load(autotune::defaultSearchSpaceFile());
  const bool usable = summary.identity == store::storeIdentity(autotune::searchSpaceHash(space));
  const double total = change(summary.recordedTextData, summary.chosenTextData);
  const std::string integrity = store->integrity();
  if (flags.json) {
    nlohmann::json out{{"format", "mlgo-store-info"},
                       {"version", 1},
                       {"llvm", summary.identity.llvm},
                       {"search_space", summary.identity.searchSpace},
                       {"cost_model", summary.identity.costModel},
                       {"usable", usable},
                       {"linked", linkedToJson(summary)},
                       {"cost_bound", summary.costBound},
                       {"units", summary.units},
                       {"trials", summary.trials},
                       {"verdicts", summary.verdicts},
                       {"kept_trials", summary.keptTrials},
                       {"improved_units", summary.improvedUnits},
                       {"recorded_text_data", summary.recordedTextData},
                       {"chosen_text_data", summary.chosenTextData},
                       {"total_change", total},
                       {"geomean_change", summary.geomeanRatio - 1.0},
                       {"bytes_on_disk", summary.bytesOnDisk},
                       {"earlier_versions", summary.earlierVersions},
                       {"oldest_use_ms", summary.oldestUse},
                       {"latest_use_ms", summary.latestUse},
                       {"integrity", integrity},
                       {"foreign_writers", summary.foreignWriters}};
    if (flags.units) out["unit_list"] = unitsToJson(store->units());
    std::printf("%s\n", out.dump(2).c_str());
    return integrity == "ok" ? exit_code::kSuccess : exit_code::kBadInput;
  }
  printLinked(summary);
  std::printf("%zu units (%zu earlier versions of edited files), %zu lists tried (%zu with what the linker kept), %zu "
              "lists judged by the gate; %zu units improved\n",
              summary.units, summary.earlierVersions, summary.trials, summary.keptTrials, summary.verdicts,
              summary.improvedUnits);
  std::printf("per unit, .text+.data of the choices vs each unit's recorded level: %+.2f%% in total (%llu -> %llu bytes), "
              "%+.2f%% geomean per unit\n",
              100 * total, (unsigned long long)summary.recordedTextData, (unsigned long long)summary.chosenTextData,
              100 * (summary.geomeanRatio - 1.0));
  std::printf("LLVM %s, search space %s, cost model %s%s; cost bound %gx; %s on disk%s; integrity: %s\n",
              summary.identity.llvm.c_str(), summary.identity.searchSpace.substr(0, 12).c_str(),
              summary.identity.costModel.c_str(),
              usable ? "" : " (not this mlgo's: its builds ignore the store)", summary.costBound,
              formatByteSize(summary.bytesOnDisk).c_str(), usesSince(summary).c_str(), integrity.c_str());
  for (const std::string &writer : summary.foreignWriters)
    std::printf("ignored by compiles of %s\n", writer.c_str());
  if (flags.units) printUnits(store->units());
  return integrity == "ok" ? exit_code::kSuccess : exit_code::kBadInput;
}

}  // namespace

void addStoreInfoCommand(CLI::App *command, CommandRunner &runner) {
  auto flags = std::make_shared<StoreInfoFlags>();
  command->add_option("--store", flags->store, "The store (an SQLite file or postgresql://... of mlgo cc --store)")->required();
  command->add_flag("--units", flags->units, "Also list every unit: lists tried, sizes, its choice");
  command->add_flag("--json", flags->json, "Print JSON (machine-readable) instead of text");
  command->callback([flags, &runner] { runner = [flags] { return runStoreInfo(*flags); }; });
}

}  // namespace mlgo::cli
