#pragma once
// A policy for decisions that choose one of N positions described by the same
// features (register allocation's eviction: 33 candidate live ranges, each
// with the same 19 features, and a mask of the ones that may be chosen). One
// small network scores every position from that position's features, the
// decision's shared ones (eviction's `progress`) and the position's place in
// the order; the policy takes the best score the mask allows. Sharing the
// network across positions lets it learn what makes a candidate good from
// every candidate it sees, and it keeps the policy small (ml-compiler-opt's
// regalloc network is a dense one over all 33 x 19 values).
//
// Each input x enters as the z-score of sign(x) log(1 + |x|), with the mean
// and standard deviation measured on the training decisions and stored with
// the policy: LLVM's eviction features mix ratios in [0, 1] with counts in
// the thousands.
//
// On disk, a policy directory as YesNoPolicy's (policy.json, model.json),
// with "kind": "position-scoring" and the decision spec it was trained on.
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "mlgo/policy/dense_network.h"
#include "mlgo/trace/position_layout.h"

namespace mlgo {

/// sign(x) log(1 + |x|): the squashing every input gets before its z-score.
float signedLog1p(float x);

class PositionPolicy {
 public:
  static constexpr const char *kKind = "position-scoring";

  PositionPolicy(std::string problem, trace::DecisionSpec spec, std::vector<float> means, std::vector<float> stddevs,
                 DenseNetwork network);

  const std::string &problem() const { return problem_; }
  const trace::DecisionSpec &spec() const { return spec_; }
  const PositionLayout &layout() const { return layout_; }
  const DenseNetwork &network() const { return network_; }
  const std::vector<float> &means() const { return means_; }
  const std::vector<float> &stddevs() const { return stddevs_; }

  /// The network's inputs for every position (positions x width) and the mask.
  void inputs(const int64_t *words, float *out, uint8_t *mask) const;
  /// Every position's score; -infinity where the mask forbids it.
  void scores(const int64_t *words, float *out) const;
  /// The allowed position with the highest score (ties: the first); -1 when
  /// the mask allows none.
  int64_t decide(const int64_t *words) const;

  /// Free-form record of how the policy was made (trainer, data, config, seed).
  nlohmann::json training = nlohmann::json::object();

  nlohmann::json metadata() const;
  /// Writes the directory atomically (DIR.partial, renamed over DIR).
  void save(const std::filesystem::path &directory) const;
  /// Loads a policy directory (or a training output holding policy/) and
  /// checks it against the problem and its decision spec. Throws InputError
  /// naming the file and what does not match (another problem's policy,
  /// another kind of policy, another spec, a malformed network).
  static PositionPolicy load(const std::filesystem::path &directory, const std::string &problem,
                             const trace::DecisionSpec &spec);
  /// The whole policy as bytes (for the compile memo and other ranks);
  /// deserialize gives back an equal policy, every float bit for bit, and
  /// throws std::runtime_error for bytes that are not one.
  std::string serialize() const;
  static PositionPolicy deserialize(std::string_view bytes);

 private:
  /// A policy from its metadata and layers (checked; InputError naming the
  /// files), whatever problem and spec the metadata names.
  static PositionPolicy fromJson(const nlohmann::json &metadata, const nlohmann::json &layers,
                                 const std::filesystem::path &metadataPath, const std::filesystem::path &weightsPath);
  std::string problem_;
  trace::DecisionSpec spec_;
  PositionLayout layout_;
  std::vector<float> means_, stddevs_;
  DenseNetwork network_;
};

}  // namespace mlgo
