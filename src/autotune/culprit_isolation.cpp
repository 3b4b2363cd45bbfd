#include "mlgo/autotune/culprit_isolation.h"

#include <algorithm>
#include <map>
#include <optional>

namespace mlgo::autotune {

std::vector<int> isolateCulprit(const std::vector<int> &list,
                                const std::function<bool(const std::vector<int> &)> &breaks, size_t maxChecks) {
  std::map<std::vector<int>, bool> checked{{list, true}};
  size_t checks = 0;
  // nullopt once the checks are spent: the caller stops where it is.
  auto brokenBy = [&](const std::vector<int> &candidate) -> std::optional<bool> {
    auto found = checked.find(candidate);
    if (found != checked.end()) return found->second;
    if (checks == maxChecks) return std::nullopt;
    ++checks;
    return checked[candidate] = breaks(candidate);
  };

  std::vector<int> current = list;
  size_t parts = 2;
  while (current.size() >= 2) {
    const size_t chunk = (current.size() + parts - 1) / parts;
    bool reduced = false, outOfChecks = false;
    // First each part alone, then (with more than two parts) each complement.
    for (int complement = 0; complement < 2 && !reduced && !outOfChecks; ++complement) {
      if (complement && parts == 2) break;  // with two parts the complements are the parts
      for (size_t start = 0; start < current.size(); start += chunk) {
        const size_t end = std::min(current.size(), start + chunk);
        std::vector<int> candidate;  // the part [start, end), or all but it
        for (size_t k = 0; k < current.size(); ++k)
          if ((k >= start && k < end) != bool(complement)) candidate.push_back(current[k]);
        const std::optional<bool> broken = brokenBy(candidate);
        if (!broken) {
          outOfChecks = true;
          break;
        }
        if (*broken) {
          current = candidate;
          parts = complement ? std::max<size_t>(parts - 1, 2) : 2;
          reduced = true;
          break;
        }
      }
    }
    if (outOfChecks) break;
    if (!reduced) {
      if (parts >= current.size()) break;  // every single pass was tried: 1-minimal
      parts = std::min(current.size(), parts * 2);
    }
  }
  return current;
}

}  // namespace mlgo::autotune
