#include "mlgo/training/ppo/distributed_collection.h"

#include <cstring>
#include <optional>
#include <stdexcept>

#include "mlgo/distributed/rank_share.h"
#include "mlgo/driver/compile_worker.h"
#include "mlgo/support/varint.h"
#include "mlgo/training/shared/trajectory_memo.h"

namespace mlgo {

namespace {

constexpr uint8_t kCollect = 'C';
constexpr uint8_t kEnd = 'E';

std::string encodePlan(const CollectionPlan &plan) {
  std::string bytes;
  putVarint(bytes, plan.seed);
  putVarint(bytes, plan.iteration);
  putVarint(bytes, plan.modules.size());
  for (size_t i = 0; i < plan.modules.size(); ++i) {
    putVarint(bytes, plan.modules[i]);
    putVarint(bytes, plan.needsDefault.at(i));
  }
  return bytes;
}

CollectionPlan decodePlan(ByteReader &reader, size_t corpusSize) {
  CollectionPlan plan;
  plan.seed = reader.varint();
  plan.iteration = reader.varint();
  const uint64_t count = reader.varint();
  for (uint64_t i = 0; i < count; ++i) {
    const uint64_t module = reader.varint();
    if (module >= corpusSize)
      throw std::runtime_error("rank 0 asked for module " + std::to_string(module) + " of a corpus of " +
                               std::to_string(corpusSize) + ": do all ranks read the same corpus?");
    plan.modules.push_back(size_t(module));
    plan.needsDefault.push_back(reader.varint() != 0);
  }
  return plan;
}

/// The plan entries `items` of `plan`, as a plan of their own.
CollectionPlan subPlan(const CollectionPlan &plan, const std::vector<size_t> &items) {
  CollectionPlan part;
  part.seed = plan.seed;
  part.iteration = plan.iteration;
  part.trajectories = plan.trajectories;
  for (size_t item : items) {
    part.modules.push_back(plan.modules[item]);
    part.needsDefault.push_back(plan.needsDefault[item]);
  }
  return part;
}

/// This rank's share of one iteration, encoded, in item order.
std::vector<std::string> collectShare(const CompilerDriver &driver, const Corpus &corpus, const Problem &problem,
                                      const SamplingPolicy &policy, const CollectionPlan &plan,
                                      const std::vector<size_t> &items, const CompilerDriver::Progress &progress) {
  std::vector<std::string> encoded;
  for (const CollectedModule &module :
       collectTrajectories(driver, corpus, problem, policy, subPlan(plan, items), progress))
    encoded.push_back(encodeCollectedModule(module));
  return encoded;
}

void putMeasures(std::string &bytes, const std::map<std::string, double> &measures) {
  putVarint(bytes, measures.size());
  for (const auto &[name, value] : measures) {
    putBytes(bytes, name);
    putDouble(bytes, value);
  }
}

std::map<std::string, double> readMeasures(ByteReader &reader) {
  std::map<std::string, double> measures;
  const uint64_t count = reader.varint();
  for (uint64_t i = 0; i < count; ++i) {
    const std::string name(reader.bytes());
    measures[name] = reader.float64();
  }
  return measures;
}

void putSegmentMeasures(std::string &bytes, const SegmentMeasures &measures) {
  putVarint(bytes, measures.size());
  for (const auto &[name, segments] : measures) {
    putBytes(bytes, name);
    putMeasures(bytes, segments);
  }
}

SegmentMeasures readSegmentMeasures(ByteReader &reader) {
  SegmentMeasures measures;
  const uint64_t count = reader.varint();
  for (uint64_t i = 0; i < count; ++i) {
    const std::string name(reader.bytes());
    measures[name] = readMeasures(reader);
  }
  return measures;
}

void putSegments(std::string &bytes, const std::vector<Trajectory::Segment> &segments) {
  putVarint(bytes, segments.size());
  for (const Trajectory::Segment &segment : segments) {
    putVarint(bytes, segment.firstDecision);
    putBytes(bytes, segment.key);
  }
}

std::vector<Trajectory::Segment> readSegments(ByteReader &reader, size_t decisions) {
  std::vector<Trajectory::Segment> segments(size_t(reader.varint()));
  if (segments.size() > decisions + 1) throw ByteReader::DecodeError("more segments than decisions");
  for (Trajectory::Segment &segment : segments) {
    segment.firstDecision = size_t(reader.varint());
    if (segment.firstDecision > decisions) throw ByteReader::DecodeError("a segment past the last decision");
    segment.key = std::string(reader.bytes());
  }
  return segments;
}

/// Floats by their bits, so a trajectory crosses ranks exactly.
void putFloats(std::string &bytes, const std::vector<float> &values) {
  bytes.append(reinterpret_cast<const char *>(values.data()), values.size() * sizeof(float));
}

std::vector<float> readFloats(ByteReader &reader, size_t count) {
  std::vector<float> values(count);
  for (float &value : values) {
    char raw[sizeof(float)];
    for (char &byte : raw) byte = static_cast<char>(reader.byte());
    std::memcpy(&value, raw, sizeof value);
  }
  return values;
}

}  // namespace

std::string encodeCollectedModule(const CollectedModule &module) {
  std::string bytes;
  putVarint(bytes, module.module);
  putBytes(bytes, encodeCompileReply(module.result));
  const Trajectory &trajectory = module.trajectory;
  putVarint(bytes, trajectory.featureCount);
  putVarint(bytes, trajectory.actionCount);
  putVarint(bytes, trajectory.decisions());
  for (int64_t value : trajectory.features) putZigzag(bytes, value);
  bytes.append(reinterpret_cast<const char *>(trajectory.actions.data()), trajectory.actions.size());
  putFloats(bytes, trajectory.logits);
  if (!trajectory.actionCount) {
    putFloats(bytes, trajectory.outputs);
    putFloats(bytes, trajectory.means);
    putFloats(bytes, {trajectory.logStd});
  }
  putSegments(bytes, trajectory.segments);
  putMeasures(bytes, module.measures);
  putSegmentMeasures(bytes, module.segmentMeasures);
  putVarint(bytes, module.defaultResult.has_value());
  if (module.defaultResult) putBytes(bytes, encodeCompileReply(*module.defaultResult));
  putMeasures(bytes, module.defaultMeasures);
  putSegmentMeasures(bytes, module.defaultSegmentMeasures);
  return bytes;
}

CollectedModule decodeCollectedModule(std::string_view bytes) {
  ByteReader reader(bytes);
  CollectedModule module;
  module.module = size_t(reader.varint());
  module.result = decodeCompileReply(std::string(reader.bytes()));
  Trajectory &trajectory = module.trajectory;
  trajectory.featureCount = size_t(reader.varint());
  trajectory.actionCount = size_t(reader.varint());
  const uint64_t decisions = reader.varint();
  if (trajectory.featureCount > 4096 || trajectory.actionCount > 256 || decisions > bytes.size())
    throw ByteReader::DecodeError("implausible trajectory shape");
  trajectory.features.resize(size_t(decisions) * trajectory.featureCount);
  for (int64_t &value : trajectory.features) value = reader.zigzag();
  const size_t choices = trajectory.actionCount ? size_t(decisions) : 0;
  trajectory.actions.resize(choices);
  for (uint8_t &action : trajectory.actions) action = reader.byte();
  trajectory.logits = readFloats(reader, choices * trajectory.actionCount);
  if (!trajectory.actionCount) {
    trajectory.outputs = readFloats(reader, size_t(decisions));
    trajectory.means = readFloats(reader, size_t(decisions));
    trajectory.logStd = readFloats(reader, 1)[0];
  }
  trajectory.segments = readSegments(reader, size_t(decisions));
  module.measures = readMeasures(reader);
  module.segmentMeasures = readSegmentMeasures(reader);
  if (reader.varint()) module.defaultResult = decodeCompileReply(std::string(reader.bytes()));
  module.defaultMeasures = readMeasures(reader);
  module.defaultSegmentMeasures = readSegmentMeasures(reader);
  if (!reader.atEnd()) throw ByteReader::DecodeError("trailing bytes after a collected module");
  return module;
}

std::vector<CollectedModule> collectAcrossRanks(Cluster &cluster, const CompilerDriver &driver, const Corpus &corpus,
                                                const Problem &problem, const SamplingPolicy &policy,
                                                const CollectionPlan &plan, const CompilerDriver::Progress &progress,
                                                CollectionTraffic *traffic) {
  std::string request(1, char(kCollect));
  putBytes(request, policy.serialize());
  request += encodePlan(plan);
  sendToAll(cluster, request);
  const std::vector<std::string> encoded =
      gatherShares(cluster, plan.modules.size(), [&](const std::vector<size_t> &items) {
        return collectShare(driver, corpus, problem, policy, plan, items, progress);
      });
  if (traffic) {
    traffic->sentBytes = request.size() * size_t(cluster.size() - 1);
    traffic->receivedBytes = 0;
    for (int rank = 1; rank < cluster.size(); ++rank)
      for (size_t item : shareOfRank(encoded.size(), rank, cluster.size()))
        traffic->receivedBytes += encoded[item].size();
  }
  std::vector<CollectedModule> collected;
  for (size_t i = 0; i < encoded.size(); ++i) {
    collected.push_back(decodeCollectedModule(encoded[i]));
    if (collected.back().module != plan.modules[i])
      throw std::runtime_error("a rank collected module " + std::to_string(collected.back().module) +
                               " for plan entry " + std::to_string(i) + " (module " +
                               std::to_string(plan.modules[i]) + ")");
  }
  return collected;
}

void serveCollection(Cluster &cluster, const CompilerDriver &driver, const Corpus &corpus, const Problem &problem,
                     const CompilerDriver::Progress &progress) {
  // This rank's own trajectories (the tree never travels between ranks).
  std::optional<TrajectoryMemo> trajectories;
  if (driver.options().memo) trajectories.emplace(driver.options().memo->options().maxBytes);
  for (;;) {
    const std::string request = cluster.receive(0);
    if (request.empty() || uint8_t(request[0]) == kEnd) return;
    if (uint8_t(request[0]) != kCollect) throw std::runtime_error("unknown request from rank 0");
    ByteReader reader(std::string_view(request).substr(1));
    const std::unique_ptr<SamplingPolicy> policy = deserializeSamplingPolicy(reader.bytes());
    CollectionPlan plan = decodePlan(reader, corpus.modules.size());
    plan.trajectories = trajectories ? &*trajectories : nullptr;
    gatherShares(cluster, plan.modules.size(), [&](const std::vector<size_t> &items) {
      return collectShare(driver, corpus, problem, *policy, plan, items, progress);
    });
  }
}

void endCollection(Cluster &cluster) { sendToAll(cluster, std::string(1, char(kEnd))); }

}  // namespace mlgo
