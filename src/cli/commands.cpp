#include "commands.h"

namespace mlgo::cli {

const std::vector<Subcommand> &subcommands() {
  static const std::vector<Subcommand> table{
      {"extract-ir", "Extract embedded bitcode and command lines from a build into a corpus",
       addExtractIRCommand, false, false},
      {"combine-corpus",
       "Combine the corpora in the subdirectories of a directory into one corpus there "
       "(module names become <subdirectory>/<module>; nothing is copied)",
       addCombineCorpusCommand, false, false},
      {"eval", "Compile a corpus and compare sizes with the -Oz default",
       addEvalCommand, false, false, "--json"},
      {"cc",
       "Compiler launcher: build with a policy or tuned pass lists (mlgo cc [options] clang-19 ARGS...; "
       "everything else runs the real compiler)",
       addCcCommand, false, false},
      {"compare-builds",
       "Build a project with clang-19 and through mlgo cc (with a policy, tuned lists); compare linked sizes and tests",
       addCompareBuildsCommand, false, false, "--output"},
      {"default-trace", "Record the default heuristic's decisions over a corpus",
       addDefaultTraceCommand, true, false, "--output"},
      {"explore", "Search each module's decisions around a baseline; write the best as a trace",
       addExploreCommand, true, false, "--output"},
      {"trace-info", "Counts, feature ranges, or one module's decisions of a trace",
       addTraceInfoCommand, false, false},
      {"gen-vocab", "Quantile bucket boundaries for every feature of a trace",
       addGenVocabCommand, false, false, "--output-dir"},
      {"train-bc", "Behavioral cloning of a trace's decisions (warm start)",
       addTrainBCCommand, false, true, "--output"},
      {"train-ppo", "Reinforcement learning (PPO) with in-process collection over a corpus",
       addTrainPPOCommand, true, true, "--output"},
      {"train-es", "Evolution strategies over a policy's weights (antithetic perturbations, whole compiles)",
       addTrainESCommand, true, false, "--output"},
      {"export", "Export a policy for a release-mode LLVM build or for PyTorch",
       addExportCommand, false, false},
      {"serve", "Answer a stock clang's decisions with a policy over LLVM's interactive channel",
       addServeCommand, false, false},
      {"autotune", "Per-module pass-list search for code size (LLM Compiler's autotuner)",
       addAutotuneCommand, true, false, "--output"},
      {"harvest",
       "Grow a pass-list pool: search every module it does not hold yet, keep its best gated lists (resumable)",
       addHarvestCommand, false, false},
      {"pool-info", "What a harvested pass-list pool holds, and how much of a corpus it covers",
       addPoolInfoCommand, false, false},
      {"sweep-passes", "Compile every module under every list of a pool: the data of a pass-list predictor",
       addSweepPassesCommand, true, false, "--output"},
      {"select-coreset", "Choose the few lists of a sweep that cover most of its gain over -Oz",
       addSelectCoresetCommand, false, false, "--output"},
      {"train-pass-predictor", "Learn which coreset lists suit a module, from a sweep",
       addTrainPassPredictorCommand, false, true, "--output"},
      {"predict-passes", "Rank a predictor's pass lists for each module, without compiling",
       addPredictPassesCommand, false, false},
      {"report", "Plot a training run and its evaluations (PNG, gnuplot) and write one HTML page with the table",
       addReportCommand, false, false},
      {"mllvm-options", "Print the -mllvm options a corpus may record; modules recording others are refused",
       addMllvmOptionsCommand, false, false},
      {"compare-runs", "Say whether two runs are the same run with the same result, or name the first difference",
       addCompareRunsCommand, false, false},
      {"compile-worker", "Internal: compiles modules of a corpus on request",
       addCompileWorkerCommand, false, false},
  };
  return table;
}

}  // namespace mlgo::cli
