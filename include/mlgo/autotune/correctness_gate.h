#pragma once
// The correctness gate (LLM Compiler's PassListEval, rebuilt): a candidate pass
// list is applied with opt-19 to each self-checking program of the suite
// (tools/passlisteval/programs, unoptimized bitcode made once), the result is
// compiled, linked and run. A compiler crash or error, a timeout, or any
// program that fails its own tests rejects the list.
#include <atomic>
#include <chrono>
#include <filesystem>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace mlgo::autotune {

struct GateOptions {
  std::filesystem::path programs;       ///< directory of *.c / *.cpp programs
  std::filesystem::path workDirectory;  ///< scratch (bitcode, binaries)
  std::string clang;                    ///< clang-19
  std::string opt;                      ///< opt-19
  unsigned threads = 0;
  std::chrono::milliseconds timeout{10000};  ///< per compile step and per run
};

struct GateVerdict {
  bool passed = false;
  std::string failure;  ///< the first failing program and why
  std::string program;  ///< that program's name (empty when passed)
};

/// What the autotuner asks of a gate: a verdict per pipeline.
class PassListGate {
 public:
  virtual ~PassListGate() = default;
  virtual GateVerdict check(const std::string &pipeline) = 0;
  /// Whether `pipeline` breaks `program` (a name from a failed verdict),
  /// running that program alone: what culprit isolation asks, many times.
  virtual bool breaks(const std::string &pipeline, const std::string &program) = 0;
};

class CorrectnessGate final : public PassListGate {
 public:
  /// Compiles every program to unoptimized bitcode. Throws InputError when the
  /// directory holds no program or one does not compile.
  explicit CorrectnessGate(GateOptions options);

  /// Applies `pipeline` (opt -passes= text) to every program and runs them.
  /// Verdicts are cached per pipeline. Thread-safe.
  GateVerdict check(const std::string &pipeline) override;
  /// Not cached (each subsequence is asked once); false for an unknown program.
  bool breaks(const std::string &pipeline, const std::string &program) override;

  size_t programCount() const { return programs_.size(); }
  size_t listsChecked() const;

 private:
  struct Program {
    std::string name;
    bool cxx = false;
    std::filesystem::path bitcode;
  };
  std::string runOne(const Program &program, const std::string &pipeline, size_t slot) const;

  GateOptions options_;
  std::vector<Program> programs_;
  mutable std::mutex mutex_;
  std::map<std::string, GateVerdict> verdicts_;
  size_t runs_ = 0;
  /// Numbers the scratch files of each check, so concurrent checks never share one.
  std::atomic<size_t> nextSlot_{0};
};

/// opt-19 on PATH or in LLVM 19's bin directory; empty when there is none.
std::string findOpt();
/// passlisteval/programs of mlgo's data directory (mlgo/support/data_paths.h):
/// tools/passlisteval/programs of the source tree, installed to share/mlgo.
std::filesystem::path defaultGatePrograms();

}  // namespace mlgo::autotune
