#pragma once
// Dividing a stage's work among the ranks of a run. Items are interleaved
// (item i goes to rank i mod size), so a corpus sorted by project spreads its
// large and small modules evenly. Rank 0 puts every item's result back in
// item order, so what it writes does not depend on the number of ranks.
#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "mlgo/distributed/cluster.h"

namespace mlgo {

/// Which rank works on an item (for every rank the same answer).
using ItemOwner = std::function<int(size_t item)>;

/// The items of `count` that `rank` of `size` works on, ascending: item i
/// goes to rank `owner(i)`, or to rank i mod size without an owner.
std::vector<size_t> shareOfRank(size_t count, int rank, int size, const ItemOwner &owner = nullptr);

/// Encoded results of a rank's items, one per item in the order given.
using ShareWork = std::function<std::vector<std::string>(const std::vector<size_t> &items)>;

/// Every rank runs `work` on its share of `count` items (shareOfRank with
/// `owner`). Rank 0 returns all `count` results in item order; the other
/// ranks send theirs to rank 0 and return an empty vector. Throws RankLost
/// (a silent rank) and std::runtime_error for a reply that does not fit its
/// share.
std::vector<std::string> gatherShares(Cluster &cluster, size_t count, const ShareWork &work,
                                      const ItemOwner &owner = nullptr);

/// Rank 0 sends `bytes` to every other rank.
void sendToAll(Cluster &cluster, std::string_view bytes);

}  // namespace mlgo
