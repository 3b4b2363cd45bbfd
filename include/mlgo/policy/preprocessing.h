#pragma once
// Feature preprocessing as ml-compiler-opt does it for inlining: each feature
// is bucketized against its vocab boundaries (tf.raw_ops.Bucketize: the number
// of boundaries <= value), x = bucket / number of boundaries, and the network
// sees [x, x^2] per feature, plus sqrt(x) and a z-score term when switched on.
// Features listed as pass-through enter as their raw value.
#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace mlgo {

struct PreprocessingConfig {
  bool withSqrt = false;
  /// Appends (value - mean) / (std + 1e-8) per feature, with mean and std
  /// measured on the training data and stored with the policy (ml-compiler-opt
  /// takes them per batch, which is undefined for one decision at a time).
  bool withZScore = false;
  std::vector<std::string> passthrough;
};

class FeaturePreprocessor {
 public:
  FeaturePreprocessor() = default;
  /// Throws InputError when a normalized feature has no boundaries.
  FeaturePreprocessor(std::vector<std::string> featureNames, std::map<std::string, std::vector<double>> vocab,
                      PreprocessingConfig config);

  size_t inputCount() const { return featureNames_.size(); }
  size_t outputCount() const { return outputCount_; }
  const std::vector<std::string> &featureNames() const { return featureNames_; }
  const std::map<std::string, std::vector<double>> &vocab() const { return vocab_; }
  const PreprocessingConfig &config() const { return config_; }

  /// Sets the z-score statistics (one mean and std per feature).
  void setZScoreStatistics(std::vector<double> means, std::vector<double> stddevs);
  const std::vector<double> &zScoreMeans() const { return means_; }
  const std::vector<double> &zScoreStddevs() const { return stddevs_; }

  /// A feature's boundaries without repeats and, for each, how many
  /// boundaries are <= it: vocabs repeat values a lot (a constant feature has
  /// 1000 equal boundaries), so the search per decision gets much shorter.
  /// Empty for a pass-through feature. Exporters compile these tables in.
  struct Buckets {
    std::vector<double> distinct;
    std::vector<float> rankOf;  ///< boundaries <= distinct[k], over their count
  };
  const Buckets &buckets(size_t feature) const { return buckets_[feature]; }
  bool isPassthrough(size_t feature) const { return buckets_[feature].distinct.empty(); }

  /// Writes outputCount() floats.
  void transform(const int64_t *features, float *out) const;

  /// A stable hash of feature names and boundaries: a policy and a vocab with
  /// the same fingerprint preprocess identically.
  static std::string fingerprint(const std::vector<std::string> &featureNames,
                                 const std::map<std::string, std::vector<double>> &vocab);

 private:
  std::vector<std::string> featureNames_;
  std::map<std::string, std::vector<double>> vocab_;
  PreprocessingConfig config_;
  std::vector<Buckets> buckets_;  ///< per feature, in order
  std::vector<double> means_, stddevs_;
  size_t outputCount_ = 0;
};

/// A preprocessor for `featureNames` whose normalized features (all but the
/// pass-through ones) take their boundaries from the vocab directory's
/// <feature>.buckets files. Throws InputError naming a missing or bad file.
FeaturePreprocessor preprocessorFromVocab(const std::vector<std::string> &featureNames,
                                          const std::filesystem::path &vocabDirectory,
                                          PreprocessingConfig config);

/// The bucket of `value`: how many boundaries are <= value.
size_t bucketize(const std::vector<double> &boundaries, double value);

}  // namespace mlgo
