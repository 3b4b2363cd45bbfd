#include "mlgo/eval/fidelity_check.h"

#include <cstdio>
#include <filesystem>

#include "mlgo/eval/clang_subprocess.h"
#include "mlgo/support/parallel_for.h"
#include "mlgo/support/temporary_directory.h"

namespace mlgo {

FidelityReport checkFidelity(const Corpus &corpus, const std::vector<CompileResult> &driverResults,
                             const std::string &clang, unsigned threads, std::chrono::milliseconds timeout) {
  FidelityReport report;
  report.threads = resolveThreadCount(threads);
  const RunTemporaryDirectory scratch("mlgo-fidelity");
  std::vector<CompileResult> clangResults(corpus.modules.size());
  const auto start = std::chrono::steady_clock::now();
  parallelFor(corpus.modules.size(), threads, [&](size_t i) {
    if (driverResults[i].ok())
      clangResults[i] = compileWithClangSubprocess(clang, corpus.modules[i], scratch.path(), timeout);
  });
  report.clangWallSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  for (size_t i = 0; i < corpus.modules.size(); ++i) {
    if (!driverResults[i].ok()) continue;
    ++report.compared;
    const CompileResult &reference = clangResults[i];
    if (reference.ok() && reference.sizes.text == driverResults[i].sizes.text) {
      ++report.matching;
      continue;
    }
    FidelityMismatch mismatch{corpus.modules[i].name, driverResults[i].sizes.text, reference.sizes.text, ""};
    if (!reference.ok()) mismatch.clangFailure = reference.message;
    report.mismatches.push_back(std::move(mismatch));
  }
  return report;
}

nlohmann::json fidelityReportToJson(const FidelityReport &report) {
  nlohmann::json mismatches = nlohmann::json::array();
  for (const FidelityMismatch &m : report.mismatches) {
    nlohmann::json entry{{"name", m.name}, {"driver_text", m.driverText}, {"clang_text", m.clangText}};
    if (!m.clangFailure.empty()) entry["clang_failure"] = m.clangFailure;
    mismatches.push_back(std::move(entry));
  }
  return {{"compared", report.compared},
          {"matching", report.matching},
          {"match_rate", report.matchRate()},
          {"mismatches", std::move(mismatches)},
          {"clang_wall_seconds", report.clangWallSeconds},
          {"driver_wall_seconds", report.driverWallSeconds},
          {"threads", report.threads}};
}

std::string fidelityReportToText(const FidelityReport &report) {
  char line[256];
  std::snprintf(line, sizeof line, "fidelity: .text equal to clang-19 -cc1 for %zu of %zu modules (%.2f%%)\n",
                report.matching, report.compared, 100 * report.matchRate());
  std::string out = line;
  if (report.driverWallSeconds > 0) {
    std::snprintf(line, sizeof line,
                  "speed: in-process driver %.1f s, clang-19 -cc1 subprocesses %.1f s, both on %u threads: %.2fx\n",
                  report.driverWallSeconds, report.clangWallSeconds, report.threads,
                  report.clangWallSeconds / report.driverWallSeconds);
    out += line;
  }
  for (const FidelityMismatch &m : report.mismatches) {
    if (!m.clangFailure.empty())
      out += "fidelity: " + m.name + ": clang failed: " + m.clangFailure + "\n";
    else
      out += "fidelity: " + m.name + ": driver .text " + std::to_string(m.driverText) + ", clang .text " +
             std::to_string(m.clangText) + "\n";
  }
  return out;
}

}  // namespace mlgo
