#pragma once
// What one compilation of one module produced: section sizes of the object
// (measured in memory, no files), the IR instruction count after optimization,
// or the reason it failed.
#include <cstdint>
#include <optional>
#include <string>

namespace mlgo {

/// Section sizes in bytes of an object file (ELF):
///   text   = executable sections (.text*): MLGO's native size
///   rodata = other allocated read-only sections (.rodata*, .eh_frame, ...)
///   data   = allocated writable sections (.data*, .data.rel.ro, ...)
///   bss    = allocated NOBITS sections (.bss, .tbss)
/// text + rodata, data and bss are llvm-size's Berkeley columns.
struct SectionSizes {
  uint64_t text = 0;
  uint64_t data = 0;
  uint64_t rodata = 0;
  uint64_t bss = 0;
  /// llvm-size's text + data columns, no .bss: the binary size LLM Compiler
  /// optimizes.
  uint64_t textPlusData() const { return text + rodata + data; }
};

/// The two documented size metrics: `text` (MLGO's reward) and `text+data`.
enum class SizeMetric { Text, TextPlusData };
std::optional<SizeMetric> parseSizeMetric(const std::string &name);
const char *sizeMetricName(SizeMetric metric);
uint64_t measure(const SectionSizes &sizes, SizeMetric metric);

enum class FailureKind {
  None,
  InvalidInput,   ///< unreadable or invalid bitcode, refused command line
  VerifierError,  ///< the module fails the IR verifier
  CompileError,   ///< LLVM or clang reported an error
  FatalError,     ///< report_fatal_error inside LLVM
  Crash,          ///< a signal (SIGSEGV, SIGABRT, ...) while compiling
  Timeout,        ///< ran past --timeout
};
const char *failureKindName(FailureKind kind);

struct CompileResult {
  FailureKind failure = FailureKind::None;
  std::string message;  ///< why it failed; empty on success
  SectionSizes sizes;
  uint64_t irInstructions = 0;  ///< after the optimization pipeline
  uint64_t decisions = 0;       ///< decisions the request's hooks took
  /// Code generation was skipped: the memo knew the optimized IR. Counted
  /// by the parent when the compile ran in a worker process.
  bool codegenFromMemo = false;
  double seconds = 0;
  bool ok() const { return failure == FailureKind::None; }
};

}  // namespace mlgo
