#pragma once
// What one compilation of one module produced: section sizes of the object
// (measured in memory, no files), the IR instruction count after optimization,
// or the reason it failed.
#include <cstdint>
#include <optional>
#include <string>

namespace mlgo {

/// Section sizes in bytes, classified as llvm-size (Berkeley) does for ELF:
///   text   = sections with SHF_EXECINSTR (MLGO's native size)
///   data   = writable allocated PROGBITS sections (.data, .data.rel.ro, ...)
///   rodata = read-only allocated PROGBITS sections (.rodata*, ...)
///   bss    = allocated NOBITS sections (.bss, .tbss)
struct SectionSizes {
  uint64_t text = 0;
  uint64_t data = 0;
  uint64_t rodata = 0;
  uint64_t bss = 0;
  /// llvm-size's text + data columns (its "data" includes .rodata), no .bss:
  /// the binary size LLM Compiler optimizes.
  uint64_t textPlusData() const { return text + data + rodata; }
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
  double seconds = 0;
  bool ok() const { return failure == FailureKind::None; }
};

}  // namespace mlgo
