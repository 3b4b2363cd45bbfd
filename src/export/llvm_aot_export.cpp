#include "mlgo/export/llvm_aot_export.h"

#include <algorithm>
#include <cstdio>
#include <sstream>

#include "mlgo/problems/inlining/inlining_policy.h"
#include "mlgo/support/atomic_file.h"
#include "mlgo/support/errors.h"

namespace mlgo {

namespace fs = std::filesystem;

namespace {

using generated_cpp::literal;
using generated_cpp::writeArray;

void checkExportable(const PolicyModel &policy) {
  if (policy.problem() != "inlining")
    throw InputError("the llvm-aot format defines llvm::InlinerSizeModel, an inlining model; this policy is for " +
                     policy.problem());
  if (policy.layers().empty() || policy.layers().back().outputs != 2)
    throw InputError("the policy network must end in 2 outputs (do not inline, inline)");
}

std::string header(const PolicyModel &policy, const std::string &origin) {
  const FeaturePreprocessor &pre = policy.preprocessor();
  const size_t widest = generated_cpp::widestLayer(policy.network());
  std::ostringstream out;
  out << generated_cpp::generatedBanner(origin)
      << "// Vocab " << policy.vocabFingerprint() << ". Do not edit: export the policy again.\n"
      << "//\n"
      << "// llvm::InlinerSizeModel, the class LLVM's release-mode inliner runs through\n"
      << "// ReleaseModeModelRunner<llvm::InlinerSizeModel> (LLVM 19). Inputs are named\n"
      << "// \"feed_<feature>\" (one int64 each, LLVM's inlining features), the output\n"
      << "// \"fetch_inlining_decision\" (int64, 1 = inline). Needs only the C++ standard\n"
      << "// library; Run() allocates nothing.\n"
      << "#ifndef MLGO_GENERATED_INLINERSIZEMODEL_H\n"
      << "#define MLGO_GENERATED_INLINERSIZEMODEL_H\n\n"
      << "#include <cstdint>\n#include <string>\n\n"
      << "namespace llvm {\n\n"
      << "class InlinerSizeModel final {\n"
      << " public:\n"
      << "  static constexpr int kArgCount = " << pre.inputCount() << ";\n"
      << "  static constexpr int kInputWidth = " << pre.outputCount() << ";\n"
      << "  static constexpr int kWidestLayer = " << widest << ";\n\n"
      << "  InlinerSizeModel() = default;\n"
      << "  InlinerSizeModel(const InlinerSizeModel &) = delete;\n"
      << "  InlinerSizeModel &operator=(const InlinerSizeModel &) = delete;\n\n"
      << "  /// Index of input \"feed_<feature>\", or -1 when the model has no such input.\n"
      << "  int LookupArgIndex(const std::string &name);\n"
      << "  /// 0 for \"fetch_inlining_decision\", else -1.\n"
      << "  int LookupResultIndex(const std::string &name);\n"
      << "  void *arg_data(int index);\n"
      << "  void *result_data(int index);\n"
      << "  /// Preprocesses the inputs and runs the network into the decision.\n"
      << "  void Run();\n\n"
      << " private:\n"
      << "  int64_t args_[kArgCount] = {};\n"
      << "  int64_t decision_ = 0;\n"
      << "  alignas(16) float input_[kInputWidth] = {};\n"
      << "  alignas(16) float front_[kWidestLayer] = {};\n"
      << "  alignas(16) float back_[kWidestLayer] = {};\n"
      << "};\n\n"
      << "}  // namespace llvm\n\n"
      << "#endif  // MLGO_GENERATED_INLINERSIZEMODEL_H\n";
  return out.str();
}

std::string source(const PolicyModel &policy, const std::string &origin) {
  const FeaturePreprocessor &pre = policy.preprocessor();
  const PreprocessingConfig &config = pre.config();
  std::ostringstream out;
  out << generated_cpp::generatedBanner(origin)
      << "// Do not edit: export the policy again.\n"
      << "#include \"" << kAotHeaderName << "\"\n" << generated_cpp::kSourcePreamble;

  out << "const char *const kArgNames[" << pre.inputCount() << "] = {";
  for (size_t f = 0; f < pre.inputCount(); ++f)
    out << "\n    \"feed_" << pre.featureNames()[f] << "\"" << (f + 1 < pre.inputCount() ? "," : "");
  out << "};\n\n";

  // Per feature: its distinct boundaries and the normalized bucket of each.
  for (size_t f = 0; f < pre.inputCount(); ++f) {
    if (pre.isPassthrough(f)) continue;
    out << "// " << pre.featureNames()[f] << "\n";
    writeArray(out, "double", "kBoundaries" + std::to_string(f), pre.buckets(f).distinct);
    writeArray(out, "float", "kRanks" + std::to_string(f), pre.buckets(f).rankOf);
  }
  out << "\n";
  generated_cpp::writeNetworkArrays(out, policy.network());
  out << R"(
/// Bucket of `value` (how many boundaries are <= it) over the boundary count.
inline float normalized(const double *boundaries, const float *ranks, int count, double value) {
  const int above = static_cast<int>(std::upper_bound(boundaries, boundaries + count, value) - boundaries);
  return above == 0 ? 0.0f : ranks[above - 1];
}

)" << generated_cpp::kDenseFunction << R"(
}  // namespace

int InlinerSizeModel::LookupArgIndex(const std::string &name) {
  for (int i = 0; i < kArgCount; ++i)
    if (name == kArgNames[i]) return i;
  return -1;
}

int InlinerSizeModel::LookupResultIndex(const std::string &name) {
  return name == "fetch_)" << inlining::decisionName() << R"(" ? 0 : -1;
}

void *InlinerSizeModel::arg_data(int index) { return index >= 0 && index < kArgCount ? &args_[index] : nullptr; }

void *InlinerSizeModel::result_data(int index) { return index == 0 ? &decision_ : nullptr; }

void InlinerSizeModel::Run() {
  float *in = input_;
  double value = 0;
  float x = 0;
)";
  for (size_t f = 0; f < pre.inputCount(); ++f) {
    const std::string index = std::to_string(f);
    out << "  value = static_cast<double>(args_[" << f << "]);  // " << pre.featureNames()[f] << "\n";
    if (pre.isPassthrough(f)) {
      out << "  *in++ = static_cast<float>(value);\n";
      continue;
    }
    out << "  x = normalized(kBoundaries" << index << ", kRanks" << index << ", " << pre.buckets(f).distinct.size()
        << ", value);\n"
        << "  *in++ = x;\n  *in++ = x * x;\n";
    if (config.withSqrt) out << "  *in++ = std::sqrt(x);\n";
    if (config.withZScore)
      out << "  *in++ = static_cast<float>((value - " << literal(pre.zScoreMeans()[f]) << ") / ("
          << literal(pre.zScoreStddevs()[f]) << " + 1e-8));\n";
  }
  out << "  (void)x;\n";
  out << "  float logits[2];\n";
  generated_cpp::writeNetworkCalls(out, policy.network(), "input_", "logits", "  ");
  out << "  decision_ = logits[1] > logits[0] ? 1 : 0;\n}\n\n}  // namespace llvm\n";
  return out.str();
}

}  // namespace

GeneratedSources generateInlinerSizeModel(const PolicyModel &policy, const std::string &origin) {
  checkExportable(policy);
  return {"InlinerSizeModel", header(policy, origin), source(policy, origin)};
}

void exportLlvmAot(const PolicyModel &policy, const std::string &origin, const fs::path &directory, bool replace) {
  writeGeneratedSources(generateInlinerSizeModel(policy, origin), directory, replace);
}

}  // namespace mlgo
