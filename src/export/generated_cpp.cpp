#include "mlgo/export/generated_cpp.h"

#include <algorithm>
#include <cstdio>

#include "mlgo/support/atomic_file.h"
#include "mlgo/support/errors.h"

namespace mlgo {

namespace fs = std::filesystem;

void writeGeneratedSources(const GeneratedSources &sources, const fs::path &directory, bool replace) {
  if (fs::exists(directory) && !replace)
    throw UsageError(directory.string() + " exists (pass --force to replace it)");
  const fs::path partial = fs::path(directory.string() + ".partial");
  fs::remove_all(partial);
  try {
    fs::create_directories(partial);
    writeFileAtomically(partial / sources.headerName(), sources.header);
    writeFileAtomically(partial / sources.sourceName(), sources.source);
    replaceDirectory(partial, directory);
  } catch (...) {
    std::error_code ignored;
    fs::remove_all(partial, ignored);
    throw;
  }
}

namespace generated_cpp {

std::string literal(double value) {
  char text[64];
  std::snprintf(text, sizeof text, "%a", value);
  return text;
}
std::string literal(float value) { return literal(static_cast<double>(value)) + "f"; }

const char *const kSourcePreamble = R"(
#include <algorithm>
#include <cmath>

// Decisions equal mlgo's own evaluation of the policy as long as products and
// sums are not fused: mlgo rounds each (targets without FMA never fuse).
#ifdef __clang__
#pragma STDC FP_CONTRACT OFF
#endif

namespace llvm {

namespace {

)";

const char *const kDenseFunction = R"(
/// y = bias + x W, accumulated input by input (see the weights' layout).
template <int Inputs, int Outputs>
inline void dense(const float *weights, const float *bias, const float *x, float *y) {
  for (int o = 0; o < Outputs; ++o) y[o] = bias[o];
  for (int i = 0; i < Inputs; ++i) {
    const float xi = x[i];
    const float *row = weights + i * Outputs;
    for (int o = 0; o < Outputs; ++o) y[o] += row[o] * xi;
  }
}
)";

size_t widestLayer(const DenseNetwork &network) {
  size_t widest = 0;
  for (const DenseLayer &layer : network.layers()) widest = std::max(widest, layer.outputs);
  return widest;
}

void writeNetworkArrays(std::ostringstream &out, const DenseNetwork &network) {
  for (size_t l = 0; l < network.layers().size(); ++l) {
    const DenseLayer &layer = network.layers()[l];
    out << "// layer " << l << ": " << layer.inputs << " inputs, " << layer.outputs << " outputs\n";
    // Transposed as DenseNetwork runs them: compilers vectorize the loop over
    // outputs without reordering any sum, so the results are the same.
    writeArray(out, "float", "kWeights" + std::to_string(l), network.transposedWeights(l));
    writeArray(out, "float", "kBias" + std::to_string(l), layer.bias);
  }
}

void writeNetworkCalls(std::ostringstream &out, const DenseNetwork &network, const std::string &input,
                       const std::string &output, const std::string &indent) {
  std::string x = input;
  for (size_t l = 0; l < network.layers().size(); ++l) {
    const DenseLayer &layer = network.layers()[l];
    const bool last = l + 1 == network.layers().size();
    const std::string target = last ? output : (l % 2 == 0 ? "front_" : "back_");
    out << indent << "dense<" << layer.inputs << ", " << layer.outputs << ">(kWeights" << l << ", kBias" << l << ", "
        << x << ", " << target << ");\n";
    if (!last) {
      const std::string y = target + "[o]";
      out << indent << "for (int o = 0; o < " << layer.outputs << "; ++o) " << y << " = "
          << (network.activation() == Activation::Relu ? "std::max(" + y + ", 0.0f)" : "std::tanh(" + y + ")")
          << ";\n";
    }
    x = target;
  }
}

}  // namespace generated_cpp

}  // namespace mlgo
