#include "mlgo/training/es/distributed_es.h"

#include <cstring>
#include <stdexcept>

#include "mlgo/distributed/rank_share.h"
#include "mlgo/support/crc32c.h"
#include "mlgo/support/varint.h"

namespace mlgo {

namespace {

constexpr uint8_t kMeasure = 'M';
constexpr uint8_t kEnd = 'E';

/// Every compile of the request, candidate by candidate: the items the
/// ranks share.
std::vector<CandidateCompile> compilesOf(const MeasureRequest &request) {
  std::vector<CandidateCompile> compiles;
  for (size_t c = 0; c < request.candidates.size(); ++c)
    for (size_t module : request.modules) compiles.push_back({c, module});
  return compiles;
}

std::string encodeMeasure(const ModuleMeasure &measure) {
  std::string bytes;
  putVarint(bytes, uint64_t(measure.ok) | uint64_t(measure.replayed) << 1);
  putDouble(bytes, measure.value);
  return bytes;
}

ModuleMeasure decodeMeasure(std::string_view bytes) {
  ByteReader reader(bytes);
  ModuleMeasure measure;
  const uint64_t flags = reader.varint();
  measure.ok = flags & 1;
  measure.replayed = flags & 2;
  measure.value = reader.float64();
  if (!reader.atEnd()) throw ByteReader::DecodeError("trailing bytes after a measure");
  return measure;
}

/// This process's `items` of `compiles`, measured, encoded per item.
std::vector<std::string> measureShare(ESObjective &objective, const MeasureRequest &request,
                                      const std::vector<CandidateCompile> &compiles,
                                      const std::vector<size_t> &items) {
  std::vector<CandidateCompile> mine;
  for (size_t item : items) mine.push_back(compiles[item]);
  std::vector<std::string> encoded;
  for (const ModuleMeasure &measure : objective.measure(request.candidates, mine, request.iteration))
    encoded.push_back(encodeMeasure(measure));
  return encoded;
}

/// Which rank runs which compile. Compiles that may replay each other stay
/// with their module (corpus index mod ranks: its trajectories stay in one
/// rank's memo, as in a single process); the others are dealt out module by
/// module, each module's compiles round the ranks in turn, so a large
/// module's compiles spread over every rank.
ItemOwner compileOwner(const ESObjective &objective, const MeasureRequest &request,
                       const std::vector<CandidateCompile> &compiles, int ranks) {
  if (objective.replaysAcrossCandidates())
    return [&compiles, ranks](size_t item) { return int(compiles[item].module % size_t(ranks)); };
  const size_t candidates = request.candidates.size(), modules = request.modules.size();
  return [=](size_t item) {
    const size_t candidate = item / modules, module = item % modules;
    return int((module * candidates + candidate) % size_t(ranks));
  };
}

/// Tells the warm starts of two ranks apart (each rank reads --warmstart).
uint32_t warmstartFingerprint(const ESObjective &objective) {
  const std::vector<float> weights = objective.startWeights();
  return crc32c(weights.data(), weights.size() * sizeof(float));
}

}  // namespace

std::string encodeMeasureRequest(const MeasureRequest &request) {
  std::string bytes;
  putZigzag(bytes, request.iteration);
  putVarint(bytes, request.modules.size());
  for (size_t module : request.modules) putVarint(bytes, module);
  putVarint(bytes, request.candidates.size());
  for (const std::vector<float> &weights : request.candidates) {
    putVarint(bytes, weights.size());
    for (float weight : weights) putFloat(bytes, weight);
  }
  return bytes;
}

MeasureRequest decodeMeasureRequest(std::string_view bytes, size_t corpusSize) {
  ByteReader reader(bytes);
  MeasureRequest request;
  request.iteration = reader.zigzag();
  const uint64_t modules = reader.varint();
  if (modules > bytes.size()) throw ByteReader::DecodeError("implausible module count");
  for (uint64_t i = 0; i < modules; ++i) {
    const uint64_t module = reader.varint();
    if (module >= corpusSize)
      throw std::runtime_error("rank 0 asked for module " + std::to_string(module) + " of a corpus of " +
                               std::to_string(corpusSize) + ": do all ranks read the same corpus?");
    request.modules.push_back(size_t(module));
  }
  const uint64_t candidates = reader.varint();
  if (candidates > bytes.size()) throw ByteReader::DecodeError("implausible candidate count");
  for (uint64_t c = 0; c < candidates; ++c) {
    const uint64_t count = reader.varint();
    if (count > bytes.size()) throw ByteReader::DecodeError("implausible weight count");
    std::vector<float> &weights = request.candidates.emplace_back(size_t(count));
    for (float &weight : weights) weight = reader.float32();
  }
  if (!reader.atEnd()) throw ByteReader::DecodeError("trailing bytes after a measure request");
  return request;
}

CandidateMeasures measureCandidates(Cluster *cluster, ESObjective &objective, const MeasureRequest &request) {
  const std::vector<CandidateCompile> compiles = compilesOf(request);
  std::vector<ModuleMeasure> measured;
  if (!cluster || !cluster->distributed()) {
    measured = objective.measure(request.candidates, compiles, request.iteration);
  } else {
    std::string message(1, char(kMeasure));
    putVarint(message, warmstartFingerprint(objective));
    message += encodeMeasureRequest(request);
    sendToAll(*cluster, message);
    const ItemOwner owner = compileOwner(objective, request, compiles, cluster->size());
    const std::vector<std::string> encoded = gatherShares(
        *cluster, compiles.size(),
        [&](const std::vector<size_t> &items) { return measureShare(objective, request, compiles, items); }, owner);
    for (size_t i = 0; i < encoded.size(); ++i) {
      try {
        measured.push_back(decodeMeasure(encoded[i]));
      } catch (const ByteReader::DecodeError &e) {
        throw std::runtime_error("a measure from " + cluster->describe(owner(i)) + " is malformed (" + e.what() +
                                 "): do all ranks run the same mlgo version?");
      }
    }
  }
  CandidateMeasures measures(request.candidates.size());
  for (size_t i = 0; i < compiles.size(); ++i) measures[compiles[i].candidate].push_back(measured.at(i));
  return measures;
}

void serveCandidateMeasures(Cluster &cluster, ESObjective &objective, size_t corpusSize) {
  const uint32_t fingerprint = warmstartFingerprint(objective);
  for (;;) {
    const std::string message = cluster.receive(0);
    if (message.empty() || uint8_t(message[0]) == kEnd) return;
    if (uint8_t(message[0]) != kMeasure) throw std::runtime_error("unknown request from rank 0");
    MeasureRequest request;
    uint64_t leaderFingerprint = 0;
    try {
      ByteReader reader(std::string_view(message).substr(1));
      leaderFingerprint = reader.varint();
      request = decodeMeasureRequest(std::string_view(message).substr(1 + reader.position()), corpusSize);
    } catch (const ByteReader::DecodeError &e) {
      throw std::runtime_error(std::string("a measure request from rank 0 is malformed (") + e.what() +
                               "): do all ranks run the same mlgo version?");
    }
    // The weights travel, but the warm start's input normalization does not.
    if (leaderFingerprint != fingerprint)
      throw std::runtime_error(cluster.describe(cluster.rank()) + " read another --warmstart than rank 0 (" +
                               "its weights differ): every rank needs the same warm start at the same path");
    const std::vector<CandidateCompile> compiles = compilesOf(request);
    gatherShares(
        cluster, compiles.size(),
        [&](const std::vector<size_t> &items) { return measureShare(objective, request, compiles, items); },
        compileOwner(objective, request, compiles, cluster.size()));
  }
}

void endCandidateMeasures(Cluster &cluster) { sendToAll(cluster, std::string(1, char(kEnd))); }

}  // namespace mlgo
