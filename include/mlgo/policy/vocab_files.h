#pragma once
// ml-compiler-opt's vocab format: a directory with one `<feature>.buckets`
// file per feature, one float per line (the quantile boundaries, ascending).
#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace mlgo {

/// Writes `<directory>/<feature>.buckets` atomically.
void writeBuckets(const std::filesystem::path &directory, const std::string &feature,
                  const std::vector<double> &boundaries);

/// Reads one .buckets file; throws InputError naming the file and line for
/// anything that is not a float, or for descending values.
std::vector<double> readBuckets(const std::filesystem::path &file);

/// Reads `<directory>/<feature>.buckets` for each feature; a missing file is
/// an InputError naming it.
std::map<std::string, std::vector<double>> readVocab(const std::filesystem::path &directory,
                                                     const std::vector<std::string> &features);

/// Shortest text that reads back as the same double, Python-style ("3.0").
std::string formatFloat(double value);

}  // namespace mlgo
