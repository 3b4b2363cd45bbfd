#include "mlgo/training/distributed_es.h"

#include <cstring>
#include <stdexcept>

#include "mlgo/distributed/rank_share.h"
#include "mlgo/support/crc32c.h"
#include "mlgo/support/varint.h"

namespace mlgo {

namespace {

constexpr uint8_t kMeasure = 'M';
constexpr uint8_t kEnd = 'E';

template <typename Bits, typename Value>
Bits bitsOf(Value value) {
  static_assert(sizeof(Bits) == sizeof(Value));
  Bits bits;
  std::memcpy(&bits, &value, sizeof bits);
  return bits;
}

template <typename Value, typename Bits>
Value valueOf(Bits bits) {
  Value value;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}

/// One module's measures under every candidate, in candidate order.
std::string encodeModuleMeasures(const CandidateMeasures &measures, size_t module) {
  std::string bytes;
  for (const std::vector<ModuleMeasure> &candidate : measures) {
    const ModuleMeasure &measure = candidate[module];
    putVarint(bytes, uint64_t(measure.ok) | uint64_t(measure.replayed) << 1);
    putVarint(bytes, bitsOf<uint64_t>(measure.value));
  }
  return bytes;
}

void decodeModuleMeasures(std::string_view bytes, size_t module, CandidateMeasures &measures) {
  ByteReader reader(bytes);
  for (std::vector<ModuleMeasure> &candidate : measures) {
    const uint64_t flags = reader.varint();
    candidate[module].ok = flags & 1;
    candidate[module].replayed = flags & 2;
    candidate[module].value = valueOf<double>(reader.varint());
  }
  if (!reader.atEnd()) throw ByteReader::DecodeError("trailing bytes after a module's measures");
}

/// This process's modules `items` of `request`, every candidate, encoded per item.
std::vector<std::string> measureShare(ESObjective &objective, const MeasureRequest &request,
                                      const std::vector<size_t> &items) {
  std::vector<size_t> modules;
  for (size_t item : items) modules.push_back(request.modules[item]);
  CandidateMeasures measures;
  for (const std::vector<float> &weights : request.candidates)
    measures.push_back(objective.measure(weights, modules, request.iteration));
  std::vector<std::string> encoded;
  for (size_t k = 0; k < items.size(); ++k) encoded.push_back(encodeModuleMeasures(measures, k));
  return encoded;
}

/// Tells the warm starts of two ranks apart (each rank reads --warmstart).
uint32_t warmstartFingerprint(const ESObjective &objective) {
  const std::vector<float> weights = objective.startWeights();
  return crc32c(weights.data(), weights.size() * sizeof(float));
}

ItemOwner moduleOwner(const MeasureRequest &request, int ranks) {
  return [&request, ranks](size_t item) { return int(request.modules[item] % size_t(ranks)); };
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
    for (float weight : weights) putVarint(bytes, bitsOf<uint32_t>(weight));
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
    for (float &weight : weights) weight = valueOf<float>(uint32_t(reader.varint()));
  }
  if (!reader.atEnd()) throw ByteReader::DecodeError("trailing bytes after a measure request");
  return request;
}

CandidateMeasures measureCandidates(Cluster *cluster, ESObjective &objective, const MeasureRequest &request) {
  if (!cluster || !cluster->distributed()) {
    CandidateMeasures measures;
    for (const std::vector<float> &weights : request.candidates)
      measures.push_back(objective.measure(weights, request.modules, request.iteration));
    return measures;
  }
  std::string message(1, char(kMeasure));
  putVarint(message, warmstartFingerprint(objective));
  message += encodeMeasureRequest(request);
  sendToAll(*cluster, message);
  const std::vector<std::string> encoded = gatherShares(
      *cluster, request.modules.size(),
      [&](const std::vector<size_t> &items) { return measureShare(objective, request, items); },
      moduleOwner(request, cluster->size()));
  CandidateMeasures measures(request.candidates.size(), std::vector<ModuleMeasure>(request.modules.size()));
  for (size_t i = 0; i < encoded.size(); ++i) {
    try {
      decodeModuleMeasures(encoded[i], i, measures);
    } catch (const ByteReader::DecodeError &e) {
      throw std::runtime_error("the measures of module " + std::to_string(request.modules[i]) + " from " +
                               cluster->describe(moduleOwner(request, cluster->size())(i)) + " are malformed (" +
                               e.what() + "): do all ranks run the same mlgo version?");
    }
  }
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
    gatherShares(
        cluster, request.modules.size(),
        [&](const std::vector<size_t> &items) { return measureShare(objective, request, items); },
        moduleOwner(request, cluster.size()));
  }
}

void endCandidateMeasures(Cluster &cluster) { sendToAll(cluster, std::string(1, char(kEnd))); }

}  // namespace mlgo
