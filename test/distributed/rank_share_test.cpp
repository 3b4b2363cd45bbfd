#include <catch2/catch.hpp>

#include <set>

#include "mlgo/distributed/rank_share.h"

using namespace mlgo;

TEST_CASE("rank share: every item goes to exactly one rank, interleaved", "[mpi]") {
  for (int size : {1, 2, 3, 5}) {
    std::multiset<size_t> seen;
    for (int rank = 0; rank < size; ++rank)
      for (size_t item : shareOfRank(11, rank, size)) {
        CHECK(int(item % size_t(size)) == rank);
        seen.insert(item);
      }
    CHECK(seen.size() == 11);
    CHECK(std::set<size_t>(seen.begin(), seen.end()).size() == 11);
  }
  CHECK(shareOfRank(7, 1, 3) == std::vector<size_t>{1, 4});
  CHECK(shareOfRank(2, 2, 3).empty());
}

TEST_CASE("rank share: an owner keeps an item on its rank whatever its place", "[mpi]") {
  // Corpus indices of one iteration's modules: a module stays on one rank.
  const std::vector<size_t> modules{9, 4, 7, 2, 12, 5};
  const ItemOwner owner = [&](size_t item) { return int(modules[item] % 3); };
  std::multiset<size_t> seen;
  for (int rank = 0; rank < 3; ++rank)
    for (size_t item : shareOfRank(modules.size(), rank, 3, owner)) {
      CHECK(int(modules[item] % 3) == rank);
      seen.insert(item);
    }
  CHECK(seen == std::multiset<size_t>{0, 1, 2, 3, 4, 5});
  CHECK(shareOfRank(modules.size(), 0, 3, owner) == std::vector<size_t>{0, 4});
  CHECK_THROWS_AS(shareOfRank(2, 0, 3, [](size_t) { return 3; }), std::logic_error);
}

TEST_CASE("rank share: a cluster of one runs all items itself, results in item order", "[mpi]") {
  const auto cluster = singleProcessCluster();
  CHECK_FALSE(cluster->distributed());
  std::vector<size_t> asked;
  const std::vector<std::string> results = gatherShares(*cluster, 4, [&](const std::vector<size_t> &items) {
    asked = items;
    std::vector<std::string> out;
    for (size_t item : items) out.push_back("item " + std::to_string(item));
    return out;
  });
  CHECK(asked == std::vector<size_t>{0, 1, 2, 3});
  CHECK(results == std::vector<std::string>{"item 0", "item 1", "item 2", "item 3"});
  CHECK_THROWS_AS(gatherShares(*cluster, 2, [](const std::vector<size_t> &) { return std::vector<std::string>{}; }),
                  std::logic_error);
  CHECK_THROWS_AS(cluster->receive(1), std::logic_error);
}
