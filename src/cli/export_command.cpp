// mlgo export: a trained policy in a form a compiler (or PyTorch) runs
// without mlgo.
#include <cstdio>
#include <filesystem>
#include <memory>

#include "commands.h"
#include "common_options.h"
#include "mlgo/export/yes_no_model_aot.h"
#include "mlgo/export/position_model_aot.h"
#include "mlgo/export/continuous_model_aot.h"
#include "mlgo/problems/problem.h"
#include "mlgo/support/errors.h"
#include "mlgo/support/exit_codes.h"
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

/// Policies of yes/no decisions: both formats.
int exportYesNoPolicy(const Problem &problem, const ExportFlags &flags) {
  const YesNoPolicy policy = YesNoPolicy::load(flags.policy, problem.name(), problem.featureNames());
  if (flags.format == "llvm-aot") {
    const GeneratedSources sources = exportLlvmAot(policy, "policy " + flags.policy, flags.output, flags.force);
    std::printf("wrote %s and %s (llvm::%s, %zu features) to %s\n", sources.headerName().c_str(),
                sources.sourceName().c_str(), sources.className.c_str(), policy.preprocessor().inputCount(),
                flags.output.c_str());
  } else {
    trainingLibrary().exportTorchScript(policy, flags.output, flags.force);
    std::printf("wrote TorchScript module (%zu named int64 feature inputs) to %s\n",
                policy.preprocessor().inputCount(), flags.output.c_str());
  }
  return exit_code::kSuccess;
}

/// LLVM's compiled-in model class of the problem, the only format of
/// policies other than yes/no ones.
ReleaseModeModel releaseModeModelOf(const Problem &problem, const ExportFlags &flags) {
  const std::optional<ReleaseModeModel> model = problem.releaseModeModel();
  if (flags.format != "llvm-aot" || !model)
    throw UsageError("a " + problem.name() + " policy exports only as llvm-aot" +
                     (model ? "" : ", and LLVM has no release-mode model for " + problem.name()));
  return *model;
}

/// Policies choosing among positions (register-allocation eviction).
int exportPositionPolicy(const Problem &problem, const ExportFlags &flags) {
  const ReleaseModeModel model = releaseModeModelOf(problem, flags);
  const PositionPolicy policy = PositionPolicy::load(flags.policy, problem.name(), problem.decisionSpec());
  const GeneratedSources sources = generatePositionModel(policy, model, "policy " + flags.policy);
  writeGeneratedSources(sources, flags.output, flags.force);
  std::printf("wrote %s and %s (llvm::%s, %zu feature tensors, %zu positions) to %s\n",
              sources.headerName().c_str(), sources.sourceName().c_str(), model.className.c_str(),
              policy.spec().features.size(), policy.layout().positions(), flags.output.c_str());
  return exit_code::kSuccess;
}

/// Policies deciding a real value (register-allocation priority).
int exportContinuousPolicy(const Problem &problem, const ExportFlags &flags) {
  const ReleaseModeModel model = releaseModeModelOf(problem, flags);
  const ContinuousPolicy policy = ContinuousPolicy::load(flags.policy, problem.name(), problem.decisionSpec());
  const GeneratedSources sources = generateContinuousModel(policy, model, "policy " + flags.policy);
  writeGeneratedSources(sources, flags.output, flags.force);
  std::printf("wrote %s and %s (llvm::%s, %zu features, a float %s) to %s\n", sources.headerName().c_str(),
              sources.sourceName().c_str(), model.className.c_str(), policy.features(), model.decisionName.c_str(),
              flags.output.c_str());
  return exit_code::kSuccess;
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

int runExport(const ExportFlags &flags) {
  checkOutputKind(flags);
  const Problem &problem = chosenProblem(flags.problem, flags.policy);
  switch (problem.decisionSpec().kind()) {
    case trace::DecisionKind::YesNo: return exportYesNoPolicy(problem, flags);
    case trace::DecisionKind::Position: return exportPositionPolicy(problem, flags);
    case trace::DecisionKind::Continuous: return exportContinuousPolicy(problem, flags);
  }
  throw std::logic_error("unknown kind of decision");
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
