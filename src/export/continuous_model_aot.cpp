#include "mlgo/export/continuous_model_aot.h"

#include <sstream>

#include "mlgo/support/portable_math.h"

namespace mlgo {

namespace {

using generated_cpp::literal;
using generated_cpp::writeArray;

std::string header(const ContinuousPolicy &policy, const ReleaseModeModel &model, const std::string &origin) {
  const trace::DecisionSpec &spec = policy.spec();
  const std::string &name = model.className;
  std::ostringstream out;
  out << generated_cpp::generatedBanner(origin)
      << "// Do not edit: export the policy again.\n"
      << "//\n"
      << "// llvm::" << name << ", the class LLVM's release-mode " << policy.problem() << " advisor runs through\n"
      << "// ReleaseModeModelRunner<llvm::" << name << "> (LLVM 19). Inputs are named \"feed_<feature>\"\n"
      << "// (one scalar each), the output \"fetch_" << model.decisionName << "\" (float: the value).\n"
      << "// Needs only the C++ standard library; Run() allocates nothing.\n";
  generated_cpp::writeHeaderOpening(out, name);
  out << "  static constexpr int kArgCount = " << spec.features.size() << ";\n"
      << "  static constexpr int kWidestLayer = " << generated_cpp::widestLayer(policy.network()) << ";\n";
  generated_cpp::writeRunnerInterface(out, name, model.decisionName, "Computes the value of the current inputs.");
  for (size_t f = 0; f < spec.features.size(); ++f)
    out << "  " << spec.features[f].typeName() << " " << generated_cpp::argumentMember(f) << "[1] = {};  // "
        << spec.features[f].name << "\n";
  out << "  float decision_ = 0;\n"
      << "  alignas(16) float input_[kArgCount] = {};\n"
      << "  alignas(16) float front_[kWidestLayer] = {};\n"
      << "  alignas(16) float back_[kWidestLayer] = {};\n";
  generated_cpp::writeHeaderClosing(out, name);
  return out.str();
}

/// The helpers Run() calls, inside the generated anonymous namespace: the
/// input squashing of ContinuousPolicy::squashedInputs and mlgo's portable exp.
void writeHelpers(std::ostringstream &out) {
  out << R"(
inline float signedLog1p(float x) { return std::copysign(std::log1p(std::fabs(x)), x); }

/// LLVM gives a range that must not be spilled an infinite weight.
inline float squash(double value) {
  return std::isfinite(value) ? signedLog1p(static_cast<float>(value))
                               : std::copysign(100.0f, static_cast<float>(value));
}

/// e^x as mlgo computes it (plain arithmetic, the same bits on every CPU):
/// 2^k e^r with e^r by Taylor's series.
inline double portableExp(double x) {
  if (std::isnan(x)) return x;
  if (x > )" << literal(portable::kExpOverflow) << R"() return HUGE_VAL;
  if (x < )" << literal(portable::kExpUnderflow) << R"() return 0.0;
  const double k = std::floor(x * )" << literal(portable::kExpInverseLn2) << R"( + 0.5);
  const double r = (x - k * )" << literal(portable::kExpLn2High) << R"() - k * )"
      << literal(portable::kExpLn2Low) << R"(;
  double p = 1.0;
  for (int n = )" << portable::kExpDegree << R"(; n >= 1; --n) p = 1.0 + r * p / n;
  return std::ldexp(p, static_cast<int>(k));
}
)";
}

std::string source(const ContinuousPolicy &policy, const ReleaseModeModel &model, const std::string &origin) {
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
  out << "// The network's output is the z-score of log2(1 + value) on the training decisions.\n"
      << "const float kTargetMean = " << literal(policy.targetScale().mean) << ";\n"
      << "const float kTargetStddev = " << literal(policy.targetScale().stddev) << ";\n\n";
  generated_cpp::writeNetworkArrays(out, policy.network());
  writeHelpers(out);
  out << generated_cpp::kDenseFunction << R"(
}  // namespace

)";
  generated_cpp::writeLookupFunctions(out, name, model.decisionName);
  generated_cpp::writeMemberArgData(out, name, spec.features.size());
  out << "void " << name << "::Run() {\n";
  for (size_t f = 0; f < spec.features.size(); ++f)
    out << "  input_[" << f << "] = squash(static_cast<double>(" << generated_cpp::argumentMember(f) << "[0]));  // "
        << spec.features[f].name << "\n";
  out << "  for (int i = 0; i < kArgCount; ++i) input_[i] = (input_[i] - kMeans[i]) / (kStddevs[i] + 1e-6f);\n"
      << "  float output[1];\n";
  generated_cpp::writeNetworkCalls(out, policy.network(), "input_", "output", "  ");
  out << "  const double target = static_cast<double>(output[0]) * static_cast<double>(kTargetStddev) + "
         "static_cast<double>(kTargetMean);\n"
      << "  double value = std::max(0.0, portableExp(target * " << literal(ContinuousPolicy::kLn2) << ") - 1.0);\n";
  if (model.largestValue > 0) out << "  value = std::min(value, " << literal(model.largestValue) << ");\n";
  out << "  decision_ = static_cast<float>(value);\n}\n\n}  // namespace llvm\n";
  return out.str();
}

}  // namespace

GeneratedSources generateContinuousModel(const ContinuousPolicy &policy, const ReleaseModeModel &model,
                                         const std::string &origin) {
  return {model.className, header(policy, model, origin), source(policy, model, origin)};
}

}  // namespace mlgo
