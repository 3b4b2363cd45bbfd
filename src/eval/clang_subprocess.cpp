#include "mlgo/eval/clang_subprocess.h"

#include <atomic>

#include <llvm/ADT/StringRef.h>
#include <llvm/Support/Program.h>

#include "mlgo/driver/object_sizes.h"
#include "mlgo/driver/recorded_arguments.h"
#include "mlgo/support/atomic_file.h"

namespace mlgo {

namespace fs = std::filesystem;

std::string findClang(const std::string &requested) {
  if (!requested.empty()) return fs::exists(requested) ? requested : "";
  if (auto found = llvm::sys::findProgramByName("clang-19")) return *found;
  const char *fallback = "/usr/lib/llvm-19/bin/clang";
  return fs::exists(fallback) ? fallback : "";
}

CompileResult compileWithClangSubprocess(const std::string &clang, const CorpusModule &module,
                                         const fs::path &scratchDirectory, std::chrono::milliseconds timeout) {
  static std::atomic<unsigned> counter{0};
  CompileResult result;
  const auto start = std::chrono::steady_clock::now();
  const fs::path object = scratchDirectory / ("module-" + std::to_string(counter++) + ".o");
  const fs::path errors = fs::path(object.string() + ".err");
  std::vector<std::string> args{clang, "-cc1"};
  for (std::string &arg : argumentsForBitcode(module.commandLine, module.bitcodePath.string()))
    args.push_back(std::move(arg));
  args.insert(args.end(), {"-o", object.string()});
  std::vector<llvm::StringRef> argv(args.begin(), args.end());
  std::string errorMessage;
  const std::optional<llvm::StringRef> redirects[] = {llvm::StringRef(""), llvm::StringRef(""),
                                                      llvm::StringRef(errors.string())};
  const unsigned seconds = timeout.count() > 0 ? static_cast<unsigned>((timeout.count() + 999) / 1000) : 0;
  const int status = llvm::sys::ExecuteAndWait(clang, argv, std::nullopt, redirects, seconds, 0, &errorMessage);
  if (status != 0) {
    result.failure = status == -2 && seconds ? FailureKind::Timeout : FailureKind::CompileError;
    result.message = "clang exited with status " + std::to_string(status) + " " + errorMessage;
    try {
      result.message += ": " + readFile(errors).substr(0, 2000);
    } catch (...) {
    }
  } else {
    std::string sizeError;
    if (!measureObjectSizes(readFile(object), result.sizes, sizeError)) {
      result.failure = FailureKind::CompileError;
      result.message = "cannot read clang's object: " + sizeError;
    }
  }
  std::error_code ignored;
  fs::remove(object, ignored);
  fs::remove(errors, ignored);
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

}  // namespace mlgo
