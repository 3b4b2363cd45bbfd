#pragma once
// Measuring train-es candidates, in one process or across the ranks of an
// MPI run. Each iteration rank 0 sends every rank the iteration's modules and
// the weights of every candidate; the compiles (every candidate on every
// module) are shared among the ranks, each rank measures its share and sends
// the measures back, and rank 0 puts them back in order and scores them
// (ESObjective::fitness). Compiles that may replay each other (a yes/no
// policy's trajectory memo) stay with their module: a module always goes to
// the same rank (its corpus index mod the number of ranks), so that rank's
// memo replays as a single process's would. Other compiles are dealt out one
// by one, so one large module does not keep one rank busy while the others
// wait. The measures, the fitness and the policy are the same bit for bit
// whatever the number of ranks.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "mlgo/distributed/cluster.h"
#include "mlgo/training/es/es_objective.h"

namespace mlgo {

/// What one iteration asks for: the modules (corpus indices) and the
/// weights of every candidate.
struct MeasureRequest {
  int64_t iteration = 0;
  std::vector<size_t> modules;
  std::vector<std::vector<float>> candidates;
};

/// Every candidate on every module: on this process alone when `cluster` is
/// null or of one process, otherwise across its ranks (called on rank 0).
CandidateMeasures measureCandidates(Cluster *cluster, ESObjective &objective, const MeasureRequest &request);

/// Ranks other than 0: answer measure requests until rank 0 ends them.
/// Every rank reads the warm start itself (its input normalization and
/// vocab); each request carries a fingerprint of rank 0's. Throws RankLost
/// when rank 0 goes silent, std::runtime_error when a request does not fit
/// this rank's corpus or warm start.
void serveCandidateMeasures(Cluster &cluster, ESObjective &objective, size_t corpusSize);

/// Rank 0: lets every serveCandidateMeasures return.
void endCandidateMeasures(Cluster &cluster);

/// A request as bytes and back, losslessly (exposed for tests).
std::string encodeMeasureRequest(const MeasureRequest &request);
MeasureRequest decodeMeasureRequest(std::string_view bytes, size_t corpusSize);

}  // namespace mlgo
