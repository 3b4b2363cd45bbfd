#pragma once
// `mlgo export --format torchscript`: a policy as a TorchScript module that
// LibTorch (C++) and PyTorch load without mlgo. forward() takes one int64
// tensor per feature, named and ordered as LLVM names them (shape [1] as LLVM
// passes them, or [N] for a batch), and returns the decisions (int64 [N],
// 1 = inline); logits() returns the two logits per decision. Preprocessing
// (vocab boundaries) and weights are buffers of the module.
#include <filesystem>
#include <string>

#include "mlgo/policy/yes_no_policy.h"

namespace mlgo {

/// The TorchScript source of the module's methods (exposed for tests).
std::string torchScriptSource(const YesNoPolicy &policy);

/// Writes the module to `file` atomically (temporary name, then rename), with
/// the policy's policy.json as the archive's extra file "mlgo_policy.json".
/// Throws UsageError when `file` exists and `replace` is false.
void exportTorchScript(const YesNoPolicy &policy, const std::filesystem::path &file, bool replace);

}  // namespace mlgo
