#pragma once
// Process-wide LLVM set-up the driver needs exactly once: targets, and the
// recorded -mllvm options (LLVM keeps them in global cl::opt state, so one set
// applies to every compile of the process).
#include <string>
#include <vector>

namespace mlgo {

void initializeLLVMTargets();

/// Applies -mllvm options for the whole process. The first call wins; a later
/// call with a different set throws UsageError. Options off the allow-list
/// (mlgo/driver/backend_options.h) are refused with InputError.
void applyBackendOptions(const std::vector<std::string> &options);

/// The set applied by applyBackendOptions (empty before any call).
std::vector<std::string> appliedBackendOptions();

}  // namespace mlgo
