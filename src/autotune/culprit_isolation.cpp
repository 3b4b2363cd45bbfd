#include "mlgo/autotune/culprit_isolation.h"

#include <algorithm>
#include <map>
#include <optional>

namespace mlgo::autotune {

namespace {

/// The answers ddmin asks for, each counted once, in the order the
/// sequential algorithm asks: an answer computed ahead (for parts the round
/// may ask next) is counted only when the algorithm gets to it, so the
/// checks counted and the result never depend on the batch size.
class Answers {
 public:
  Answers(const std::vector<int> &list, const BreaksMany &breaks, size_t maxChecks, size_t batch)
      : breaks_(breaks), maxChecks_(maxChecks), batch_(std::max<size_t>(batch, 1)) {
    counted_[list] = true;  // known to break
  }

  /// Whether `round[index]` breaks; nullopt once the checks are spent.
  std::optional<bool> brokenBy(const std::vector<std::vector<int>> &round, size_t index) {
    const std::vector<int> &candidate = round[index];
    if (auto found = counted_.find(candidate); found != counted_.end()) return found->second;
    if (checks_ == maxChecks_) return std::nullopt;
    if (!ahead_.count(candidate)) computeAhead(round, index);
    ++checks_;
    return counted_[candidate] = ahead_.at(candidate);
  }
  size_t checks() const { return checks_; }

 private:
  /// Asks for `round[index]` and the next parts of the round not known yet,
  /// as many as the batch and the checks left allow, in one call.
  void computeAhead(const std::vector<std::vector<int>> &round, size_t index) {
    std::vector<std::vector<int>> parts;
    for (size_t k = index; k < round.size() && parts.size() < std::min(batch_, maxChecks_ - checks_); ++k)
      if (!counted_.count(round[k]) && !ahead_.count(round[k]) &&
          std::find(parts.begin(), parts.end(), round[k]) == parts.end())
        parts.push_back(round[k]);
    const std::vector<bool> answers = breaks_(parts);
    for (size_t k = 0; k < parts.size(); ++k) ahead_[parts[k]] = answers.at(k);
  }

  const BreaksMany &breaks_;
  const size_t maxChecks_, batch_;
  size_t checks_ = 0;
  std::map<std::vector<int>, bool> counted_, ahead_;
};

/// A round's candidates in the order ddmin asks them: each part alone, then
/// (with more than two parts) each complement.
struct Round {
  std::vector<std::vector<int>> candidates;
  size_t partsAlone = 0;  ///< the first ones; the rest are complements
};

Round roundOf(const std::vector<int> &current, size_t parts) {
  const size_t chunk = (current.size() + parts - 1) / parts;
  Round round;
  for (int complement = 0; complement < 2; ++complement) {
    if (complement && parts == 2) break;  // with two parts the complements are the parts
    for (size_t start = 0; start < current.size(); start += chunk) {
      const size_t end = std::min(current.size(), start + chunk);
      std::vector<int> candidate;  // the part [start, end), or all but it
      for (size_t k = 0; k < current.size(); ++k)
        if ((k >= start && k < end) != bool(complement)) candidate.push_back(current[k]);
      round.candidates.push_back(std::move(candidate));
    }
    if (!complement) round.partsAlone = round.candidates.size();
  }
  return round;
}

}  // namespace

CulpritSearch isolateCulprit(const std::vector<int> &list, const BreaksMany &breaks, size_t maxChecks,
                             size_t batch) {
  Answers answers(list, breaks, maxChecks, batch);
  std::vector<int> current = list;
  size_t parts = 2;
  while (current.size() >= 2) {
    const Round round = roundOf(current, parts);
    bool reduced = false, outOfChecks = false;
    for (size_t index = 0; index < round.candidates.size(); ++index) {
      const std::optional<bool> broken = answers.brokenBy(round.candidates, index);
      if (!broken) {
        outOfChecks = true;
        break;
      }
      if (*broken) {
        current = round.candidates[index];
        parts = index >= round.partsAlone ? std::max<size_t>(parts - 1, 2) : 2;  // a complement keeps most parts
        reduced = true;
        break;
      }
    }
    if (outOfChecks) break;
    if (!reduced) {
      if (parts >= current.size()) break;  // every single pass was tried: 1-minimal
      parts = std::min(current.size(), parts * 2);
    }
  }
  return {current, answers.checks()};
}

std::vector<int> isolateCulprit(const std::vector<int> &list,
                                const std::function<bool(const std::vector<int> &)> &breaks, size_t maxChecks) {
  const BreaksMany oneByOne = [&](const std::vector<std::vector<int>> &parts) {
    std::vector<bool> answers;
    for (const std::vector<int> &part : parts) answers.push_back(breaks(part));
    return answers;
  };
  return isolateCulprit(list, oneByOne, maxChecks, 1).passes;
}

}  // namespace mlgo::autotune
