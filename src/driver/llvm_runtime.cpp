#include "mlgo/driver/llvm_runtime.h"

#include <mutex>

#include <llvm/Support/CommandLine.h>
#include <llvm/Support/TargetSelect.h>

#include "mlgo/driver/backend_options.h"
#include "mlgo/support/errors.h"

namespace mlgo {

namespace {
std::mutex gBackendMutex;
bool gBackendApplied = false;
std::vector<std::string> gBackendOptions;
}  // namespace

void initializeLLVMTargets() {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::InitializeAllTargetInfos();
    llvm::InitializeAllTargets();
    llvm::InitializeAllTargetMCs();
    llvm::InitializeAllAsmPrinters();
    llvm::InitializeAllAsmParsers();
  });
}

void applyBackendOptions(const std::vector<std::string> &options) {
  std::lock_guard<std::mutex> lock(gBackendMutex);
  if (gBackendApplied) {
    if (options != gBackendOptions)
      throw UsageError("-mllvm options were already applied for this process with a different set");
    return;
  }
  for (const std::string &option : options)
    if (std::string why = refusedBackendOption(option); !why.empty()) throw InputError(why);
  gBackendApplied = true;
  gBackendOptions = options;
  if (options.empty()) return;
  std::vector<const char *> argv{"mlgo"};
  for (const std::string &option : options) argv.push_back(option.c_str());
  std::string errors;
  llvm::raw_string_ostream errorStream(errors);
  if (!llvm::cl::ParseCommandLineOptions(static_cast<int>(argv.size()), argv.data(), "", &errorStream))
    throw InputError("recorded -mllvm options are invalid: " + errorStream.str());
}

std::vector<std::string> appliedBackendOptions() {
  std::lock_guard<std::mutex> lock(gBackendMutex);
  return gBackendOptions;
}

}  // namespace mlgo
