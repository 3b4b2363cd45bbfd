#pragma once
// The in-process compiler every subcommand shares. One module = its bitcode
// and recorded command line; each compile gets its own LLVMContext, runs the
// optimization pipeline (the recorded level, or an opt-style pipeline string)
// and code generation into memory, and reports section sizes. Modules run
// concurrently on a thread pool; results come back in request order, so the
// output never depends on the thread count.
#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "mlgo/corpus/corpus.h"
#include "mlgo/driver/compile_memo.h"
#include "mlgo/driver/compile_result.h"
#include "mlgo/driver/pipeline_hook.h"

namespace mlgo {

/// What every pass pipeline mlgo runs in place of clang's runs first: LLVM's
/// always-inliner, as clang's own pipelines do at every level (-O0
/// included). A list of function passes alone would otherwise drop the
/// programmer's `always_inline` (a JSON library's hot path became 1.8x
/// slower). Part of the search space's identity (searchSpaceHash), so that
/// sizes measured without it are never reused.
inline constexpr const char *kPassListPrologue = "always-inline";

struct CompileRequest {
  const CorpusModule *module = nullptr;
  /// Empty: the recorded optimization level (clang's own pipeline). Otherwise
  /// an opt `-passes=` pipeline run instead, after kPassListPrologue;
  /// code generation stays as recorded.
  std::string passPipeline;
  /// Per-compile hooks (e.g. the inlining policy), after the process-wide ones.
  PipelineHooks hooks;
};

/// Test-only: makes the compile of one module crash, hang or corrupt the heap
/// (a double free glibc catches while it holds its arena lock, as some LLVM
/// crashes do), or succeed but leave the process so that its next compile
/// crashes (heap corruption that shows later), to prove the run survives each.
struct FaultInjection {
  std::string crashModule;
  std::string hangModule;
  std::string heapCorruptionModule;
  std::string poisonModule;
  bool any() const {
    return !crashModule.empty() || !hangModule.empty() || !heapCorruptionModule.empty() || !poisonModule.empty();
  }
};

struct DriverOptions {
  unsigned threads = 0;  ///< 0: one per core
  std::chrono::milliseconds timeout{60000};  ///< per compile; 0: none
  FaultInjection faults;
  /// Results of earlier compiles (mlgo/driver/compile_memo.h); null: none.
  /// Shared by every compile of the driver, and by drivers that share it.
  std::shared_ptr<CompileMemo> memo;
};

class CompilerDriver {
 public:
  explicit CompilerDriver(DriverOptions options);

  /// Compiles one module on the calling thread. Never throws for a problem
  /// with the module: crashes, fatal errors and timeouts come back as results.
  CompileResult compile(const CompileRequest &request) const;

  /// Called after each finished compile, from worker threads but serialized.
  using Progress = std::function<void(size_t done, size_t total)>;
  /// Compiles all requests on the pool; results in request order.
  std::vector<CompileResult> compileAll(const std::vector<CompileRequest> &requests,
                                        const Progress &progress = nullptr) const;

  const DriverOptions &options() const { return options_; }

  /// Throws UsageError when `pipeline` is not a valid opt pipeline.
  static void validatePassPipeline(const std::string &pipeline);

  /// The memo key of a request: the module's bitcode and command line, the
  /// pipeline, every hook's key and the versions. Empty when a hook has no
  /// key or the bitcode cannot be read (such requests are always compiled).
  static std::string requestMemoKey(const CompileRequest &request);
  /// What identifies a module's build: a hash of its bitcode, ThinLTO index
  /// and command line (32 hex digits). Empty when a file cannot be read.
  /// Traces record it beside their sizes, so that sizes measured on another
  /// build of a module (another corpus, other flags) are refused.
  static std::string moduleFingerprint(const CorpusModule &module);
  /// `compile()` unless `memo` knows the request's result; stores what it
  /// compiles. For compiles that run elsewhere (worker processes).
  static CompileResult throughMemo(CompileMemo *memo, const CompileRequest &request,
                                   const std::function<CompileResult()> &compile);

 private:
  CompileResult compileFresh(const CompileRequest &request) const;
  DriverOptions options_;
};

/// Applies the -mllvm options the corpus records (LLVM keeps them process
/// wide). Uses the set most modules share; modules recording another set fail
/// at compile time with a clear reason. Returns the set applied.
std::vector<std::string> applyCorpusBackendOptions(const Corpus &corpus);

}  // namespace mlgo
