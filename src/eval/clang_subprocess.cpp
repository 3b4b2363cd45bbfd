#include "mlgo/eval/clang_subprocess.h"

#include <atomic>

#include <llvm/Support/Program.h>

#include "mlgo/driver/object_sizes.h"
#include "mlgo/driver/recorded_arguments.h"
#include "mlgo/support/atomic_file.h"
#include "mlgo/support/subprocess.h"

namespace mlgo {

namespace fs = std::filesystem;

std::string findClang(const std::string &requested) {
  if (!requested.empty()) return fs::exists(requested) ? requested : "";
  if (auto found = llvm::sys::findProgramByName("clang-19")) return *found;
  const char *fallback = "/usr/lib/llvm-19/bin/clang";
  return fs::exists(fallback) ? fallback : "";
}

CompileResult compileWithClangSubprocess(const std::string &clang, const CorpusModule &module,
                                         const fs::path &scratchDirectory, std::chrono::milliseconds timeout,
                                         const std::vector<std::string> &extraArguments) {
  static std::atomic<unsigned> counter{0};
  CompileResult result;
  const auto start = std::chrono::steady_clock::now();
  const fs::path object = scratchDirectory / ("module-" + std::to_string(counter++) + ".o");
  std::vector<std::string> args{clang, "-cc1"};
  const bool thinltoModule = !module.thinltoIndexPath.empty();
  for (std::string &arg : argumentsForBitcode(module.commandLine, module.bitcodePath.string(), thinltoModule))
    args.push_back(std::move(arg));
  if (thinltoModule)
    for (std::string &arg : thinltoBackendArguments(module.thinltoIndexPath.string())) args.push_back(std::move(arg));
  args.insert(args.end(), extraArguments.begin(), extraArguments.end());
  args.insert(args.end(), {"-o", object.string()});
  const ProcessOutcome outcome = runProcess(args, timeout);
  if (!outcome.succeeded()) {
    result.failure = outcome.timedOut ? FailureKind::Timeout : FailureKind::CompileError;
    result.message = !outcome.started ? outcome.error
                     : outcome.timedOut ? "clang ran past the timeout"
                     : outcome.signal  ? "clang died with signal " + std::to_string(outcome.signal)
                                       : "clang exited with status " + std::to_string(outcome.exitCode);
    if (!outcome.stderrText.empty()) result.message += ": " + outcome.stderrText.substr(0, 2000);
  } else {
    std::string sizeError;
    if (!measureObjectSizes(readFile(object), result.sizes, sizeError)) {
      result.failure = FailureKind::CompileError;
      result.message = "cannot read clang's object: " + sizeError;
    }
  }
  std::error_code ignored;
  fs::remove(object, ignored);
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

}  // namespace mlgo
