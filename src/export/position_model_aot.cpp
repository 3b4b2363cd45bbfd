#include "mlgo/export/position_model_aot.h"

#include <sstream>

namespace mlgo {

namespace {

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

/// Run(): every allowed position scored, the best one chosen.
std::string run(const PositionPolicy &policy) {
  const trace::DecisionSpec &spec = policy.spec();
  std::ostringstream out;
  out << "  int64_t best = -1;\n"
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

/// The helpers Run() calls, inside the generated anonymous namespace.
std::string helpers() {
  return R"(
/// LLVM's features can be NaN (use_def_density of a live range with no weight).
inline float finiteOrZero(double value) { return std::isfinite(value) ? static_cast<float>(value) : 0.0f; }

inline float signedLog1p(float x) { return std::copysign(std::log1p(std::fabs(x)), x); }
)";
}

}  // namespace

GeneratedSources generatePositionModel(const PositionPolicy &policy, const ReleaseModeModel &model,
                                       const std::string &origin) {
  return generated_cpp::specModel(
      policy, model, origin,
      {"// (LLVM's feature tensors, one buffer each), the output \"fetch_" + model.decisionName +
           "\" (int64:\n// the chosen position, -1 when the mask allows none). Needs only the C++\n// standard "
           "library; Run() allocates nothing.\n",
       "  static constexpr int kPositions = " + std::to_string(policy.layout().positions()) +
           ";\n  static constexpr int kInputWidth = " + std::to_string(policy.layout().width()) + ";\n",
       "Scores every allowed position and chooses the best.", "int64_t", "kInputWidth", "\n", helpers(),
       run(policy)});
}

}  // namespace mlgo
