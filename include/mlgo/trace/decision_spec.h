#pragma once
// What one decision of a problem is: its feature tensors (LLVM's names, types
// and shapes, as in LLVM's feature X-macros) and how many actions it has.
// Inlining: 30-odd int64 scalars and 2 actions; register allocation: 21
// tensors over 33 candidate positions (a mask among them) and 33 actions.
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

struct DecisionSpec {
  std::vector<FeatureTensor> features;
  int64_t actions = 2;

  /// One int64 scalar per name, two actions: inlining, and every trace of
  /// format version 1.
  static DecisionSpec int64Scalars(const std::vector<std::string> &names, int64_t actions = 2);
  bool isInt64Scalars() const;
  std::vector<std::string> names() const;
  size_t decisionBytes() const;
  /// int64 words a decision takes in ModuleTrace::features.
  size_t decisionWords() const { return (decisionBytes() + 7) / 8; }
  /// Byte offset of feature `index` within a decision.
  size_t offsetOf(size_t index) const;
  /// Index of the feature named `name`; features.size() when there is none.
  size_t indexOf(const std::string &name) const;

  /// {"features": [{"name", "type", "shape"}...], "actions": N}
  nlohmann::json toJson() const;
  /// Throws InputError naming `source` and the entry when `value` is not one.
  static DecisionSpec fromJson(const nlohmann::json &value, const std::string &source);
};

bool operator==(const FeatureTensor &a, const FeatureTensor &b);
bool operator==(const DecisionSpec &a, const DecisionSpec &b);
inline bool operator!=(const DecisionSpec &a, const DecisionSpec &b) { return !(a == b); }

}  // namespace mlgo::trace
