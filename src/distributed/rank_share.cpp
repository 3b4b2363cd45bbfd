#include "mlgo/distributed/rank_share.h"

#include <stdexcept>

#include "mlgo/support/varint.h"

namespace mlgo {

std::vector<size_t> shareOfRank(size_t count, int rank, int size, const ItemOwner &owner) {
  std::vector<size_t> items;
  if (!owner) {
    for (size_t i = size_t(rank); i < count; i += size_t(size)) items.push_back(i);
    return items;
  }
  for (size_t i = 0; i < count; ++i) {
    const int itemRank = owner(i);
    if (itemRank < 0 || itemRank >= size)
      throw std::logic_error("shareOfRank: item " + std::to_string(i) + " has no rank " + std::to_string(itemRank));
    if (itemRank == rank) items.push_back(i);
  }
  return items;
}

std::vector<std::string> gatherShares(Cluster &cluster, size_t count, const ShareWork &work,
                                      const ItemOwner &owner) {
  const int size = cluster.size();
  const std::vector<size_t> mine = shareOfRank(count, cluster.rank(), size, owner);
  std::vector<std::string> own = work(mine);
  if (own.size() != mine.size())
    throw std::logic_error("gatherShares: the work returned " + std::to_string(own.size()) + " results for " +
                           std::to_string(mine.size()) + " items");
  if (!cluster.isLeader()) {
    std::string message;
    putVarint(message, own.size());
    for (const std::string &result : own) putBytes(message, result);
    cluster.send(0, message);
    return {};
  }
  std::vector<std::string> all(count);
  for (size_t k = 0; k < mine.size(); ++k) all[mine[k]] = std::move(own[k]);
  for (int rank = 1; rank < size; ++rank) {
    const std::string message = cluster.receive(rank);
    const std::vector<size_t> theirs = shareOfRank(count, rank, size, owner);
    try {
      ByteReader reader(message);
      if (reader.varint() != theirs.size()) throw ByteReader::DecodeError("wrong number of results");
      for (size_t item : theirs) all[item] = std::string(reader.bytes());
      if (!reader.atEnd()) throw ByteReader::DecodeError("trailing bytes");
    } catch (const ByteReader::DecodeError &e) {
      throw std::runtime_error("the results of " + cluster.describe(rank) + " are malformed (" + e.what() +
                               "): do all ranks run the same mlgo version on the same corpus?");
    }
  }
  return all;
}

void sendToAll(Cluster &cluster, std::string_view bytes) {
  for (int rank = 1; rank < cluster.size(); ++rank) cluster.send(rank, bytes);
}

}  // namespace mlgo
