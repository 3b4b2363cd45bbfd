#pragma once
// Internal: the MPI implementation of Cluster, built with MLGO_WITH_MPI only.
#include <memory>

#include "mlgo/distributed/cluster.h"

namespace mlgo {

/// MPI_Init_thread (serialized calls), hosts gathered, heartbeats started.
std::unique_ptr<Cluster> joinMpiCluster(double silenceSeconds);

}  // namespace mlgo
