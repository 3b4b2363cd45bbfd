#include "mlgo/export/yes_no_model_aot.h"

#include <algorithm>
#include <sstream>

#include "mlgo/support/errors.h"

namespace mlgo {

namespace {

using generated_cpp::literal;
using generated_cpp::writeArray;

std::string header(const YesNoPolicy &policy, const ReleaseModeModel &model, const std::string &origin) {
  const FeaturePreprocessor &pre = policy.preprocessor();
  const size_t widest = generated_cpp::widestLayer(policy.network());
  std::ostringstream out;
  out << generated_cpp::generatedBanner(origin)
      << "// Vocab " << policy.vocabFingerprint() << ". Do not edit: export the policy again.\n"
      << "//\n"
      << "// llvm::" << model.className << ", the class LLVM's release-mode advisor runs through\n"
      << "// ReleaseModeModelRunner<llvm::" << model.className << "> (LLVM 19). Inputs are named\n"
      << "// \"feed_<feature>\" (one int64 each, LLVM's features), the output\n"
      << "// \"fetch_" << model.decisionName << "\" (int64, 1 = yes). Needs only the C++ standard\n"
      << "// library; Run() allocates nothing.\n";
  generated_cpp::writeHeaderOpening(out, model.className);
  out << "  static constexpr int kArgCount = " << pre.inputCount() << ";\n"
      << "  static constexpr int kInputWidth = " << pre.outputCount() << ";\n"
      << "  static constexpr int kWidestLayer = " << widest << ";\n";
  generated_cpp::writeRunnerInterface(out, model.className, model.decisionName,
                                      "Preprocesses the inputs and runs the network into the decision.");
  out << "  int64_t args_[kArgCount] = {};\n"
      << "  int64_t decision_ = 0;\n"
      << "  alignas(16) float input_[kInputWidth] = {};\n"
      << "  alignas(16) float front_[kWidestLayer] = {};\n"
      << "  alignas(16) float back_[kWidestLayer] = {};\n";
  generated_cpp::writeHeaderClosing(out, model.className);
  return out.str();
}

std::string source(const YesNoPolicy &policy, const ReleaseModeModel &model, const std::string &origin) {
  const FeaturePreprocessor &pre = policy.preprocessor();
  const PreprocessingConfig &config = pre.config();
  std::ostringstream out;
  out << generated_cpp::generatedBanner(origin)
      << "// Do not edit: export the policy again.\n"
      << "#include \"" << model.className << ".h\"\n" << generated_cpp::kSourcePreamble;

  generated_cpp::writeArgumentNames(out, pre.featureNames());

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

)" << generated_cpp::kDenseFunction << "\n}  // namespace\n\n";
  generated_cpp::writeLookupFunctions(out, model.className, model.decisionName);
  out << "void *" << model.className << R"(::arg_data(int index) {
  return index >= 0 && index < kArgCount ? &args_[index] : nullptr;
}

void )" << model.className << R"(::Run() {
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

GeneratedSources generateYesNoModel(const YesNoPolicy &policy, const ReleaseModeModel &model,
                                    const std::string &origin) {
  if (policy.layers().empty() || policy.layers().back().outputs != 2)
    throw InputError("the policy network must end in 2 outputs (no, yes)");
  return {model.className, header(policy, model, origin), source(policy, model, origin)};
}

}  // namespace mlgo
