#include "mlgo/store/store_model.h"

#include <algorithm>
#include <cmath>
#include <queue>
#include <set>
#include <tuple>

namespace mlgo::store {

namespace {

/// One list a unit could ship: its shipped bytes and estimated compile cost.
struct Option {
  const StoredTrial *trial;
  int64_t bytes;
  uint64_t cost;
};

/// Among options as small and as cheap: the recorded level, then the
/// shorter pipeline, then the first in text order.
auto tieRank(const StoredTrial &trial) {
  return std::make_tuple(!trial.pipeline.empty(), trial.pipeline.size(), std::cref(trial.pipeline));
}

/// The unit's options that no other option beats in both bytes and cost,
/// cheapest first (so bytes fall as cost rises): the recorded level and the
/// accepted lists that ship fewer bytes than it. Empty when the recorded
/// level never compiled.
std::vector<Option> frontier(const StoredUnit &unit, const std::map<std::string, StoredVerdict> &verdicts) {
  auto recorded = unit.trials.find("");
  if (recorded == unit.trials.end() || !recorded->second.compiled) return {};
  const int64_t recordedBytes = shippedBytes(unit, recorded->second);
  std::vector<Option> options{{&recorded->second, recordedBytes, recorded->second.work}};
  for (const auto &[pipeline, trial] : unit.trials) {
    if (pipeline.empty() || !trial.compiled) continue;
    auto verdict = verdicts.find(pipeline);
    if (verdict == verdicts.end() || !verdict->second.acceptsFor(unit.cxx)) continue;
    // A list that saves nothing is not worth the risk of applying it.
    if (const int64_t bytes = shippedBytes(unit, trial); bytes < recordedBytes)
      options.push_back({&trial, bytes, trial.work});
  }
  std::sort(options.begin(), options.end(), [](const Option &a, const Option &b) {
    return std::make_tuple(a.cost, a.bytes, tieRank(*a.trial)) < std::make_tuple(b.cost, b.bytes, tieRank(*b.trial));
  });
  std::vector<Option> kept;
  for (const Option &option : options)
    if (kept.empty() || option.bytes < kept.back().bytes) kept.push_back(option);
  return kept;
}

/// Of a frontier: the points on its lower convex hull, where each step up
/// in cost saves fewer bytes per nanosecond than the one before.
std::vector<Option> lowerHull(const std::vector<Option> &points) {
  std::vector<Option> hull;
  for (const Option &point : points) {
    // The middle of three points leaves the hull when it lies on or above
    // the line between the other two.
    while (hull.size() >= 2) {
      const Option &a = hull[hull.size() - 2], &b = hull.back();
      const double cross = double(b.cost - a.cost) * double(point.bytes - a.bytes) -
                           double(b.bytes - a.bytes) * double(point.cost - a.cost);
      if (cross > 0) break;
      hull.pop_back();
    }
    hull.push_back(point);
  }
  return hull;
}

/// A unit's next step up its hull: bytes saved per nanosecond.
struct Step {
  double efficiency;
  size_t unit;
  size_t to;  ///< the hull point it reaches
};

}  // namespace

int64_t shippedBytes(const StoredUnit &unit, const StoredTrial &trial) {
  if (trial.kept) return int64_t(trial.kept->textPlusData());
  auto recorded = unit.trials.find("");
  const int64_t dropped = recorded != unit.trials.end() && recorded->second.kept
                              ? int64_t(recorded->second.sizes.textPlusData()) -
                                    int64_t(recorded->second.kept->textPlusData())
                              : 0;
  return int64_t(trial.sizes.textPlusData()) - dropped;
}

std::vector<const StoredUnit *> currentUnits(const std::vector<StoredUnit> &units) {
  std::map<std::string, const StoredUnit *> byModule;
  for (const StoredUnit &unit : units) {
    const StoredUnit *&current = byModule[unit.module];
    if (!current || std::make_tuple(unit.used, current->key) > std::make_tuple(current->used, unit.key))
      current = &unit;
  }
  std::vector<const StoredUnit *> current;
  for (const auto &[module, unit] : byModule) current.push_back(unit);
  std::sort(current.begin(), current.end(), [](const StoredUnit *a, const StoredUnit *b) { return a->key < b->key; });
  return current;
}

std::map<std::string, std::string> chooseForBuild(const std::vector<const StoredUnit *> &units,
                                                 const std::map<std::string, StoredVerdict> &verdicts,
                                                 double costBound) {
  std::vector<std::vector<Option>> frontiers, hulls;
  std::vector<size_t> at;  // each unit's hull point
  double budget = 0, spent = 0;
  for (const StoredUnit *unit : units) {
    frontiers.push_back(frontier(*unit, verdicts));
    hulls.push_back(lowerHull(frontiers.back()));
    at.push_back(0);
    if (frontiers.back().empty()) continue;
    budget += costBound * double(unit->trials.at("").work);
    spent += double(hulls.back().front().cost);  // the cheapest point is no dearer than the recorded level
  }
  // Steps up each hull save fewer bytes per nanosecond the higher they go,
  // so taking every step in order of efficiency takes each unit's in turn.
  std::vector<Step> steps;
  for (size_t u = 0; u < hulls.size(); ++u)
    for (size_t to = 1; to < hulls[u].size(); ++to) {
      const Option &from = hulls[u][to - 1], &next = hulls[u][to];
      steps.push_back({double(from.bytes - next.bytes) / double(std::max<uint64_t>(1, next.cost - from.cost)), u, to});
    }
  std::stable_sort(steps.begin(), steps.end(), [](const Step &a, const Step &b) { return a.efficiency > b.efficiency; });
  std::vector<bool> blocked(hulls.size(), false);
  for (const Step &step : steps) {
    if (blocked[step.unit] || at[step.unit] + 1 != step.to) continue;
    const double extra = double(hulls[step.unit][step.to].cost - hulls[step.unit][step.to - 1].cost);
    if (spent + extra > budget) {
      blocked[step.unit] = true;  // its later steps need this one
      continue;
    }
    spent += extra;
    at[step.unit] = step.to;
  }
  // What is left of the budget: a smaller point off the hull where one fits.
  std::vector<const Option *> chosen(hulls.size(), nullptr);
  for (size_t u = 0; u < hulls.size(); ++u)
    if (!hulls[u].empty()) chosen[u] = &hulls[u][at[u]];
  for (size_t u = 0; u < hulls.size(); ++u) {
    if (!chosen[u]) continue;
    const Option *best = chosen[u];
    for (const Option &option : frontiers[u])
      if (option.bytes < best->bytes && option.cost > chosen[u]->cost &&
          spent + double(option.cost - chosen[u]->cost) <= budget)
        best = &option;
    if (best != chosen[u]) spent += double(best->cost - chosen[u]->cost);
    chosen[u] = best;
  }
  std::map<std::string, std::string> choices;
  for (size_t u = 0; u < units.size(); ++u)
    if (chosen[u]) choices[units[u]->key] = chosen[u]->trial->pipeline;
  return choices;
}

bool affordableInBuild(const StoredUnit &unit, const StoredTrial &trial, const std::vector<const StoredUnit *> &units,
                       double costBound) {
  auto recorded = unit.trials.find("");
  if (recorded == unit.trials.end()) return false;
  double plain = 0;
  for (const StoredUnit *member : units)
    if (auto level = member->trials.find(""); level != member->trials.end()) plain += double(level->second.work);
  // A unit not yet among the build's (its first compile) adds its own cost.
  if (std::none_of(units.begin(), units.end(), [&unit](const StoredUnit *member) { return member->key == unit.key; }))
    plain += double(recorded->second.work);
  return double(trial.work) <= double(recorded->second.work) + (costBound - 1) * plain;
}

std::optional<std::string> chooseTrial(const StoredUnit &unit, const std::map<std::string, StoredVerdict> &verdicts,
                                       double costBound) {
  const std::map<std::string, std::string> choices = chooseForBuild({&unit}, verdicts, costBound);
  if (choices.empty()) return std::nullopt;
  return choices.begin()->second;
}

namespace {

/// What the exploration model knows of one unit.
struct ExplorationState {
  double scale = 0;  ///< bytes times G
  size_t tried = 0;
  size_t limit = 0;  ///< trials it may take in this build
  double cost = 1;   ///< of one trial: its recorded level's estimated compile
  bool known = false;  ///< its recorded level compiled: it counts in the build's cost
  bool explorable() const { return limit > 0; }
};

ExplorationState explorationState(const StoredUnit &unit, size_t perUnit, size_t budget) {
  ExplorationState state;
  auto recorded = unit.trials.find("");
  if (recorded == unit.trials.end() || !recorded->second.compiled) return state;
  state.known = true;
  state.cost = std::max(1.0, double(recorded->second.work));
  state.tried = unit.trials.size() - 1;
  if (state.tried >= budget) return state;  // decided
  state.limit = std::min(budget - state.tried, kMaxShareFactor * perUnit);
  const int64_t recordedBytes = shippedBytes(unit, recorded->second);
  const double bytes = double(std::max<int64_t>(0, recordedBytes));
  int64_t smallest = recordedBytes;
  for (const auto &[pipeline, trial] : unit.trials)
    if (trial.compiled) smallest = std::min(smallest, shippedBytes(unit, trial));
  const double found = bytes > 0 ? 1.0 - double(std::max<int64_t>(0, smallest)) / bytes : 0.0;
  // What its trials found, extrapolated to the whole budget along log(1+k).
  const double curve = std::log1p(double(budget));
  const double extrapolated = state.tried > 0 ? found * curve / std::log1p(double(state.tried)) : 0.0;
  state.scale = bytes * std::min(1.0, std::max(kPriorSearchGain, extrapolated));
  return state;
}

/// The expected gain of the unit's k-th trial of this build.
double trialGain(const ExplorationState &state, size_t k, size_t budget) {
  const double done = double(state.tried + k);
  return state.scale * std::log((2 + done) / (1 + done)) / std::log1p(double(std::max<size_t>(budget, 1)));
}

}  // namespace

double explorationPrice(const std::vector<const StoredUnit *> &units, size_t perUnit, size_t budget) {
  struct Claim {
    double gain;
    size_t unit;
    bool operator<(const Claim &other) const {  // the largest gain, then the first unit, on top
      return std::make_tuple(gain, -int64_t(unit)) < std::make_tuple(other.gain, -int64_t(other.unit));
    }
  };
  std::vector<ExplorationState> states;
  std::vector<size_t> taken(units.size(), 0);
  std::priority_queue<Claim> claims;
  double total = 0;
  for (size_t u = 0; u < units.size(); ++u) {
    states.push_back(explorationState(*units[u], perUnit, budget));
    if (states[u].known) total += states[u].cost;
    if (states[u].explorable()) claims.push({trialGain(states[u], 0, budget), u});
  }
  total *= double(perUnit);
  double spent = 0;
  while (!claims.empty()) {
    const Claim claim = claims.top();
    claims.pop();
    if (spent + states[claim.unit].cost > total) return claim.gain;
    spent += states[claim.unit].cost;
    if (++taken[claim.unit] < states[claim.unit].limit)
      claims.push({trialGain(states[claim.unit], taken[claim.unit], budget), claim.unit});
  }
  return 0;
}

size_t explorationShare(const StoredUnit &unit, double price, size_t perUnit, size_t budget) {
  const ExplorationState state = explorationState(unit, perUnit, budget);
  size_t share = 0;
  while (share < state.limit && trialGain(state, share, budget) > price) ++share;
  return share;
}

std::map<std::string, size_t> explorationShares(const std::vector<const StoredUnit *> &units, size_t perUnit,
                                                size_t budget) {
  const double price = explorationPrice(units, perUnit, budget);
  std::map<std::string, size_t> shares;
  for (const StoredUnit *unit : units) shares[unit->key] = explorationShare(*unit, price, perUnit, budget);
  return shares;
}

std::vector<std::string> unitsToRemove(const std::vector<StoredUnit> &units,
                                       const std::map<std::string, uint64_t> &footprint, uint64_t bytes,
                                       uint64_t maxBytes, int64_t keepUsedSince) {
  std::set<std::string> current;
  for (const StoredUnit *unit : currentUnits(units)) current.insert(unit->key);
  std::vector<const StoredUnit *> order;
  for (const StoredUnit &unit : units) order.push_back(&unit);
  std::sort(order.begin(), order.end(), [&current](const StoredUnit *a, const StoredUnit *b) {
    return std::make_tuple(current.count(a->key), a->used, a->key) <
           std::make_tuple(current.count(b->key), b->used, b->key);
  });
  std::vector<std::string> removed;
  for (const StoredUnit *unit : order) {
    if (bytes <= maxBytes) break;
    if (unit->used >= keepUsedSince) continue;
    auto size = footprint.find(unit->key);
    const uint64_t freed = size == footprint.end() ? 0 : size->second;
    bytes -= std::min(bytes, freed);
    removed.push_back(unit->key);
  }
  return removed;
}

}  // namespace mlgo::store
