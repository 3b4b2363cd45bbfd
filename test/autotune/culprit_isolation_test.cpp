#include <catch2/catch.hpp>

#include <algorithm>

#include "mlgo/autotune/culprit_isolation.h"

using namespace mlgo::autotune;

namespace {

/// Whether `pattern` occurs in `list` in order, gaps allowed.
bool containsSubsequence(const std::vector<int> &list, const std::vector<int> &pattern) {
  size_t matched = 0;
  for (size_t i = 0; i < list.size() && matched < pattern.size(); ++i) matched += list[i] == pattern[matched];
  return matched == pattern.size();
}

/// Counts the checks and records every part asked about.
struct CountingPredicate {
  std::function<bool(const std::vector<int> &)> rule;
  std::vector<std::vector<int>> asked;
  bool operator()(const std::vector<int> &part) {
    asked.push_back(part);
    return rule(part);
  }
};

}  // namespace

TEST_CASE("culprit isolation: finds the one pass or the ordered pair that breaks a program", "[autotune][culprit]") {
  const std::vector<int> list{10, 11, 12, 13, 14, 15, 16, 17, 18, 19};
  CountingPredicate single{[](const std::vector<int> &part) { return containsSubsequence(part, {15}); }, {}};
  CHECK(isolateCulprit(list, std::ref(single), 64) == std::vector<int>{15});
  // Each part is asked once, the whole list never (it is known to break).
  std::vector<std::vector<int>> asked = single.asked;
  std::sort(asked.begin(), asked.end());
  CHECK(std::adjacent_find(asked.begin(), asked.end()) == asked.end());
  CHECK(std::find(asked.begin(), asked.end(), list) == asked.end());
  CHECK(single.asked.size() < list.size());  // bisection, not one pass at a time

  // Two passes that break only together and only in this order (a pass that
  // leaves IR another one mishandles).
  CountingPredicate pair{[](const std::vector<int> &part) { return containsSubsequence(part, {12, 18}); }, {}};
  CHECK(isolateCulprit(list, std::ref(pair), 64) == std::vector<int>{12, 18});

  // A repeated pass: the culprit is a pass run twice.
  CountingPredicate twice{[](const std::vector<int> &part) { return containsSubsequence(part, {7, 7}); }, {}};
  CHECK(isolateCulprit({7, 3, 7, 4}, std::ref(twice), 64) == std::vector<int>{7, 7});
}

TEST_CASE("culprit isolation: a flaky failure or no checks left keeps a part that broke", "[autotune][culprit]") {
  const std::vector<int> list{1, 2, 3, 4, 5, 6};
  // The failure does not come back on any part (a flaky program): the whole list.
  CHECK(isolateCulprit(list, [](const std::vector<int> &) { return false; }, 64) == list);
  CHECK(isolateCulprit(list, [](const std::vector<int> &) { return true; }, 0) == list);
  // Out of checks part way: what it returns was seen to break.
  CountingPredicate breaksWith5{[](const std::vector<int> &part) { return containsSubsequence(part, {5}); }, {}};
  const std::vector<int> partial = isolateCulprit(list, std::ref(breaksWith5), 2);
  CHECK(breaksWith5.asked.size() <= 2);
  CHECK(containsSubsequence(partial, {5}));
  CHECK(partial.size() < list.size());
  // A one-pass list is already minimal: nothing to ask.
  CountingPredicate never{[](const std::vector<int> &) { return true; }, {}};
  CHECK(isolateCulprit({9}, std::ref(never), 64) == std::vector<int>{9});
  CHECK(never.asked.empty());
}

TEST_CASE("culprit isolation: asking several parts at once finds the same culprit with the same checks counted",
          "[autotune][culprit]") {
  const std::vector<int> list{10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21};
  for (const std::vector<int> &pattern : {std::vector<int>{15}, std::vector<int>{12, 18}, std::vector<int>{10, 21}}) {
    INFO("culprit of " << pattern.size() << " passes");
    CountingPredicate oneByOne{[&](const std::vector<int> &part) { return containsSubsequence(part, pattern); }, {}};
    const std::vector<int> sequential = isolateCulprit(list, std::ref(oneByOne), 64);
    CHECK(sequential == pattern);
    for (size_t batch : {1, 2, 3, 8}) {
      INFO("batch " << batch);
      size_t asked = 0, largestCall = 0;
      const CulpritSearch found = isolateCulprit(
          list,
          [&](const std::vector<std::vector<int>> &parts) {
            asked += parts.size();
            largestCall = std::max(largestCall, parts.size());
            std::vector<bool> answers;
            for (const std::vector<int> &part : parts) answers.push_back(containsSubsequence(part, pattern));
            return answers;
          },
          64, batch);
      CHECK(found.passes == sequential);
      CHECK(found.checks == oneByOne.asked.size());  // answers asked ahead and not needed are not counted
      CHECK(asked >= found.checks);
      CHECK(largestCall <= batch);
    }
  }
  // The checks run out at the same point whatever the batch.
  const auto breaksWith5 = [](const std::vector<int> &part) { return containsSubsequence(part, {5}); };
  const std::vector<int> six{1, 2, 3, 4, 5, 6};
  const BreaksMany many = [&](const std::vector<std::vector<int>> &parts) {
    std::vector<bool> answers;
    for (const std::vector<int> &part : parts) answers.push_back(breaksWith5(part));
    return answers;
  };
  CHECK(isolateCulprit(six, many, 2, 4).passes == isolateCulprit(six, breaksWith5, 2));
  CHECK(isolateCulprit(six, many, 2, 4).checks == 2);
}
