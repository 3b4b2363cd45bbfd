#pragma once
// Where the inputs of each position are in the raw feature words of a
// decision among positions (DecisionKind::Position: register allocation's
// eviction, 33 candidate live ranges with the same features each, and a mask
// of the ones that may be chosen).
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "mlgo/trace/decision_spec.h"

namespace mlgo {

/// Where a position's inputs are in a decision's raw feature words.
class PositionLayout {
 public:
  /// The feature that says which positions may be chosen (LLVM's name).
  static constexpr const char *kMaskName = "mask";
  /// Whether `tensor` holds one value per position (shape [1, positions]).
  static bool isPerPosition(const trace::FeatureTensor &tensor, int64_t positions) {
    return tensor.shape == std::vector<int64_t>{1, positions};
  }
  /// Empty when `spec` is a position decision: every tensor of shape [1, N]
  /// (one value per position) or [1] (shared), N = the number of actions,
  /// N > 1, and an int64 "mask" among them where the problem has one; else
  /// why not.
  static std::string whyNot(const trace::DecisionSpec &spec);
  /// Throws UsageError with whyNot()'s reason.
  explicit PositionLayout(const trace::DecisionSpec &spec);

  size_t positions() const { return positions_; }
  /// Inputs the network sees per position.
  size_t width() const { return inputNames_.size(); }
  /// Per-position features (not the mask), then shared ones, then "position".
  const std::vector<std::string> &inputNames() const { return inputNames_; }
  /// Raw inputs of every position (positions() x width(), row-major; a value
  /// that is not finite enters as 0) and the mask (1: may be chosen; all 1
  /// without a mask feature).
  void rawInputs(const int64_t *words, float *inputs, uint8_t *mask) const;

 private:
  struct Source {
    size_t byteOffset;
    bool isFloat;
    bool perPosition;
  };
  double valueAt(const uint8_t *bytes, const Source &source, size_t position) const;
  size_t positions_ = 0;
  std::vector<Source> sources_;
  std::vector<std::string> inputNames_;
  bool hasMask_ = false;
  size_t maskOffset_ = 0;
};

}  // namespace mlgo
