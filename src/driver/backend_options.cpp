#include "mlgo/driver/backend_options.h"

#include <algorithm>

namespace mlgo {

namespace {


std::string optionName(const std::string &option) {
  std::string name = option;
  while (!name.empty() && name.front() == '-') name.erase(0, 1);
  return name.substr(0, name.find('='));
}

bool matches(const std::string &pattern, const std::string &name) {
  if (!pattern.empty() && pattern.back() == '*')
    return name.compare(0, pattern.size() - 1, pattern, 0, pattern.size() - 1) == 0;
  return name == pattern;
}

}  // namespace

const std::vector<std::string> &sideEffectWords() {
  static const std::vector<std::string> words = {"file", "output", "dir",   "path",   "print",   "dump",
                                                 "view", "dot",    "log",   "stats",  "time",    "debug",
                                                 "remark", "channel", "load", "plugin"};
  return words;
}

const std::vector<AllowedBackendOption> &allowedBackendOptions() {
  static const std::vector<AllowedBackendOption> allowed = {
      // Inlining and unrolling thresholds: what code-size builds tune most.
      {"inline-*", "inliner thresholds and cost model"},
      {"inlinehint-threshold", "inliner threshold of inline-hinted callees"},
      {"inlinecold-threshold", "inliner threshold of cold callees"},
      {"hot-callsite-threshold", "inliner threshold of hot call sites"},
      {"locally-hot-callsite-threshold", "inliner threshold of locally hot call sites"},
      {"unroll-*", "loop unrolling thresholds and switches"},
      // Vectorization and loop transformations.
      {"force-vector-width", "loop vectorizer width"},
      {"force-vector-interleave", "loop vectorizer interleave count"},
      {"slp-threshold", "SLP vectorizer profitability threshold"},
      {"enable-interleaved-mem-accesses", "vectorization of interleaved accesses"},
      {"enable-loopinterchange", "loop interchange pass"},
      {"enable-loop-flatten", "loop flatten pass"},
      {"enable-unroll-and-jam", "unroll-and-jam pass"},
      {"enable-loop-versioning-licm", "loop versioning for LICM"},
      {"enable-gvn-hoist", "GVN hoisting"},
      {"enable-gvn-sink", "GVN sinking"},
      {"enable-dfa-jump-thread", "DFA jump threading"},
      {"enable-constraint-elimination", "constraint elimination"},
      {"extra-vectorizer-passes", "cleanup passes after vectorization"},
      {"hot-cold-split", "hot/cold function splitting"},
      {"enable-merge-functions", "merging of identical functions"},
      {"instcombine-lower-dbg-declare", "debug-info lowering in instcombine (clang sets it for sanitizers)"},
      // Code layout and target code generation.
      {"enable-machine-outliner", "machine outliner (clang sets it for -moutline)"},
      {"enable-ext-tsp-block-placement", "ext-TSP basic block placement"},
      {"align-all-functions", "function alignment"},
      {"align-all-blocks", "basic block alignment"},
      {"align-all-nofallthru-blocks", "alignment of blocks without fall-through"},
      {"x86-*", "x86 code generation (e.g. -masm=intel, branch alignment)"},
      {"aarch64-*", "AArch64 code generation"},
      {"arm-*", "ARM code generation"},
      {"treat-scalable-fixed-error-as-warning", "diagnostic level clang sets for AArch64"},
      {"generate-arange-section", "DWARF .debug_aranges (clang sets it for -gdwarf-aranges)"},
      // Sanitizer instrumentation that clang's driver passes through -mllvm.
      {"asan-*", "AddressSanitizer instrumentation"},
      {"hwasan-*", "HWAddressSanitizer instrumentation"},
      {"msan-*", "MemorySanitizer instrumentation"},
      {"tsan-*", "ThreadSanitizer instrumentation"},
  };
  return allowed;
}

std::string refusedBackendOption(const std::string &option) {
  const std::string name = optionName(option);
  size_t start = 0;
  while (start <= name.size()) {
    const size_t end = std::min(name.find('-', start), name.size());
    const std::string word = name.substr(start, end - start);
    for (const std::string &sideEffect : sideEffectWords())
      if (word.rfind(sideEffect, 0) == 0)
        return "-mllvm " + option +
               " is refused: it does more than tune code generation (see `mlgo mllvm-options`)";
    start = end + 1;
  }
  for (const AllowedBackendOption &allowed : allowedBackendOptions())
    if (matches(allowed.pattern, name)) return {};
  return "-mllvm " + option + " is not on mlgo's allow-list of code-generation options (see `mlgo mllvm-options`)";
}

}  // namespace mlgo
