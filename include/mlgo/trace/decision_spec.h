#pragma once
// What one decision of a problem is: its feature tensors (LLVM's names, types
// and shapes, as in LLVM's feature X-macros) and how many actions it has.
// Inlining: 30-odd int64 scalars and 2 actions; register allocation: 21
// tensors over 33 candidate positions (a mask among them) and 33 actions; a
// continuous decision: a few tensors and one real number.
//
// In a ModuleTrace a decision's features are the tensors' raw little-endian
// bytes, in order, padded to whole int64 words: for a problem of int64
// scalars, word f is feature f.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace mlgo::trace {

struct FeatureTensor {
  enum class Type { Int64, Float };
  std::string name;
  Type type = Type::Int64;
  std::vector<int64_t> shape{1};

  size_t elements() const;
  size_t elementBytes() const { return type == Type::Int64 ? 8 : 4; }
  size_t bytes() const { return elements() * elementBytes(); }
  /// LLVM's type names: "int64_t", "float".
  const char *typeName() const { return type == Type::Int64 ? "int64_t" : "float"; }
};

/// The kinds of decision there are, derived from a DecisionSpec. Code that
/// depends on the kind switches over every kind with no default case, and the
/// build makes a missing case an error (-Werror=switch): a new kind fails to
/// compile until every such site handles it.
enum class DecisionKind {
  YesNo,       ///< int64 scalar features, two actions (inlining)
  Position,    ///< one action per candidate position, a mask among the features (eviction)
  Continuous,  ///< a real number (a priority)
};
const char *decisionKindName(DecisionKind kind);

struct DecisionSpec {
  std::vector<FeatureTensor> features;
  /// Discrete actions (2 to 127); 0 for a continuous decision.
  int64_t actions = 2;

  /// One int64 scalar per name, two actions: inlining, and every trace of
  /// format version 1.
  static DecisionSpec int64Scalars(const std::vector<std::string> &names, int64_t actions = 2);
  /// Features as int64 scalars, one real number as the action.
  static DecisionSpec continuousOf(std::vector<FeatureTensor> features);
  bool isInt64Scalars() const;
  DecisionKind kind() const;
  std::vector<std::string> names() const;
  size_t decisionBytes() const;
  /// int64 words a decision takes in ModuleTrace::features.
  size_t decisionWords() const { return (decisionBytes() + 7) / 8; }
  /// Byte offset of feature `index` within a decision.
  size_t offsetOf(size_t index) const;
  /// Index of the feature named `name`; features.size() when there is none.
  size_t indexOf(const std::string &name) const;

  /// {"features": [{"name", "type", "shape"}...], "actions": N}; a
  /// continuous decision has "actions": 0.
  nlohmann::json toJson() const;
  /// Throws InputError naming `source` and the entry when `value` is not one.
  static DecisionSpec fromJson(const nlohmann::json &value, const std::string &source);
};

bool operator==(const FeatureTensor &a, const FeatureTensor &b);
bool operator==(const DecisionSpec &a, const DecisionSpec &b);
inline bool operator!=(const DecisionSpec &a, const DecisionSpec &b) { return !(a == b); }

}  // namespace mlgo::trace
