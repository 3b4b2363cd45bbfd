// Joining the ranks of an mpirun: the one place that reaches OpenMPI. It is
// built into libmlgo_distributed.so, which the command line links and mlgo
// cc does not, so that a build's compiles never load OpenMPI.
#include <stdexcept>

#include "mlgo/distributed/cluster.h"
#include "mpi_cluster.h"

namespace mlgo {

bool builtWithMpi() {
#ifdef MLGO_WITH_MPI
  return true;
#else
  return false;
#endif
}

std::unique_ptr<Cluster> joinCluster(double silenceSeconds) {
  if (!launchedByMpirun()) return singleProcessCluster();
#ifdef MLGO_WITH_MPI
  return joinMpiCluster(silenceSeconds);
#else
  throw std::runtime_error(
      "started by mpirun, but this mlgo was built without MPI (configure with -DMLGO_WITH_MPI=ON); every rank "
      "would run the whole job alone");
#endif
}

}  // namespace mlgo
