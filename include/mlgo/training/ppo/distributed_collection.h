#pragma once
// train-ppo's collection across the ranks of an MPI run. Each policy
// iteration rank 0 sends the policy and the iteration's plan to every rank;
// each rank compiles its share of the plan (entry j goes to rank j mod size)
// on its own pool and sends back what it collected; rank 0 puts it back in
// plan order. A module's actions depend on (seed, iteration, module name)
// only, so the result equals a single-process collection bit for bit.
//
// Per iteration rank 0 sends each rank the serialized policy (weights and
// vocab) and the plan (a few bytes a module); each rank sends back its
// trajectories and compile results. train-ppo's metrics record the bytes
// (README: the scaling model).
#include <string>
#include <string_view>
#include <vector>

#include "mlgo/distributed/cluster.h"
#include "mlgo/training/shared/collector.h"

namespace mlgo {

/// Bytes rank 0 sent and received in one collection (the scaling model's
/// transfer sizes).
struct CollectionTraffic {
  uint64_t sentBytes = 0;      ///< requests, to all ranks together
  uint64_t receivedBytes = 0;  ///< results of the other ranks
};

/// Rank 0: collectTrajectories over all ranks (rank 0 takes its share too).
std::vector<CollectedModule> collectAcrossRanks(Cluster &cluster, const CompilerDriver &driver, const Corpus &corpus,
                                                const Problem &problem, const SamplingPolicy &policy,
                                                const CollectionPlan &plan,
                                                const CompilerDriver::Progress &progress = nullptr,
                                                CollectionTraffic *traffic = nullptr);

/// Ranks other than 0: answer collection requests until rank 0 ends the
/// collection. Throws RankLost when rank 0 goes silent.
void serveCollection(Cluster &cluster, const CompilerDriver &driver, const Corpus &corpus, const Problem &problem,
                     const CompilerDriver::Progress &progress = nullptr);

/// Rank 0: lets every serveCollection return.
void endCollection(Cluster &cluster);

/// One collected module as bytes and back, losslessly (exposed for tests).
std::string encodeCollectedModule(const CollectedModule &module);
CollectedModule decodeCollectedModule(std::string_view bytes);

}  // namespace mlgo
