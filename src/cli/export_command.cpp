// mlgo export: a trained policy in a form a compiler (or PyTorch) runs
// without mlgo.
#include <cstdio>
#include <filesystem>
#include <memory>

#include "commands.h"
#include "common_options.h"
#include "mlgo/policy/yes_no_policy.h"
#include "mlgo/problems/problem.h"
#include "mlgo/support/errors.h"
#include "mlgo/support/exit_codes.h"
#include "mlgo/training/decision_kinds.h"
#include "training_library_loader.h"

namespace mlgo::cli {

namespace {

struct ExportFlags {
  std::string policy;
  std::string format;
  std::string output;
  std::string problem;  ///< empty: chosenProblem decides
  bool force = false;
};

/// LLVM's compiled-in model class of the problem: what llvm-aot defines.
ReleaseModeModel releaseModeModelOf(const Problem &problem) {
  const std::optional<ReleaseModeModel> model = problem.releaseModeModel();
  if (!model)
    throw UsageError("LLVM 19 has no release-mode model for " + problem.name() + ": nothing for llvm-aot to define");
  return *model;
}

/// The same message for every kind: the files, the class, its inputs and the
/// decision it answers.
int writeModel(const Problem &problem, const ExportFlags &flags, const GeneratedSources &sources) {
  writeGeneratedSources(sources, flags.output, flags.force);
  const trace::DecisionSpec &spec = problem.decisionSpec();
  std::printf("wrote %s and %s (llvm::%s: %zu feature tensors; %s: %s) to %s\n", sources.headerName().c_str(),
              sources.sourceName().c_str(), sources.className.c_str(), spec.features.size(),
              releaseModeModelOf(problem).decisionName.c_str(), trace::decisionKindName(spec.kind()),
              flags.output.c_str());
  return exit_code::kSuccess;
}

/// TorchScript modules exist for yes/no policies only (LibTorch runs the
/// inliner's two logits); the other kinds are refused before their policy is
/// read.
[[noreturn]] void refuseTorchScript(const Problem &problem) {
  throw UsageError("a " + problem.name() + " policy exports only as llvm-aot: its decisions are " +
                   trace::decisionKindName(problem.decisionSpec().kind()) +
                   ", and --format torchscript writes yes/no policies");
}

/// llvm-aot writes a directory, torchscript a file: an output of the other
/// kind is a bad flag value, found before the policy is read.
void checkOutputKind(const ExportFlags &flags) {
  const std::filesystem::path output = flags.output;
  if (flags.output.empty())
    throw UsageError("--output is empty: name the " +
                     std::string(flags.format == "torchscript" ? "file" : "directory") + " to write");
  if (flags.format == "torchscript" && (std::filesystem::is_directory(output) || flags.output.back() == '/'))
    throw UsageError("--output " + flags.output + " is a directory: --format torchscript writes a file");
  if (flags.format == "llvm-aot" && std::filesystem::exists(output) && !std::filesystem::is_directory(output))
    throw UsageError("--output " + flags.output + " is a file: --format llvm-aot writes a directory");
}

/// The kind's exporter (mlgo/training/decision_kinds.h); TorchScript for
/// the kinds that have it.
int runExport(const ExportFlags &flags) {
  checkOutputKind(flags);
  const Problem &problem = chosenProblem(flags.problem, flags.policy);
  const DecisionKindBundle &kind = decisionKindBundle(problem.decisionSpec().kind());
  if (flags.format == "torchscript") {
    if (!kind.torchScript) refuseTorchScript(problem);
    const YesNoPolicy policy = YesNoPolicy::load(flags.policy, problem.name(), problem.featureNames());
    trainingLibrary().exportTorchScript(policy, flags.output, flags.force);
    std::printf("wrote TorchScript module (%zu named int64 feature inputs) to %s\n",
                policy.preprocessor().inputCount(), flags.output.c_str());
    return exit_code::kSuccess;
  }
  return writeModel(problem, flags,
                    kind.exportModel(problem, flags.policy, releaseModeModelOf, "policy " + flags.policy));
}

}  // namespace

void addExportCommand(CLI::App *command, CommandRunner &runner) {
  auto flags = std::make_shared<ExportFlags>();
  command->add_option("--policy", flags->policy, "Policy directory (from train-bc, train-ppo or train-es)")->required();
  command->add_option("--format", flags->format,
                      "llvm-aot: C++ for a release-mode LLVM (llvm::InlinerSizeModel, llvm::RegAllocEvictModel, "
                      "llvm::RegAllocPriorityModel: "
                      "a directory with CLASS.h/.cpp); torchscript: a TorchScript module file (inlining)")
      ->required()
      ->check(CLI::IsMember({"llvm-aot", "torchscript"}));
  command->add_option("--output", flags->output, "Directory (llvm-aot) or file (torchscript) to write")->required();
  addProblemOption(*command, flags->problem, "The policy's problem");
  command->add_flag("--force", flags->force, "Replace the output if it exists");
  command->callback([flags, &runner] { runner = [flags] { return runExport(*flags); }; });
}

}  // namespace mlgo::cli
