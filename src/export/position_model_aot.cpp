#include "mlgo/export/position_model_aot.h"

#include <sstream>

namespace mlgo {

namespace {

using generated_cpp::literal;
using generated_cpp::writeArray;

std::string header(const PositionPolicy &policy, const ReleaseModeModel &model, const std::string &origin) {
  const trace::DecisionSpec &spec = policy.spec();
  const std::string &name = model.className;
  std::ostringstream out;
  out << generated_cpp::generatedBanner(origin)
      << "// Do not edit: export the policy again.\n"
      << "//\n"
      << "// llvm::" << name << ", the class LLVM's release-mode " << policy.problem() << " advisor runs through\n"
      << "// ReleaseModeModelRunner<llvm::" << name << "> (LLVM 19). Inputs are named \"feed_<feature>\"\n"
      << "// (LLVM's feature tensors, one buffer each), the output \"fetch_" << model.decisionName << "\" (int64:\n"
      << "// the chosen position, -1 when the mask allows none). Needs only the C++\n"
      << "// standard library; Run() allocates nothing.\n";
  generated_cpp::writeHeaderOpening(out, name);
  out << "  static constexpr int kArgCount = " << spec.features.size() << ";\n"
      << "  static constexpr int kPositions = " << policy.layout().positions() << ";\n"
      << "  static constexpr int kInputWidth = " << policy.layout().width() << ";\n"
      << "  static constexpr int kWidestLayer = " << generated_cpp::widestLayer(policy.network()) << ";\n";
  generated_cpp::writeRunnerInterface(out, name, model.decisionName,
                                      "Scores every allowed position and chooses the best.");
  for (size_t f = 0; f < spec.features.size(); ++f) {
    const trace::FeatureTensor &tensor = spec.features[f];
    out << "  " << tensor.typeName() << " " << generated_cpp::argumentMember(f) << "[" << tensor.elements()
        << "] = {};  // " << tensor.name << "\n";
  }
  out << "  int64_t decision_ = 0;\n"
      << "  alignas(16) float input_[kInputWidth] = {};\n"
      << "  alignas(16) float front_[kWidestLayer] = {};\n"
      << "  alignas(16) float back_[kWidestLayer] = {};\n";
  generated_cpp::writeHeaderClosing(out, name);
  return out.str();
}

/// Statements filling input_ with position p's raw inputs, in the layout's order.
void writeRawInputs(std::ostringstream &out, const PositionPolicy &policy) {
  const trace::DecisionSpec &spec = policy.spec();
  const std::vector<std::string> &names = policy.layout().inputNames();
  for (size_t i = 0; i + 1 < names.size(); ++i) {
    const size_t f = spec.indexOf(names[i]);
    const bool perPosition = PositionLayout::isPerPosition(spec.features[f], spec.actions);
    out << "    input_[" << i << "] = finiteOrZero(static_cast<double>(" << generated_cpp::argumentMember(f) << "["
        << (perPosition ? "p" : "0") << "]));  // " << names[i] << "\n";
  }
  out << "    input_[" << names.size() - 1 << "] = static_cast<float>(p) / static_cast<float>(kPositions - 1);"
      << "  // position\n";
}

std::string source(const PositionPolicy &policy, const ReleaseModeModel &model, const std::string &origin) {
  const trace::DecisionSpec &spec = policy.spec();
  const std::string &name = model.className;
  std::ostringstream out;
  out << generated_cpp::generatedBanner(origin)
      << "// Do not edit: export the policy again.\n"
      << "#include \"" << name << ".h\"\n"
      << generated_cpp::kSourcePreamble;
  generated_cpp::writeArgumentNames(out, spec.names());
  out << "// Per input: mean and standard deviation of sign(x) log(1 + |x|) on the training decisions.\n";
  writeArray(out, "float", "kMeans", policy.means());
  writeArray(out, "float", "kStddevs", policy.stddevs());
  out << "\n";
  generated_cpp::writeNetworkArrays(out, policy.network());
  out << R"(
/// LLVM's features can be NaN (use_def_density of a live range with no weight).
inline float finiteOrZero(double value) { return std::isfinite(value) ? static_cast<float>(value) : 0.0f; }

inline float signedLog1p(float x) { return std::copysign(std::log1p(std::fabs(x)), x); }
)" << generated_cpp::kDenseFunction
      << R"(
}  // namespace

)";
  generated_cpp::writeLookupFunctions(out, name, model.decisionName);
  generated_cpp::writeMemberArgData(out, name, spec.features.size());
  out << "void " << name << "::Run() {\n"
      << "  int64_t best = -1;\n"
      << "  float bestScore = 0.0f;\n"
      << "  for (int p = 0; p < kPositions; ++p) {\n";
  const size_t mask = spec.indexOf(PositionLayout::kMaskName);
  if (mask < spec.features.size())
    out << "    if (" << generated_cpp::argumentMember(mask) << "[p] == 0) continue;\n";
  writeRawInputs(out, policy);
  out << "    for (int i = 0; i < kInputWidth; ++i) input_[i] = (signedLog1p(input_[i]) - kMeans[i]) / "
         "(kStddevs[i] + 1e-6f);\n"
      << "    float score[1];\n";
  generated_cpp::writeNetworkCalls(out, policy.network(), "input_", "score", "    ");
  out << "    if (score[0] != -INFINITY && (best < 0 || score[0] > bestScore)) {\n"
      << "      best = p;\n      bestScore = score[0];\n    }\n  }\n"
      << "  decision_ = best;\n}\n\n}  // namespace llvm\n";
  return out.str();
}

}  // namespace

GeneratedSources generatePositionModel(const PositionPolicy &policy, const ReleaseModeModel &model,
                                       const std::string &origin) {
  return {model.className, header(policy, model, origin), source(policy, model, origin)};
}

}  // namespace mlgo
