#include "mlgo/autotune/coreset.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "mlgo/support/atomic_file.h"
#include "mlgo/support/data_paths.h"
#include "mlgo/support/errors.h"
#include "mlgo/support/portable_math.h"
#include "mlgo/support/text_input.h"

namespace mlgo::autotune {

namespace fs = std::filesystem;
using nlohmann::json;

std::vector<size_t> selectCoreset(const std::vector<std::vector<double>> &gains, size_t size) {
  const size_t listCount = gains.empty() ? 0 : gains.front().size();
  std::vector<double> covered(gains.size(), 0.0);
  std::vector<bool> chosen(listCount, false);
  std::vector<size_t> order;
  while (order.size() < size) {
    double bestAdded = 0;
    size_t best = listCount;
    for (size_t l = 0; l < listCount; ++l) {
      if (chosen[l]) continue;
      double added = 0;
      for (size_t m = 0; m < gains.size(); ++m) added += std::max(0.0, gains[m][l] - covered[m]);
      if (added > bestAdded) {
        bestAdded = added;
        best = l;
      }
    }
    if (best == listCount) break;  // nothing adds coverage
    chosen[best] = true;
    order.push_back(best);
    for (size_t m = 0; m < gains.size(); ++m) covered[m] = std::max(covered[m], gains[m][best]);
  }
  return order;
}

std::vector<size_t> fillByTotalGain(const std::vector<std::vector<double>> &gains, std::vector<size_t> order,
                                    size_t size) {
  const size_t listCount = gains.empty() ? 0 : gains.front().size();
  std::vector<double> total(listCount, 0.0);
  for (const std::vector<double> &module : gains)
    for (size_t l = 0; l < listCount; ++l) total[l] += std::max(0.0, module[l]);
  std::vector<bool> chosen(listCount, false);
  for (size_t l : order) chosen[l] = true;
  std::vector<size_t> rest;
  for (size_t l = 0; l < listCount; ++l)
    if (!chosen[l] && total[l] > 0) rest.push_back(l);
  std::stable_sort(rest.begin(), rest.end(), [&](size_t a, size_t b) { return total[a] > total[b]; });
  for (size_t l : rest) {
    if (order.size() >= size) break;
    order.push_back(l);
  }
  return order;
}

std::vector<std::vector<double>> gainMatrix(const SweepTable &table, SizeMetric metric, bool allowUngated) {
  std::vector<std::vector<double>> gains(table.modules.size());
  for (size_t m = 0; m < table.modules.size(); ++m) {
    const SweptModule &module = table.modules[m];
    const double oz = double(measure(module.oz.sizes, metric));
    gains[m].assign(table.lists.size(), -std::numeric_limits<double>::infinity());
    for (size_t l = 0; l < table.lists.size(); ++l) {
      if (!table.usable(m, l, allowUngated)) continue;
      const double size = double(measure(module.lists[l]->sizes, metric));
      // A module with no code or data counts as unchanged, as in autotune's geomean.
      gains[m][l] = oz > 0 && size > 0 ? portable::log(oz / size) : 0.0;
    }
  }
  return gains;
}

namespace {

/// Geometric-mean change vs -Oz when each module takes its best of `lists` or -Oz.
double oracleChange(const std::vector<std::vector<double>> &gains, const std::vector<size_t> &lists) {
  if (gains.empty()) return 0;
  double total = 0;
  for (const std::vector<double> &module : gains) {
    double best = 0;
    for (size_t l : lists) best = std::max(best, module[l]);
    total += best;
  }
  return portable::exp(-total / double(gains.size())) - 1;
}

}  // namespace

Coreset buildCoreset(const SweepTable &table, SizeMetric metric, size_t size, bool allowUngated, bool fill) {
  if (size == 0) throw UsageError("a coreset needs at least one list");
  const std::vector<std::vector<double>> gains = gainMatrix(table, metric, allowUngated);
  std::vector<size_t> order = selectCoreset(gains, size);
  if (fill) order = fillByTotalGain(gains, std::move(order), size);
  Coreset coreset;
  coreset.metric = metric;
  coreset.trainingModules = table.modules.size();
  std::vector<size_t> every(table.lists.size());
  for (size_t l = 0; l < every.size(); ++l) every[l] = l;
  coreset.oracleGeomeanChange = oracleChange(gains, order);
  coreset.poolGeomeanChange = oracleChange(gains, every);
  std::vector<double> covered(gains.size(), 0.0);
  for (size_t l : order) {
    const PoolList &pool = table.lists[l];
    CoresetList list{pool.passes, pool.pipeline, pool.gate && !pool.gate->passed, 0, 0};
    for (size_t m = 0; m < gains.size(); ++m) {
      list.addedGain += std::max(0.0, gains[m][l] - covered[m]);
      covered[m] = std::max(covered[m], gains[m][l]);
    }
    coreset.lists.push_back(std::move(list));
  }
  // Which chosen list is each module's best (first in order on ties).
  for (const std::vector<double> &module : gains) {
    size_t best = order.size();
    double bestGain = 0;
    for (size_t k = 0; k < order.size(); ++k)
      if (module[order[k]] > bestGain) {
        bestGain = module[order[k]];
        best = k;
      }
    if (best < order.size()) ++coreset.lists[best].modulesBest;
  }
  return coreset;
}

json Coreset::toJson() const {
  json lists_ = json::array();
  for (const CoresetList &list : lists)
    lists_.push_back({{"passes", list.passes},
                      {"pipeline", list.pipeline},
                      {"languages", list.cOnly ? json::array({"c"}) : json::array({"c", "c++"})},
                      {"added_gain", list.addedGain},
                      {"modules_best", list.modulesBest}});
  return {{"format", kFormat},
          {"version", kVersion},
          {"metric", sizeMetricName(metric)},
          {"training_modules", trainingModules},
          {"oracle_geomean_change", oracleGeomeanChange},
          {"pool_geomean_change", poolGeomeanChange},
          {"lists", lists_}};
}

void Coreset::write(const fs::path &file) const { writeOutputFile(file, toJson().dump(2) + "\n"); }

Coreset Coreset::fromJson(const json &document, const std::string &file, const SearchSpace &space) {
  requireFormat(document, file, kFormat, kVersion, "a coreset", "select it again with this mlgo's select-coreset");
  Coreset coreset;
  try {
    const std::optional<SizeMetric> metric = parseSizeMetric(document.at("metric").get<std::string>());
    if (!metric) throw InputError(describeInputProblem(file, "metric", "neither text nor text+data"));
    coreset.metric = *metric;
    coreset.trainingModules = document.at("training_modules").get<size_t>();
    coreset.oracleGeomeanChange = document.at("oracle_geomean_change").get<double>();
    coreset.poolGeomeanChange = document.at("pool_geomean_change").get<double>();
    for (size_t i = 0; i < document.at("lists").size(); ++i) {
      const json &entry = document["lists"][i];
      CoresetList list;
      list.passes = entry.at("passes").get<std::vector<std::string>>();
      list.pipeline = entry.at("pipeline").get<std::string>();
      if (std::any_of(list.passes.begin(), list.passes.end(),
                      [&](const std::string &element) { return space.excludes(element); })) {
        coreset.excludedLists.push_back(list.pipeline);
        continue;
      }
      const auto languages = entry.at("languages").get<std::vector<std::string>>();
      list.cOnly = languages == std::vector<std::string>{"c"};
      if (!list.cOnly && languages != std::vector<std::string>{"c", "c++"})
        throw InputError(describeInputProblem(file, "lists[" + std::to_string(i) + "].languages",
                                              "neither [\"c\"] nor [\"c\", \"c++\"]"));
      list.addedGain = entry.at("added_gain").get<double>();
      list.modulesBest = entry.at("modules_best").get<size_t>();
      if (list.passes.empty() || list.pipeline.empty())
        throw InputError(describeInputProblem(file, "lists[" + std::to_string(i) + "]", "an empty list"));
      list.pipeline = space.checkedPipeline(list.passes, list.pipeline, file, "lists[" + std::to_string(i) + "]");
      coreset.lists.push_back(std::move(list));
      coreset.fileIndices.push_back(i);
    }
  } catch (const json::exception &e) {
    throw InputError(describeInputProblem(file, "", "malformed coreset: " + jsonErrorText(e)));
  }
  if (coreset.lists.empty())
    throw InputError(describeInputProblem(
        file, "lists",
        coreset.excludedLists.empty()
            ? "holds no list"
            : "holds no list the search space allows (each uses an element it excludes): select it again"));
  return coreset;
}

Coreset Coreset::read(const fs::path &file, const SearchSpace &space) {
  return fromJson(readJsonFile(file), file.string(), space);
}

std::vector<size_t> Coreset::orderFor(bool cxxModule) const {
  std::vector<size_t> order;
  for (size_t k = 0; k < lists.size(); ++k)
    if (lists[k].usableFor(cxxModule)) order.push_back(k);
  return order;
}

std::vector<size_t> coresetColumns(const SweepTable &table, const Coreset &coreset) {
  std::vector<size_t> columns;
  for (const CoresetList &list : coreset.lists) {
    size_t column = 0;
    while (column < table.lists.size() && table.lists[column].pipeline != list.pipeline) ++column;
    if (column == table.lists.size())
      throw InputError(describeInputProblem(table.file.empty() ? "the sweep" : table.file, "lists",
                                            "no column for the coreset's list " + list.pipeline +
                                                "; sweep the coreset (sweep-passes --lists CORESET) first"));
    columns.push_back(column);
  }
  return columns;
}

std::vector<std::vector<double>> coresetGains(const SweepTable &table, const Coreset &coreset, bool allowUngated) {
  const std::vector<size_t> columns = coresetColumns(table, coreset);
  const std::vector<std::vector<double>> all = gainMatrix(table, coreset.metric, allowUngated);
  std::vector<std::vector<double>> gains(all.size());
  for (size_t m = 0; m < all.size(); ++m)
    for (size_t k = 0; k < columns.size(); ++k)
      gains[m].push_back(coreset.lists[k].usableFor(table.modules[m].cxx) ? all[m][columns[k]]
                                                                        : -std::numeric_limits<double>::infinity());
  return gains;
}

double bestOfFirst(const std::vector<double> &gains, const std::vector<size_t> &ranking, size_t budget) {
  double best = 0;  // -Oz
  for (size_t k = 0; k < ranking.size() && k < budget; ++k) best = std::max(best, gains[ranking[k]]);
  return best;
}

fs::path defaultCoresetFile() { return dataPath(fs::path("configs") / "autotune" / "coreset.json"); }

}  // namespace mlgo::autotune
