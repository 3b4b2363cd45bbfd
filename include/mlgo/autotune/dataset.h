#pragma once
// `mlgo autotune --dataset FILE`: one JSON line per tuned module with its
// unoptimized IR, the best pass list and the sizes before (-Oz) and after:
// what a learned pass-list predictor (an LLM Compiler-style model or a small
// classifier) is trained on.
#include <filesystem>

#include "mlgo/autotune/autotuner.h"

namespace mlgo::autotune {

/// Writes the dataset atomically. Modules whose -Oz compile failed are left out.
void writeDataset(const AutotuneReport &report, const Corpus &corpus, const SearchSpace &space,
                  const AutotuneOptions &options, const std::filesystem::path &file);

/// The textual IR of a bitcode file. Throws InputError naming it when unreadable.
std::string bitcodeToText(const std::filesystem::path &bitcode);

}  // namespace mlgo::autotune
