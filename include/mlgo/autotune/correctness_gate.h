#pragma once
// The correctness gate (LLM Compiler's PassListEval, rebuilt): a candidate pass
// list is applied to each self-checking program of the suite
// (configs/autotune/gate-programs, made once into a corpus of unoptimized
// bitcode, as extract-ir makes one) by mlgo's driver, which also generates
// the object, as it compiles the modules being tuned; only linking and
// running the programs are subprocesses. A compiler crash or error, a
// timeout, or any program that fails its own tests rejects the list.
#include <atomic>
#include <chrono>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "mlgo/corpus/corpus.h"
#include "mlgo/driver/compiler_driver.h"

namespace mlgo {
class IsolatedCompiler;
}

namespace mlgo::autotune {

struct GateOptions {
  std::filesystem::path programs;       ///< directory of *.c / *.cpp programs
  std::filesystem::path workDirectory;  ///< scratch (the programs' corpus, objects, binaries)
  std::string clang;                    ///< clang-19: the programs' front end once, then the linker
  unsigned threads = 0;
  /// Per compile and per link. Links (and the programs' front-end compile,
  /// 6 times this) count CPU time (TimeoutClock::Cpu), so a loaded machine
  /// or a `nice -n 19` run is not mistaken for a hang; compiles in mlgo's
  /// driver count time passed.
  std::chrono::milliseconds timeout{10000};
  /// CPU time per program run. The programs finish in under 10 ms at -Oz on
  /// the machines measured: a run past this is a list that broke a loop, and
  /// a list that breaks many programs this way would otherwise cost every
  /// check and culprit run the whole compile timeout.
  std::chrono::milliseconds runTimeout{2000};
  /// Empty: the programs compile in this process (crashes that leave the
  /// heap intact are contained). Otherwise the command that starts a compile
  /// worker on the corpus it is given (mlgo/driver/isolated_compiler.h):
  /// compiles then survive any crash, as the autotuner's candidates do.
  std::function<std::vector<std::string>(const std::filesystem::path &corpus)> workerCommand;
  /// Test-only: faults injected into the in-process compiles.
  FaultInjection faults;
  /// Where verdicts are remembered across runs (`--cache-dir`'s
  /// gate-verdicts/); empty: within this run only. A verdict is keyed by the
  /// pipeline, the programs' names and sources, and the versions of mlgo,
  /// LLVM and clang, so a changed program or toolchain asks again.
  std::filesystem::path verdictCache;
  /// Where the programs' corpus is kept for every run that gates with the
  /// same programs and clang (a subdirectory named by their hash, built once
  /// under a lock); empty: built in the work directory each run.
  std::filesystem::path sharedCorpus;
};

struct GateVerdict {
  bool passed = false;  ///< every program passed
  std::string failure;  ///< the first failing program and why (a miscompile before a link failure)
  std::string program;  ///< that program's name (empty when passed)
  /// Every failure is a C++ program that no longer links. A list that neither
  /// inlines nor drops the available_externally bodies clang leaves in C++
  /// code (`function(mem2reg)` alone) leaves references to libstdc++
  /// template instances the library does not export: that cannot happen to
  /// a C module, so such a verdict rejects the list for C++ modules only.
  /// Miscompiles (an opt or code generation failure, a crash, a wrong
  /// answer) reject it for every module.
  bool cxxLinkOnly = false;
  /// Whether the list may be used on a module of this language.
  bool acceptsFor(bool cxxModule) const { return passed || (cxxLinkOnly && !cxxModule); }
};

/// What the autotuner asks of a gate: a verdict per pipeline.
class PassListGate {
 public:
  virtual ~PassListGate() = default;
  virtual GateVerdict check(const std::string &pipeline) = 0;
  /// Whether `pipeline` breaks `program` (a name from a failed verdict),
  /// running that program alone: what culprit isolation asks, many times.
  /// A C++ program that only fails to link breaks it when `linkFailuresCount`
  /// (the question is asked for a C++ module, or about a link failure).
  virtual bool breaks(const std::string &pipeline, const std::string &program, bool linkFailuresCount) = 0;
};

class CorrectnessGate final : public PassListGate {
 public:
  /// Compiles every program to unoptimized bitcode, a corpus in the work
  /// directory. Throws InputError when the directory holds no program or one
  /// does not compile.
  explicit CorrectnessGate(GateOptions options);
  ~CorrectnessGate();

  /// Applies `pipeline` (opt -passes= text) to every program and runs them.
  /// Verdicts are cached per pipeline. Thread-safe.
  GateVerdict check(const std::string &pipeline) override;
  /// Not cached (each subsequence is asked once); false for an unknown program.
  bool breaks(const std::string &pipeline, const std::string &program, bool linkFailuresCount) override;

  size_t programCount() const { return programs_.size(); }
  /// Lists run through every program in this run (not remembered ones).
  size_t listsChecked() const;
  /// Verdicts read from the verdict cache instead of running the programs.
  size_t verdictsRemembered() const;
  /// Programs compiled (and, when that worked, linked and run) so far: a
  /// check stops running programs after the first miscompile in name order.
  size_t programRuns() const { return programRuns_; }

 private:
  struct Program {
    std::string name;
    bool cxx = false;
  };
  struct ProgramRun {
    std::string failure;  ///< empty: the program passed
    bool linkFailed = false;
  };
  void buildCorpus();
  void buildCorpusIn(const std::filesystem::path &corpus);
  CompileResult compile(size_t program, const std::string &pipeline, const std::filesystem::path &object) const;
  ProgramRun runOne(size_t program, const std::string &pipeline, size_t slot) const;
  std::filesystem::path cachedVerdictPath(const std::string &pipeline) const;
  std::optional<GateVerdict> rememberedVerdict(const std::string &pipeline) const;
  void rememberVerdict(const std::string &pipeline, const GateVerdict &verdict) const;

  GateOptions options_;
  std::vector<Program> programs_;
  Corpus corpus_;  ///< the programs, in programs_' order
  std::unique_ptr<CompilerDriver> driver_;
  std::unique_ptr<IsolatedCompiler> workers_;
  mutable std::mutex mutex_;
  std::map<std::string, GateVerdict> verdicts_;
  size_t runs_ = 0, remembered_ = 0;
  std::string cacheKeyBase_;  ///< programs and versions, the part of a verdict's key every list shares
  /// Numbers the scratch files of each check, so concurrent checks never share one.
  std::atomic<size_t> nextSlot_{0};
  mutable std::atomic<size_t> programRuns_{0};
};

/// configs/autotune/gate-programs of mlgo's data directory
/// (mlgo/support/data_paths.h): the source tree's, installed to
/// share/mlgo/configs/autotune/gate-programs.
std::filesystem::path defaultGatePrograms();

}  // namespace mlgo::autotune
