#pragma once
// `mlgo gen-vocab`: quantile bucket boundaries for every feature of a trace.
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace mlgo {

struct GenVocabOptions {
  std::filesystem::path trace;
  std::filesystem::path outputDirectory;
  size_t numBuckets = 1000;
  double samplingFraction = 1.0;  ///< share of decisions used, chosen by seed
  uint64_t seed = 0;
};

struct GenVocabSummary {
  size_t features = 0;
  uint64_t modules = 0;
  uint64_t decisionsUsed = 0;
  /// Features with more distinct values than counted exactly (sampled).
  std::vector<std::string> sampledFeatures;
};

/// Throws InputError for an unreadable or damaged trace (nothing is written
/// then), UsageError for bad options.
GenVocabSummary generateVocab(const GenVocabOptions &options);

}  // namespace mlgo
