#include "mlgo/export/continuous_model_aot.h"

#include <sstream>

#include "mlgo/support/portable_math.h"

namespace mlgo {

namespace {

using generated_cpp::literal;

/// The helpers Run() calls, inside the generated anonymous namespace: the
/// input squashing of ContinuousPolicy::squashedInputs and mlgo's portable exp.
std::string helpers() {
  std::ostringstream out;
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
  return out.str();
}

/// Run(): the inputs squashed and normalized, the network, the value back.
std::string run(const ContinuousPolicy &policy, const ReleaseModeModel &model) {
  const trace::DecisionSpec &spec = policy.spec();
  std::ostringstream out;
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
  return generated_cpp::specModel(
      policy, model, origin,
      {"// (one scalar each), the output \"fetch_" + model.decisionName +
           "\" (float: the value).\n// Needs only the C++ standard library; Run() allocates nothing.\n",
       "", "Computes the value of the current inputs.", "float", "kArgCount",
       "// The network's output is the z-score of log2(1 + value) on the training decisions.\n"
       "const float kTargetMean = " +
           literal(policy.targetScale().mean) + ";\nconst float kTargetStddev = " +
           literal(policy.targetScale().stddev) + ";\n\n",
       helpers(), run(policy, model)});
}

}  // namespace mlgo
