// mlgo export: a trained policy in a form a compiler (or PyTorch) runs
// without mlgo.
#include <cstdio>
#include <memory>

#include "commands.h"
#include "common_options.h"
#include "mlgo/export/llvm_aot_export.h"
#include "mlgo/support/exit_codes.h"
#include "training_library_loader.h"

namespace mlgo::cli {

namespace {

struct ExportFlags {
  std::string policy;
  std::string format;
  std::string output;
  bool force = false;
};

int runExport(const ExportFlags &flags) {
  const PolicyModel policy = loadInliningPolicy(flags.policy);
  if (flags.format == "llvm-aot") {
    exportLlvmAot(policy, "policy " + flags.policy, flags.output, flags.force);
    std::printf("wrote %s and %s (llvm::InlinerSizeModel, %zu features) to %s\n", kAotHeaderName, kAotSourceName,
                policy.preprocessor().inputCount(), flags.output.c_str());
  } else {
    trainingLibrary().exportTorchScript(policy, flags.output, flags.force);
    std::printf("wrote TorchScript module (%zu named int64 feature inputs) to %s\n",
                policy.preprocessor().inputCount(), flags.output.c_str());
  }
  return exit_code::kSuccess;
}

}  // namespace

void addExportCommand(CLI::App *command, CommandRunner &runner) {
  auto flags = std::make_shared<ExportFlags>();
  command->add_option("--policy", flags->policy, "Policy directory (from train-bc or train-ppo)")->required();
  command->add_option("--format", flags->format,
                      "llvm-aot: C++ llvm::InlinerSizeModel (a directory with InlinerSizeModel.h/.cpp); "
                      "torchscript: a TorchScript module file")
      ->required()
      ->check(CLI::IsMember({"llvm-aot", "torchscript"}));
  command->add_option("--output", flags->output, "Directory (llvm-aot) or file (torchscript) to write")->required();
  command->add_flag("--force", flags->force, "Replace the output if it exists");
  command->callback([flags, &runner] { runner = [flags] { return runExport(*flags); }; });
}

}  // namespace mlgo::cli
