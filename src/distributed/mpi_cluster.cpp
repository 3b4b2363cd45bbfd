// Cluster over MPI point-to-point messages. All MPI calls hold one mutex
// (MPI_THREAD_SERIALIZED: the heartbeat thread and the caller's thread share
// the library), and no call blocks inside MPI: sends are MPI_Isend completed
// by polling, receives MPI_Iprobe then MPI_Recv of a message already there.
// Polling with short sleeps instead of blocking calls also keeps idle ranks
// off the cores (OpenMPI's blocking calls spin), which matters when ranks
// share a machine with the compiles of other ranks.
#include "mpi_cluster.h"

#include <atomic>
#include <chrono>
#include <climits>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

// The C API only: the deprecated C++ bindings need libmpi_cxx.
#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>

namespace mlgo {

namespace {

using Clock = std::chrono::steady_clock;

constexpr int kDataTag = 1;
constexpr int kHeartbeatTag = 2;

class MpiCluster final : public Cluster {
 public:
  explicit MpiCluster(double silenceSeconds);
  ~MpiCluster() override;

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  std::string host(int rank) const override { return hosts_.at(rank); }
  void send(int to, std::string_view bytes) override;
  std::string receive(int from) override;
  [[noreturn]] void abortAll(int exitCode) override {
    MPI_Abort(MPI_COMM_WORLD, exitCode);
    std::_Exit(exitCode);
  }

 private:
  /// Polls `ready` (called with the MPI mutex held) until it returns true,
  /// draining heartbeats; throws RankLost when `peer` stays silent.
  template <typename Ready>
  void waitOn(int peer, const char *what, Ready ready);
  void drainHeartbeats();  ///< mutex held
  void sendHeartbeats();

  int rank_ = 0, size_ = 1;
  std::vector<std::string> hosts_;
  std::chrono::duration<double> silence_;
  std::mutex mpi_;
  std::vector<Clock::time_point> lastHeard_;  ///< guarded by mpi_
  std::mutex stopMutex_;
  std::condition_variable stopSignal_;
  bool stopping_ = false;
  std::thread heartbeat_;
};

MpiCluster::MpiCluster(double silenceSeconds) : silence_(silenceSeconds) {
  int provided = 0;
  MPI_Init_thread(nullptr, nullptr, MPI_THREAD_SERIALIZED, &provided);
  if (provided < MPI_THREAD_SERIALIZED) {
    MPI_Finalize();
    throw std::runtime_error("the MPI library does not support calls from more than one thread");
  }
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
  char name[MPI_MAX_PROCESSOR_NAME] = {};
  int length = 0;
  MPI_Get_processor_name(name, &length);
  std::vector<char> all(size_t(size_) * MPI_MAX_PROCESSOR_NAME);
  MPI_Allgather(name, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, all.data(), MPI_MAX_PROCESSOR_NAME, MPI_CHAR,
                MPI_COMM_WORLD);
  for (int r = 0; r < size_; ++r) hosts_.emplace_back(&all[size_t(r) * MPI_MAX_PROCESSOR_NAME]);
  lastHeard_.assign(size_t(size_), Clock::now());
  // A few heartbeats per silence limit, so one late beat is no alarm.
  const auto period = std::chrono::duration<double>(std::max(0.05, silenceSeconds / 5));
  heartbeat_ = std::thread([this, period] {
    std::unique_lock<std::mutex> lock(stopMutex_);
    while (!stopSignal_.wait_for(lock, period, [this] { return stopping_; })) sendHeartbeats();
  });
}

MpiCluster::~MpiCluster() {
  {
    std::lock_guard<std::mutex> lock(stopMutex_);
    stopping_ = true;
  }
  stopSignal_.notify_all();
  heartbeat_.join();
  std::lock_guard<std::mutex> lock(mpi_);
  // Every rank leaves together. A rank done early (rank 0 may still be
  // gating or writing) waits here without spinning on a core the others
  // need, and keeps draining heartbeats so none is pending at MPI_Finalize.
  MPI_Request barrier;
  MPI_Ibarrier(MPI_COMM_WORLD, &barrier);
  for (int done = 0;;) {
    MPI_Test(&barrier, &done, MPI_STATUS_IGNORE);
    drainHeartbeats();
    if (done) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  MPI_Finalize();
}

void MpiCluster::sendHeartbeats() {
  static const char nothing = 0;
  std::lock_guard<std::mutex> lock(mpi_);
  // Rank 0 may wait on every rank, the others only on rank 0.
  for (int peer = 0; peer < size_; ++peer) {
    if (peer == rank_ || (rank_ != 0 && peer != 0)) continue;
    MPI_Request request;
    MPI_Isend(&nothing, 0, MPI_BYTE, peer, kHeartbeatTag, MPI_COMM_WORLD, &request);
    MPI_Request_free(&request);
  }
}

void MpiCluster::drainHeartbeats() {
  for (;;) {
    int pending = 0;
    MPI_Status status;
    MPI_Iprobe(MPI_ANY_SOURCE, kHeartbeatTag, MPI_COMM_WORLD, &pending, &status);
    if (!pending) return;
    MPI_Recv(nullptr, 0, MPI_BYTE, status.MPI_SOURCE, kHeartbeatTag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    lastHeard_[size_t(status.MPI_SOURCE)] = Clock::now();
  }
}

template <typename Ready>
void MpiCluster::waitOn(int peer, const char *what, Ready ready) {
  const Clock::time_point start = Clock::now();
  auto pause = std::chrono::microseconds(100);
  for (;;) {
    {
      std::lock_guard<std::mutex> lock(mpi_);
      drainHeartbeats();
      if (ready()) {
        lastHeard_[size_t(peer)] = Clock::now();
        return;
      }
      // Silence counts from the later of the last beat and the start of this
      // wait: beats that queued while this rank was busy still count.
      const Clock::time_point heard = std::max(lastHeard_[size_t(peer)], start);
      if (Clock::now() - heard > silence_)
        throw RankLost(describe(peer) + " sent nothing (not even a heartbeat) for " +
                       std::to_string(int(silence_.count())) + " s while this rank (" + describe(rank_) +
                       ") was waiting to " + what + ": it died, hangs or cannot be reached");
    }
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::microseconds(5000));
  }
}

void MpiCluster::send(int to, std::string_view bytes) {
  if (bytes.size() > size_t(INT_MAX))
    throw std::runtime_error("message of " + std::to_string(bytes.size()) + " bytes to " + describe(to) +
                             " is larger than MPI's 2 GB limit");
  MPI_Request request;
  {
    std::lock_guard<std::mutex> lock(mpi_);
    MPI_Isend(bytes.data(), int(bytes.size()), MPI_BYTE, to, kDataTag, MPI_COMM_WORLD, &request);
  }
  waitOn(to, "send to it", [&] {
    int done = 0;
    MPI_Test(&request, &done, MPI_STATUS_IGNORE);
    return done != 0;
  });
}

std::string MpiCluster::receive(int from) {
  std::string bytes;
  waitOn(from, "receive from it", [&] {
    int pending = 0;
    MPI_Status status;
    MPI_Iprobe(from, kDataTag, MPI_COMM_WORLD, &pending, &status);
    if (!pending) return false;
    int count = 0;
    MPI_Get_count(&status, MPI_BYTE, &count);
    bytes.resize(size_t(count));
    MPI_Recv(bytes.data(), count, MPI_BYTE, from, kDataTag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    return true;
  });
  return bytes;
}

}  // namespace

std::unique_ptr<Cluster> joinMpiCluster(double silenceSeconds) { return std::make_unique<MpiCluster>(silenceSeconds); }

}  // namespace mlgo
