#pragma once
// Never compile the same thing twice. A compile's result is fully determined
// by the module's bitcode, its recorded command line, the request (pass
// pipeline, the policy deciding) and the versions of mlgo and LLVM; the
// object code is fully determined by the optimized IR and the command line.
// The memo keeps results under both keys:
// - request keys: a repeated (module, pipeline, deterministic policy)
//   compile is not run at all (eval, autotune's candidates, reruns);
// - code-generation keys: a compile whose optimized IR is already known skips
//   code generation (autotune's pass lists that leave the same IR);
// - optimization keys: a compile whose hooks act only in code generation
//   (register allocation's) takes the module's optimized IR from memory and
//   skips the optimization pipeline (train-es and eval compile each module
//   with many regalloc policies; memory only, not --cache-dir);
// train-ppo's sampled compiles are replayed from a tree of compiled
// trajectories (mlgo/training/trajectory_memo.h); their counts are kept here
// with the others.
// In memory with a byte bound (least recently used entries go first), and
// optionally on disk (`--cache-dir`) for reruns and CI: one file per entry,
// written atomically (concurrent writers and kill -9 leave whole files), its
// content checked against a checksum and its key, the versions part of every
// key. `verify` recompiles the first N hits and fails loudly on a difference.
#include <cstdint>
#include <filesystem>
#include <list>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

#include <nlohmann/json.hpp>

#include "mlgo/driver/compile_result.h"

namespace mlgo {

struct MemoOptions {
  size_t maxBytes = size_t(256) << 20;           ///< memory bound; 0: no memory memo
  std::optional<std::filesystem::path> directory;  ///< on-disk cache shared by runs
  size_t verify = 0;                               ///< hits to recompile and compare
};

struct MemoStats {
  uint64_t requestLookups = 0, requestHits = 0;
  uint64_t codegenLookups = 0, codegenHits = 0;
  uint64_t optimizedLookups = 0, optimizedHits = 0;
  /// Sampled compiles (train-ppo), and those replayed from known
  /// trajectories without compiling.
  uint64_t sequenceCompiles = 0, sequenceHits = 0;
  uint64_t diskHits = 0;       ///< hits of either kind read from --cache-dir
  uint64_t corruptFiles = 0;   ///< cache files ignored (damaged, other key)
  uint64_t evictions = 0;
  uint64_t verified = 0;
  uint64_t bytes = 0, peakBytes = 0;
  double secondsSaved = 0;  ///< compile time the hits took when first compiled
  nlohmann::json toJson() const;
  std::string describe() const;  ///< one line for summaries
};

/// A memoized hit whose fresh compile differs: the memo or the compiler is
/// not deterministic, and no result of this run can be trusted.
class MemoMismatch : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// A module's optimized IR as bitcode (use-list order kept, so code
/// generation from it is the same as from the module it was written from).
struct OptimizedModule {
  std::shared_ptr<const std::string> bitcode;
  uint64_t irInstructions = 0;
  double seconds = 0;  ///< what optimizing took
};

class CompileMemo {
 public:
  enum class Kind { Request, Codegen };

  explicit CompileMemo(MemoOptions options);

  /// The result stored under `key`, from memory or disk.
  std::optional<CompileResult> find(Kind kind, const std::string &key);
  /// Stores a result (only those a recompile would reproduce: successes and
  /// compile errors, not timeouts or crashes).
  void store(Kind kind, const std::string &key, const CompileResult &result);
  /// The optimized IR stored under `key` (memory only).
  std::optional<OptimizedModule> findOptimized(const std::string &key);
  void storeOptimized(const std::string &key, OptimizedModule module);
  /// Records a sampled compile, and whether it was replayed without
  /// compiling (`saved`: the seconds its earlier compile took).
  void noteSequenceCompile(bool hit, double saved);
  /// Whether looking code generation up still pays in this process: after
  /// 200 lookups, only while at least 1 in 20 hits. Keying costs writing the
  /// IR as bitcode; autotune's random pass lists rarely repeat an IR (it
  /// cost 9% of autotune's time for nothing), eval's baseline and candidate
  /// often do.
  bool codegenWorthLooking() const;
  /// Counts a compile that ran in a worker process (with its own memo):
  /// whether it looked code generation up and found it.
  void noteWorkerCompile(const CompileResult &result);
  /// True while fewer than `verify` hits were verified: the caller compiles
  /// anyway and calls verifyHit.
  bool shouldVerify();
  /// Throws MemoMismatch when `fresh` differs from the memoized result.
  void verifyHit(const std::string &what, const CompileResult &memoized, const CompileResult &fresh);

  MemoStats stats() const;
  const MemoOptions &options() const { return options_; }

  /// Whether a result may be stored: a recompile gives it again.
  static bool reproducible(const CompileResult &result);
  /// mlgo's and LLVM's versions and the memo format: part of every key.
  static const std::string &versionTag();
  /// A 128-bit hash of `bytes` as 32 hex digits (LLVM's xxh3).
  static std::string hash(std::string_view bytes);

 private:
  struct Entry {
    std::string key;
    CompileResult result;
    size_t bytes = 0;
    std::shared_ptr<const std::string> optimizedBitcode;  ///< optimization keys only
  };
  const Entry *findInMemory(const std::string &key);  ///< with mutex_ held
  void storeInMemory(Entry entry);
  std::optional<CompileResult> findOnDisk(const std::string &key);
  void storeOnDisk(const std::string &key, const CompileResult &result);
  std::filesystem::path fileFor(const std::string &key) const;

  MemoOptions options_;
  mutable std::mutex mutex_;
  std::list<Entry> recent_;  ///< most recently used first
  std::unordered_map<std::string, std::list<Entry>::iterator> index_;
  MemoStats stats_;
};

}  // namespace mlgo
