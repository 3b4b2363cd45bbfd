#pragma once
// Compiles in worker processes (compile_worker.h) instead of in this one: the
// containment for compiles that may corrupt the heap, such as the random pass
// lists of autotuning. Each calling thread gets its own long-lived worker (for
// as long as it compiles one module, with WorkerReuse::OneModule), so
// compiles stay concurrent and each pays only a pipe round trip. A worker
// that dies (crash) or does not answer in time (hang) is reported as that
// compile's failure, killed if needed, and replaced on the next compile; a
// crash in a worker that compiled something before is retried once in a
// fresh worker, since corruption an earlier compile left may have caused it.
// A worker's stderr is captured: what a dying worker wrote (glibc's
// "corrupted double-linked list", say) ends its compile's message.
#include <chrono>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "mlgo/corpus/corpus.h"
#include "mlgo/driver/compile_result.h"

namespace mlgo {

/// Which compiles one worker serves.
enum class WorkerReuse {
  AcrossModules,  ///< every compile of its thread (the gate: 50 small programs a check)
  /// The compiles of one module in a row: a thread that moves on to another
  /// module gets a fresh worker. Some pass lists make LLVM 19 read freed
  /// memory, and what it reads depends on what the worker compiled before; a
  /// worker that served only this module's earlier compiles (a fixed
  /// sequence in a search) makes the outcome independent of which modules
  /// the thread happened to get first, so of `--threads` and timing.
  OneModule,
};

class IsolatedCompiler {
 public:
  /// `workerCommand`: the program (a path) and arguments that start a worker
  /// on the same corpus, e.g. {"/proc/self/exe", "compile-worker", "--corpus",
  /// DIR, "--timeout", "60"}. `replyTimeout` bounds the worker's CPU time for
  /// one compile as seen from here (the worker's own timeout should end it
  /// sooner), the time the CPU time of its main thread, where it compiles,
  /// may stand still (a worker whose compile uses no CPU at all is stuck, not
  /// starved, whatever its watchdog thread uses) and, at kCpuTimeoutWallFactor times
  /// it, the time passed; 0: no bound.
  /// Ignores SIGPIPE for the process: a write to a worker that died must come
  /// back as an error, not end the run.
  IsolatedCompiler(std::vector<std::string> workerCommand, std::chrono::milliseconds replyTimeout,
                   WorkerReuse reuse = WorkerReuse::AcrossModules);
  ~IsolatedCompiler();  ///< ends every worker
  IsolatedCompiler(const IsolatedCompiler &) = delete;
  IsolatedCompiler &operator=(const IsolatedCompiler &) = delete;

  /// Compiles `module` under `pipeline` ("" = its recorded -Oz) in this
  /// thread's worker, which writes the object to `object` when it is not
  /// empty. Never throws for a problem of the compile or the worker.
  CompileResult compile(const CorpusModule &module, const std::string &pipeline,
                        const std::filesystem::path &object = {});

  /// Workers started so far (the first ones and the replacements).
  size_t workersStarted() const;
  /// Workers that crashed, hung or answered garbage (each was replaced).
  size_t workersLost() const;

 private:
  struct Worker;
  /// One attempt in this thread's worker; `freshWorker`: it had compiled
  /// nothing before.
  CompileResult compileOnce(const CorpusModule &module, const std::string &pipeline,
                            const std::filesystem::path &object, bool &freshWorker);
  /// This thread's worker for a compile of `module` (started when needed).
  Worker *workerForThisThread(const std::string &module, std::string &error);
  /// Ends a worker (closes its pipes, kills it, reaps it): its wait status.
  /// What it wrote to stderr since its last answer goes to `lastStderr`, or
  /// to our stderr when that is null.
  int retire(Worker &worker, std::string *lastStderr = nullptr);
  /// retire, counted as a lost worker, its last words kept for the message.
  int lose(Worker &worker, std::string &lastStderr);

  std::vector<std::string> command_;
  std::chrono::milliseconds replyTimeout_;
  WorkerReuse reuse_;
  mutable std::mutex mutex_;
  std::map<std::thread::id, std::unique_ptr<Worker>> workers_;
  size_t started_ = 0, lost_ = 0;
};

}  // namespace mlgo
