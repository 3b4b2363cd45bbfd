#pragma once
// A training run's metrics.jsonl as `mlgo report` plots it. Each trainer
// records different things (train-ppo: the reward distribution, entropy,
// KL, loss terms; train-es: the candidates' fitness, compiles and replays),
// so each has its own table, plots and summary; the report only assembles
// them.
#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

namespace mlgo {

struct TrainingCurves {
  std::string trainer;             ///< "train-ppo" or "train-es"
  size_t iterations = 0;           ///< records read
  std::string table;               ///< data/training.tsv: a header line, one row per iteration
  std::string gnuplot;             ///< commands that plot data/training.tsv into `plots`
  std::vector<std::string> plots;  ///< PNG file names, in the order the page shows them
  std::string summary;             ///< one sentence for the page (plain text)
};

/// Reads a train-ppo or train-es metrics.jsonl (told apart by its records).
/// Throws InputError naming the file and the line when it is missing, empty
/// or not such a file.
TrainingCurves readTrainingCurves(const std::filesystem::path &metricsFile);

}  // namespace mlgo
