#pragma once
// A trained policy of yes/no decisions (inlining), independent of the
// framework that trained it: feature preprocessing plus a small MLP evaluated
// in plain C++ (a few microseconds a decision, no LibTorch needed to compile
// with it).
//
// On disk a policy is a directory:
//   policy.json   metadata, written last: feature names, vocab fingerprint,
//                 preprocessing switches, network shape, how it was trained
//   model.json    the layers' weights and biases
//   vocab/        the <feature>.buckets files it was trained with
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "mlgo/policy/dense_network.h"
#include "mlgo/policy/policy_directory.h"
#include "mlgo/policy/preprocessing.h"

namespace mlgo {

class YesNoPolicy {
 public:
  static constexpr const char *kMetadataFile = policy_directory::kMetadataFile;
  static constexpr const char *kWeightsFile = policy_directory::kWeightsFile;

  YesNoPolicy() = default;
  YesNoPolicy(std::string problem, FeaturePreprocessor preprocessor, std::vector<DenseLayer> layers,
              Activation activation);

  /// Logits of the 2 actions (0: do not, 1: do) for raw feature values.
  void logits(const int64_t *features, float out[2]) const;
  /// Logits from already preprocessed inputs.
  void logitsFromInputs(const float *inputs, float out[2]) const;
  /// argmax of the logits (ties: 0).
  bool decide(const int64_t *features) const;

  const std::string &problem() const { return problem_; }
  const FeaturePreprocessor &preprocessor() const { return preprocessor_; }
  const DenseNetwork &network() const { return network_; }
  const std::vector<DenseLayer> &layers() const { return network_.layers(); }
  Activation activation() const { return network_.activation(); }
  std::vector<size_t> hiddenSizes() const { return network_.hiddenSizes(); }
  std::string vocabFingerprint() const;

  /// Free-form record of how the policy was made (trainer, data, config, seed).
  nlohmann::json training = nlohmann::json::object();

  /// The content of policy.json.
  nlohmann::json metadata() const;
  /// Writes the directory atomically: into DIR.partial, then renamed over DIR.
  void save(const std::filesystem::path &directory) const;
  /// Loads and checks a policy directory against the compiler's feature set.
  /// Throws InputError naming the file and what does not match.
  static YesNoPolicy load(const std::filesystem::path &directory, const std::string &problem,
                          const std::vector<std::string> &expectedFeatures);
  /// The whole policy (preprocessing, vocab, weights, training record) as
  /// bytes, for sending it to other ranks; deserialize gives back an equal
  /// model, every float bit for bit. deserialize throws std::runtime_error
  /// for bytes that are not a serialized policy.
  std::string serialize() const;
  static YesNoPolicy deserialize(std::string_view bytes);
  /// Throws InputError when `vocabDirectory` does not preprocess like this policy.
  void checkVocab(const std::filesystem::path &vocabDirectory) const;

 private:
  std::string problem_;
  FeaturePreprocessor preprocessor_;
  DenseNetwork network_;
};

}  // namespace mlgo
