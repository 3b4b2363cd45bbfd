#include "mlgo/export/value_model_aot.h"

#include <cctype>
#include <sstream>

#include "mlgo/support/portable_math.h"

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

std::string header(const ValuePolicy &policy, const ReleaseModeModel &model, const std::string &origin) {
  const trace::DecisionSpec &spec = policy.spec();
  const std::string &name = model.className;
  const std::string guard = "MLGO_GENERATED_" + upper(name) + "_H";
  std::ostringstream out;
  out << generated_cpp::generatedBanner(origin)
      << "// Do not edit: export the policy again.\n"
      << "//\n"
      << "// llvm::" << name << ", the class LLVM's release-mode " << policy.problem() << " advisor runs through\n"
      << "// ReleaseModeModelRunner<llvm::" << name << "> (LLVM 19). Inputs are named \"feed_<feature>\"\n"
      << "// (one scalar each), the output \"fetch_" << model.decisionName << "\" (float: the value).\n"
      << "// Needs only the C++ standard library; Run() allocates nothing.\n"
      << "#ifndef " << guard << "\n#define " << guard << "\n\n"
      << "#include <cstdint>\n#include <string>\n\n"
      << "namespace llvm {\n\n"
      << "class " << name << " final {\n"
      << " public:\n"
      << "  static constexpr int kArgCount = " << spec.features.size() << ";\n"
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
      << "  /// Computes the value of the current inputs.\n"
      << "  void Run();\n\n"
      << " private:\n";
  for (size_t f = 0; f < spec.features.size(); ++f)
    out << "  " << spec.features[f].typeName() << " " << argument(f) << "[1] = {};  // " << spec.features[f].name
        << "\n";
  out << "  float decision_ = 0;\n"
      << "  alignas(16) float input_[kArgCount] = {};\n"
      << "  alignas(16) float front_[kWidestLayer] = {};\n"
      << "  alignas(16) float back_[kWidestLayer] = {};\n"
      << "};\n\n"
      << "}  // namespace llvm\n\n"
      << "#endif  // " << guard << "\n";
  return out.str();
}

/// The helpers Run() calls, inside the generated anonymous namespace: the
/// input squashing of ValuePolicy::squashedInputs and mlgo's portable exp.
void writeHelpers(std::ostringstream &out) {
  out << R"(
inline float signedLog1p(float x) { return std::copysign(std::log1p(std::fabs(x)), x); }

/// LLVM gives a range that must not be spilled an infinite weight.
inline float squash(double value) {
  return std::isfinite(value) ? signedLog1p(static_cast<float>(value)) : std::copysign(100.0f, static_cast<float>(value));
}

/// e^x as mlgo computes it (plain arithmetic, the same bits on every CPU):
/// 2^k e^r with e^r by Taylor's series.
inline double portableExp(double x) {
  if (std::isnan(x)) return x;
  if (x > )" << literal(portable::kExpOverflow) << R"() return HUGE_VAL;
  if (x < )" << literal(portable::kExpUnderflow) << R"() return 0.0;
  const double k = std::floor(x * )" << literal(portable::kExpInverseLn2) << R"( + 0.5);
  const double r = (x - k * )" << literal(portable::kExpLn2High) << R"() - k * )" << literal(portable::kExpLn2Low) << R"(;
  double p = 1.0;
  for (int n = )" << portable::kExpDegree << R"(; n >= 1; --n) p = 1.0 + r * p / n;
  return std::ldexp(p, static_cast<int>(k));
}
)";
}

std::string source(const ValuePolicy &policy, const ReleaseModeModel &model, const std::string &origin) {
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
  out << "// The network's output is the z-score of log2(1 + value) on the training decisions.\n"
      << "const float kTargetMean = " << literal(policy.targetScale().mean) << ";\n"
      << "const float kTargetStddev = " << literal(policy.targetScale().stddev) << ";\n\n";
  generated_cpp::writeNetworkArrays(out, policy.network());
  writeHelpers(out);
  out << generated_cpp::kDenseFunction << R"(
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
      << "void " << name << "::Run() {\n";
  for (size_t f = 0; f < spec.features.size(); ++f)
    out << "  input_[" << f << "] = squash(static_cast<double>(" << argument(f) << "[0]));  // "
        << spec.features[f].name << "\n";
  out << "  for (int i = 0; i < kArgCount; ++i) input_[i] = (input_[i] - kMeans[i]) / (kStddevs[i] + 1e-6f);\n"
      << "  float output[1];\n";
  generated_cpp::writeNetworkCalls(out, policy.network(), "input_", "output", "  ");
  out << "  const double target = static_cast<double>(output[0]) * static_cast<double>(kTargetStddev) + "
         "static_cast<double>(kTargetMean);\n"
      << "  double value = std::max(0.0, portableExp(target * " << literal(ValuePolicy::kLn2) << ") - 1.0);\n";
  if (model.largestValue > 0) out << "  value = std::min(value, " << literal(model.largestValue) << ");\n";
  out << "  decision_ = static_cast<float>(value);\n}\n\n}  // namespace llvm\n";
  return out.str();
}

}  // namespace

GeneratedSources generateValueModel(const ValuePolicy &policy, const ReleaseModeModel &model,
                                    const std::string &origin) {
  return {model.className, header(policy, model, origin), source(policy, model, origin)};
}

}  // namespace mlgo
