#include "mlgo/export/position_model_aot.h"

#include <cctype>
#include <sstream>

namespace mlgo {

namespace {

using generated_cpp::literal;
using generated_cpp::writeArray;

std::string upper(std::string text) {
  for (char &c : text) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return text;
}

/// The member holding input `f`.
std::string argument(size_t f) { return "arg" + std::to_string(f) + "_"; }

std::string header(const PositionPolicy &policy, const ReleaseModeModel &model, const std::string &origin) {
  const trace::DecisionSpec &spec = policy.spec();
  const std::string &name = model.className;
  const std::string guard = "MLGO_GENERATED_" + upper(name) + "_H";
  std::ostringstream out;
  out << generated_cpp::generatedBanner(origin)
      << "// Do not edit: export the policy again.\n"
      << "//\n"
      << "// llvm::" << name << ", the class LLVM's release-mode " << policy.problem() << " advisor runs through\n"
      << "// ReleaseModeModelRunner<llvm::" << name << "> (LLVM 19). Inputs are named \"feed_<feature>\"\n"
      << "// (LLVM's feature tensors, one buffer each), the output \"fetch_" << model.decisionName << "\" (int64:\n"
      << "// the chosen position, -1 when the mask allows none). Needs only the C++\n"
      << "// standard library; Run() allocates nothing.\n"
      << "#ifndef " << guard << "\n#define " << guard << "\n\n"
      << "#include <cstdint>\n#include <string>\n\n"
      << "namespace llvm {\n\n"
      << "class " << name << " final {\n"
      << " public:\n"
      << "  static constexpr int kArgCount = " << spec.features.size() << ";\n"
      << "  static constexpr int kPositions = " << policy.layout().positions() << ";\n"
      << "  static constexpr int kInputWidth = " << policy.layout().width() << ";\n"
      << "  static constexpr int kWidestLayer = " << generated_cpp::widestLayer(policy.network()) << ";\n\n"
      << "  " << name << "() = default;\n"
      << "  " << name << "(const " << name << " &) = delete;\n"
      << "  " << name << " &operator=(const " << name << " &) = delete;\n\n"
      << "  /// Index of input \"feed_<feature>\", or -1 when the model has no such input.\n"
      << "  int LookupArgIndex(const std::string &name);\n"
      << "  /// 0 for \"fetch_" << model.decisionName << "\", else -1.\n"
      << "  int LookupResultIndex(const std::string &name);\n"
      << "  void *arg_data(int index);\n"
      << "  void *result_data(int index);\n"
      << "  /// Scores every allowed position and chooses the best.\n"
      << "  void Run();\n\n"
      << " private:\n";
  for (size_t f = 0; f < spec.features.size(); ++f) {
    const trace::FeatureTensor &tensor = spec.features[f];
    out << "  " << tensor.typeName() << " " << argument(f) << "[" << tensor.elements() << "] = {};  // "
        << tensor.name << "\n";
  }
  out << "  int64_t decision_ = 0;\n"
      << "  alignas(16) float input_[kInputWidth] = {};\n"
      << "  alignas(16) float front_[kWidestLayer] = {};\n"
      << "  alignas(16) float back_[kWidestLayer] = {};\n"
      << "};\n\n"
      << "}  // namespace llvm\n\n"
      << "#endif  // " << guard << "\n";
  return out.str();
}

/// Statements filling input_ with position p's raw inputs, in the layout's order.
void writeRawInputs(std::ostringstream &out, const PositionPolicy &policy) {
  const trace::DecisionSpec &spec = policy.spec();
  const std::vector<std::string> &names = policy.layout().inputNames();
  for (size_t i = 0; i + 1 < names.size(); ++i) {
    const size_t f = spec.indexOf(names[i]);
    const bool perPosition = PositionLayout::isPerPosition(spec.features[f], spec.actions);
    out << "    input_[" << i << "] = finiteOrZero(static_cast<double>(" << argument(f) << "["
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
  out << "const char *const kArgNames[" << spec.features.size() << "] = {";
  for (size_t f = 0; f < spec.features.size(); ++f)
    out << "\n    \"feed_" << spec.features[f].name << "\"" << (f + 1 < spec.features.size() ? "," : "");
  out << "};\n\n";
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

int )" << name << R"(::LookupArgIndex(const std::string &name) {
  for (int i = 0; i < kArgCount; ++i)
    if (name == kArgNames[i]) return i;
  return -1;
}

int )" << name << R"(::LookupResultIndex(const std::string &name) { return name == "fetch_)"
      << model.decisionName << R"(" ? 0 : -1; }

void *)" << name << R"(::arg_data(int index) {
  switch (index) {
)";
  for (size_t f = 0; f < spec.features.size(); ++f) out << "    case " << f << ": return " << argument(f) << ";\n";
  out << "    default: return nullptr;\n  }\n}\n\n"
      << "void *" << name << "::result_data(int index) { return index == 0 ? &decision_ : nullptr; }\n\n"
      << "void " << name << "::Run() {\n"
      << "  int64_t best = -1;\n"
      << "  float bestScore = 0.0f;\n"
      << "  for (int p = 0; p < kPositions; ++p) {\n";
  const size_t mask = spec.indexOf(PositionLayout::kMaskName);
  if (mask < spec.features.size()) out << "    if (" << argument(mask) << "[p] == 0) continue;\n";
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
