#include "mlgo/distributed/cluster.h"

#include <cstdlib>

#include <unistd.h>


namespace mlgo {

namespace {

class SingleProcessCluster final : public Cluster {
 public:
  int rank() const override { return 0; }
  int size() const override { return 1; }
  std::string host(int) const override {
    char name[256] = {};
    gethostname(name, sizeof name - 1);
    return name;
  }
  void send(int to, std::string_view) override {
    throw std::logic_error("a single-process run has no rank " + std::to_string(to) + " to send to");
  }
  std::string receive(int from) override {
    throw std::logic_error("a single-process run has no rank " + std::to_string(from) + " to receive from");
  }
  [[noreturn]] void abortAll(int exitCode) override { std::_Exit(exitCode); }
};

}  // namespace

std::string Cluster::describe(int rank) const { return "rank " + std::to_string(rank) + " on " + host(rank); }

std::unique_ptr<Cluster> singleProcessCluster() { return std::make_unique<SingleProcessCluster>(); }

bool launchedByMpirun() {
  // OpenMPI's launcher sets OMPI_COMM_WORLD_SIZE; PMIx-based launchers PMIX_RANK.
  return std::getenv("OMPI_COMM_WORLD_SIZE") != nullptr || std::getenv("PMIX_RANK") != nullptr;
}

}  // namespace mlgo
