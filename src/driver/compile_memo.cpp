#include "mlgo/driver/compile_memo.h"

#include <cstdio>
#include <sstream>

#include <llvm/Config/llvm-config.h>
#include <llvm/Support/xxhash.h>
#include <spdlog/spdlog.h>

#include "mlgo/driver/compile_worker.h"
#include "mlgo/support/atomic_file.h"
#include "mlgo/support/crc32c.h"
#include "mlgo/support/errors.h"
#include "mlgo/support/text_input.h"

namespace mlgo {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

/// 2: pass pipelines run after the always-inliner (kPassListPrologue).
constexpr int kFormat = 2;
/// What an entry costs in memory besides its key and message: the list node,
/// the index slot and the result's fixed fields.
constexpr size_t kEntryOverhead = 160;

bool sameResult(const CompileResult &a, const CompileResult &b) {
  return a.failure == b.failure && a.sizes.text == b.sizes.text && a.sizes.data == b.sizes.data &&
         a.sizes.rodata == b.sizes.rodata && a.sizes.bss == b.sizes.bss && a.irInstructions == b.irInstructions;
}

}  // namespace

json MemoStats::toJson() const {
  return json{{"request_lookups", requestLookups}, {"request_hits", requestHits},
              {"codegen_lookups", codegenLookups}, {"codegen_hits", codegenHits},
              {"optimized_lookups", optimizedLookups}, {"optimized_hits", optimizedHits},
              {"sequence_compiles", sequenceCompiles}, {"sequence_hits", sequenceHits},
              {"disk_hits", diskHits},             {"corrupt_files", corruptFiles},
              {"evictions", evictions},            {"verified", verified},
              {"bytes", bytes},                    {"peak_bytes", peakBytes},
              {"seconds_saved", secondsSaved}};
}

std::string MemoStats::describe() const {
  auto rate = [](uint64_t hits, uint64_t lookups) {
    return lookups ? 100.0 * double(hits) / double(lookups) : 0.0;
  };
  char text[512];
  std::snprintf(text, sizeof text,
                "memo: %llu of %llu compiles reused (%.1f%%), %llu of %llu sampled compiles replayed from known "
                "trajectories (%.1f%%), code generation skipped for %llu of %llu (%.1f%%), optimization skipped "
                "for %llu of %llu (%.1f%%), %llu from disk; %.1f s of compiling saved; peak %.1f MB",
                (unsigned long long)requestHits, (unsigned long long)requestLookups, rate(requestHits, requestLookups),
                (unsigned long long)sequenceHits, (unsigned long long)sequenceCompiles,
                rate(sequenceHits, sequenceCompiles), (unsigned long long)codegenHits,
                (unsigned long long)codegenLookups, rate(codegenHits, codegenLookups),
                (unsigned long long)optimizedHits, (unsigned long long)optimizedLookups,
                rate(optimizedHits, optimizedLookups), (unsigned long long)diskHits, secondsSaved,
                double(peakBytes) / 1e6);
  return text;
}

CompileMemo::CompileMemo(MemoOptions options) : options_(std::move(options)) {
  if (options_.directory) fs::create_directories(*options_.directory);
}

const std::string &CompileMemo::versionTag() {
  static const std::string tag = std::string("mlgo ") + MLGO_VERSION + ", LLVM " LLVM_VERSION_STRING ", memo " +
                                 std::to_string(kFormat);
  return tag;
}

std::string CompileMemo::hash(std::string_view bytes) {
  const llvm::XXH128_hash_t value =
      llvm::xxh3_128bits(llvm::ArrayRef<uint8_t>(reinterpret_cast<const uint8_t *>(bytes.data()), bytes.size()));
  char text[33];
  std::snprintf(text, sizeof text, "%016llx%016llx", (unsigned long long)value.high64,
                (unsigned long long)value.low64);
  return text;
}

bool CompileMemo::reproducible(const CompileResult &result) {
  switch (result.failure) {
    case FailureKind::None:
    case FailureKind::InvalidInput:
    case FailureKind::VerifierError:
    case FailureKind::CompileError:
    case FailureKind::FatalError:
      return true;
    case FailureKind::Crash:    // may depend on the heap's state
    case FailureKind::Timeout:  // depends on the machine's load
      return false;
  }
  return false;
}

std::optional<CompileResult> CompileMemo::find(Kind kind, const std::string &key) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    (kind == Kind::Request ? stats_.requestLookups : stats_.codegenLookups)++;
  }
  std::optional<CompileResult> found;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (const Entry *entry = findInMemory(key)) found = entry->result;
  }
  if (!found && options_.directory) {
    found = findOnDisk(key);
    if (found) {
      storeInMemory({key, *found, 0, nullptr});
      std::lock_guard<std::mutex> lock(mutex_);
      ++stats_.diskHits;
    }
  }
  if (found) {
    std::lock_guard<std::mutex> lock(mutex_);
    (kind == Kind::Request ? stats_.requestHits : stats_.codegenHits)++;
    stats_.secondsSaved += found->seconds;
  }
  return found;
}

void CompileMemo::noteSequenceCompile(bool hit, double saved) {
  std::lock_guard<std::mutex> lock(mutex_);
  ++stats_.sequenceCompiles;
  if (!hit) return;
  ++stats_.sequenceHits;
  stats_.secondsSaved += saved;
}

void CompileMemo::store(Kind kind, const std::string &key, const CompileResult &result) {
  if (!reproducible(result)) return;
  storeInMemory({key, result, 0, nullptr});
  if (options_.directory) storeOnDisk(key, result);
}

std::optional<OptimizedModule> CompileMemo::findOptimized(const std::string &key) {
  std::lock_guard<std::mutex> lock(mutex_);
  ++stats_.optimizedLookups;
  const Entry *entry = findInMemory(key);
  if (!entry || !entry->optimizedBitcode) return std::nullopt;
  ++stats_.optimizedHits;
  stats_.secondsSaved += entry->result.seconds;
  return OptimizedModule{entry->optimizedBitcode, entry->result.irInstructions, entry->result.seconds};
}

void CompileMemo::storeOptimized(const std::string &key, OptimizedModule module) {
  CompileResult summary;
  summary.irInstructions = module.irInstructions;
  summary.seconds = module.seconds;
  storeInMemory({key, summary, 0, std::move(module.bitcode)});
}

bool CompileMemo::codegenWorthLooking() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return stats_.codegenLookups < 200 || stats_.codegenHits * 20 >= stats_.codegenLookups;
}

void CompileMemo::noteWorkerCompile(const CompileResult &result) {
  if (!result.ok()) return;
  std::lock_guard<std::mutex> lock(mutex_);
  ++stats_.codegenLookups;
  if (result.codegenFromMemo) ++stats_.codegenHits;
}

bool CompileMemo::shouldVerify() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (stats_.verified >= options_.verify) return false;
  ++stats_.verified;
  return true;
}

void CompileMemo::verifyHit(const std::string &what, const CompileResult &memoized, const CompileResult &fresh) {
  if (sameResult(memoized, fresh)) return;
  throw MemoMismatch("--verify-cache: " + what + ": the memoized result (" + encodeCompileReply(memoized) +
                     ") differs from a fresh compile (" + encodeCompileReply(fresh) +
                     "); remove the cache directory and report this");
}

MemoStats CompileMemo::stats() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return stats_;
}

const CompileMemo::Entry *CompileMemo::findInMemory(const std::string &key) {
  auto found = index_.find(key);
  if (found == index_.end()) return nullptr;
  recent_.splice(recent_.begin(), recent_, found->second);
  return &*found->second;
}

void CompileMemo::storeInMemory(Entry entry) {
  if (options_.maxBytes == 0) return;
  std::lock_guard<std::mutex> lock(mutex_);
  if (index_.count(entry.key)) return;
  entry.bytes = kEntryOverhead + 2 * entry.key.size() + entry.result.message.size() +
                (entry.optimizedBitcode ? entry.optimizedBitcode->size() : 0);
  stats_.bytes += entry.bytes;
  const std::string key = entry.key;
  recent_.push_front(std::move(entry));
  index_[key] = recent_.begin();
  while (stats_.bytes > options_.maxBytes && recent_.size() > 1) {
    stats_.bytes -= recent_.back().bytes;
    index_.erase(recent_.back().key);
    recent_.pop_back();
    ++stats_.evictions;
  }
  stats_.peakBytes = std::max(stats_.peakBytes, stats_.bytes);
}

fs::path CompileMemo::fileFor(const std::string &key) const {
  const std::string name = hash(key);
  return *options_.directory / name.substr(0, 2) / (name + ".json");
}

std::optional<CompileResult> CompileMemo::findOnDisk(const std::string &key) {
  const fs::path file = fileFor(key);
  std::error_code missing;
  if (!fs::exists(file, missing)) return std::nullopt;
  try {
    const json entry = parseJsonText(readFile(file), file.string());
    const std::string reply = entry.at("result").get<std::string>();
    if (entry.at("format").get<int>() != kFormat || entry.at("key").get<std::string>() != key ||
        entry.at("crc32c").get<uint32_t>() != crc32c(reply.data(), reply.size(), 0))
      throw std::runtime_error("format, key or checksum differ");
    return decodeCompileReply(reply);
  } catch (const std::exception &e) {
    // An InputError names the file already; other errors say only what.
    const bool named = dynamic_cast<const InputError *>(&e) != nullptr;
    spdlog::warn("memo: ignoring the damaged cache file {}", named ? e.what() : file.string() + ": " + jsonErrorText(e));
    std::lock_guard<std::mutex> lock(mutex_);
    ++stats_.corruptFiles;
    return std::nullopt;
  }
}

void CompileMemo::storeOnDisk(const std::string &key, const CompileResult &result) {
  const std::string reply = encodeCompileReply(result);
  const json entry{{"format", kFormat}, {"key", key}, {"result", reply},
                   {"crc32c", crc32c(reply.data(), reply.size(), 0)}};
  try {
    writeFileAtomically(fileFor(key), entry.dump() + "\n");
  } catch (const std::exception &e) {
    // A full disk or a read-only cache costs speed, never results.
    spdlog::warn("memo: cannot write to the cache: {}", errorText(e));
  }
}

}  // namespace mlgo
