#pragma once
// The ranks of one run. A run started by mpirun has one rank per process:
// rank 0 (the leader) reads the inputs that decide the work, writes every
// output and, for train-ppo, learns; every rank compiles its share of the
// modules on its own thread pool. A run started without mpirun is a cluster
// of one, and every stage behaves exactly as it did before ranks existed.
//
// Messages are byte strings between rank 0 and the others, delivered in
// order per pair. No wait is unbounded: every rank sends a heartbeat to the
// ranks that may wait on it, and a receive that hears nothing from its peer
// (no message, no heartbeat) for the silence limit throws RankLost, naming
// the rank and its host. MPI headers stay in src/distributed/mpi_cluster.cpp.
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>

namespace mlgo {

/// A rank died or went silent; the message names it and its host.
class RankLost : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class Cluster {
 public:
  virtual ~Cluster() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  /// The host name rank `rank` runs on (gathered when the cluster started).
  virtual std::string host(int rank) const = 0;
  bool isLeader() const { return rank() == 0; }
  bool distributed() const { return size() > 1; }
  /// "rank R on HOST", for messages.
  std::string describe(int rank) const;

  /// Sends to `to` (rank 0 to any rank, any rank to rank 0).
  virtual void send(int to, std::string_view bytes) = 0;
  /// The next message from `from`. Throws RankLost after the silence limit.
  virtual std::string receive(int from) = 0;
  /// Ends the processes of every rank with `exitCode` (MPI_Abort): for the
  /// command-line layer, once the run has failed on one rank.
  [[noreturn]] virtual void abortAll(int exitCode) = 0;
};

/// The cluster of one process (no mpirun).
std::unique_ptr<Cluster> singleProcessCluster();

/// Whether this binary was built with MPI (CMake option MLGO_WITH_MPI).
bool builtWithMpi();
/// Whether the environment says this process was started by mpirun.
bool launchedByMpirun();

/// Joins the MPI job this process was started in (MPI_Init) when it was
/// started by mpirun and built with MPI; otherwise a cluster of one. A rank
/// silent for `silenceSeconds` counts as lost. Throws std::runtime_error when
/// started by mpirun but built without MPI (running every rank as its own
/// single-process run would write the same outputs N times).
std::unique_ptr<Cluster> joinCluster(double silenceSeconds);

}  // namespace mlgo
