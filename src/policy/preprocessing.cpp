#include "mlgo/policy/preprocessing.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "mlgo/support/crc32c.h"
#include "mlgo/support/errors.h"
#include "mlgo/policy/vocab_files.h"

namespace mlgo {

FeaturePreprocessor preprocessorFromVocab(const std::vector<std::string> &featureNames,
                                          const std::filesystem::path &vocabDirectory, PreprocessingConfig config) {
  std::vector<std::string> normalized;
  for (const std::string &name : featureNames)
    if (std::find(config.passthrough.begin(), config.passthrough.end(), name) == config.passthrough.end())
      normalized.push_back(name);
  return FeaturePreprocessor(featureNames, readVocab(vocabDirectory, normalized), std::move(config));
}

size_t bucketize(const std::vector<double> &boundaries, double value) {
  return std::upper_bound(boundaries.begin(), boundaries.end(), value) - boundaries.begin();
}

FeaturePreprocessor::FeaturePreprocessor(std::vector<std::string> featureNames,
                                         std::map<std::string, std::vector<double>> vocab, PreprocessingConfig config)
    : featureNames_(std::move(featureNames)), vocab_(std::move(vocab)), config_(std::move(config)) {
  for (const std::string &name : featureNames_) {
    const bool passthrough =
        std::find(config_.passthrough.begin(), config_.passthrough.end(), name) != config_.passthrough.end();
    if (passthrough) {
      ++outputCount_;
      buckets_.emplace_back();
    } else {
      auto found = vocab_.find(name);
      if (found == vocab_.end() || found->second.empty())
        throw InputError("the vocab has no boundaries for feature " + name);
      const std::vector<double> &boundaries = found->second;
      Buckets buckets;
      for (size_t i = 0; i < boundaries.size(); ++i) {
        if (i + 1 < boundaries.size() && boundaries[i + 1] == boundaries[i]) continue;  // keep the last of a run
        buckets.distinct.push_back(boundaries[i]);
        buckets.rankOf.push_back(static_cast<float>(i + 1) / static_cast<float>(boundaries.size()));
      }
      buckets_.push_back(std::move(buckets));
      outputCount_ += 2 + (config_.withSqrt ? 1 : 0) + (config_.withZScore ? 1 : 0);
    }
  }
  for (const std::string &name : config_.passthrough)
    if (std::find(featureNames_.begin(), featureNames_.end(), name) == featureNames_.end())
      throw InputError("pass-through feature " + name + " is not a feature of this problem");
  means_.assign(featureNames_.size(), 0.0);
  stddevs_.assign(featureNames_.size(), 1.0);
}

void FeaturePreprocessor::setZScoreStatistics(std::vector<double> means, std::vector<double> stddevs) {
  means_ = std::move(means);
  stddevs_ = std::move(stddevs);
}

void FeaturePreprocessor::transform(const int64_t *values, float *out) const {
  for (size_t f = 0; f < buckets_.size(); ++f) {
    const double value = static_cast<double>(values[f]);
    const Buckets &buckets = buckets_[f];
    if (buckets.distinct.empty()) {
      *out++ = static_cast<float>(value);
      continue;
    }
    // bucketize(boundaries, value) / boundaries.size(), over distinct values.
    const size_t above = std::upper_bound(buckets.distinct.begin(), buckets.distinct.end(), value) -
                         buckets.distinct.begin();
    const float x = above == 0 ? 0.0f : buckets.rankOf[above - 1];
    *out++ = x;
    *out++ = x * x;
    if (config_.withSqrt) *out++ = std::sqrt(x);
    if (config_.withZScore) *out++ = static_cast<float>((value - means_[f]) / (stddevs_[f] + 1e-8));
  }
}

std::string FeaturePreprocessor::fingerprint(const std::vector<std::string> &featureNames,
                                             const std::map<std::string, std::vector<double>> &vocab) {
  uint32_t crc = 0;
  for (const std::string &name : featureNames) {
    crc = crc32c(name.data(), name.size() + 1, crc);
    auto found = vocab.find(name);
    if (found == vocab.end()) continue;
    for (double boundary : found->second) crc = crc32c(&boundary, sizeof boundary, crc);
  }
  char hex[16];
  std::snprintf(hex, sizeof hex, "crc32c:%08x", crc);
  return hex;
}

}  // namespace mlgo
