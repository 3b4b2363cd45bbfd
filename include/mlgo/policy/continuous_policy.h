#pragma once
// A policy for continuous decisions of scalar features (register-allocation
// priority: a live range's size, stage and spill weight give its priority).
// A small network maps the features to the z-score of log2(1 + value): LLVM's
// priorities span 0 to 2^32 with flag bits at the top, and a regression in
// that space weighs a range's flags and its size on one scale.
//
// Each input x enters as the z-score of sign(x) log(1 + |x|), with the mean
// and standard deviation measured on the training decisions and stored with
// the policy (as PositionPolicy's inputs).
//
// On disk, a policy directory as YesNoPolicy's (policy.json, model.json),
// with "kind": "value-regression" and the decision spec it was trained on.
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "mlgo/policy/dense_network.h"
#include "mlgo/trace/decision_spec.h"

namespace mlgo {

class ContinuousPolicy {
 public:
  static constexpr const char *kKind = "value-regression";
  /// ln 2, by which decide() turns 2^t into e^(t ln 2).
  static constexpr double kLn2 = 0.69314718055994530942;

  /// `spec` must be a continuous decision of scalar features (UsageError).
  /// The log2(1 + value) of the training decisions: its mean and standard
  /// deviation, which the network's output is scaled back by.
  struct TargetScale {
    float mean = 0, stddev = 1;
  };

  ContinuousPolicy(std::string problem, trace::DecisionSpec spec, std::vector<float> means, std::vector<float> stddevs,
                   TargetScale scale, DenseNetwork network);

  const std::string &problem() const { return problem_; }
  const trace::DecisionSpec &spec() const { return spec_; }
  const DenseNetwork &network() const { return network_; }
  const std::vector<float> &means() const { return means_; }
  const std::vector<float> &stddevs() const { return stddevs_; }
  const TargetScale &targetScale() const { return scale_; }

  /// sign(x) log(1 + |x|) of every feature of a decision's words, before the
  /// z-score (what the statistics are measured on).
  static void squashedInputs(const trace::DecisionSpec &spec, const int64_t *words, float *out);
  /// The network's inputs for a decision (features() floats).
  void inputs(const int64_t *words, float *out) const;
  size_t features() const { return spec_.features.size(); }
  /// The network's output for a decision: the z-score of log2(1 + value).
  float output(const int64_t *words) const;
  /// The value an output stands for: 2^(output x stddev + mean) - 1, at least 0.
  double valueOf(double output) const;
  /// The value for a decision: valueOf(output(words)).
  double decide(const int64_t *words) const { return valueOf(output(words)); }
  /// The value as an LLVM advisor reads a model's answer: decide() clamped to
  /// `largest` (0: no bound) and rounded to float.
  float floatAnswer(const int64_t *words, double largest) const;
  /// The regression target of a value: log2(1 + max(value, 0)).
  static float target(double value);

  /// Free-form record of how the policy was made (trainer, data, config, seed).
  nlohmann::json training = nlohmann::json::object();

  nlohmann::json metadata() const;
  /// Writes the directory atomically (DIR.partial, renamed over DIR).
  void save(const std::filesystem::path &directory) const;
  /// Loads a policy directory (or a training output holding policy/) and
  /// checks it against the problem and its decision spec. Throws InputError
  /// naming the file and what does not match.
  static ContinuousPolicy load(const std::filesystem::path &directory, const std::string &problem,
                               const trace::DecisionSpec &spec);
  /// The whole policy as bytes, for sending it to other ranks; deserialize
  /// gives back an equal policy, every float bit for bit, and throws
  /// std::runtime_error for bytes that are not a serialized continuous policy.
  std::string serialize() const;
  static ContinuousPolicy deserialize(std::string_view bytes);

 private:
  /// A policy from its metadata and weights; the paths name them in errors.
  static ContinuousPolicy fromJson(const nlohmann::json &metadata, const nlohmann::json &layers,
                                   const std::filesystem::path &metadataPath, const std::filesystem::path &weightsPath);
  std::string problem_;
  trace::DecisionSpec spec_;
  std::vector<float> means_, stddevs_;
  TargetScale scale_;
  DenseNetwork network_;
};

}  // namespace mlgo
