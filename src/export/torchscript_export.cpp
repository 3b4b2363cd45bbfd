#include "mlgo/export/torchscript_export.h"

#include <cctype>
#include <sstream>


#include <torch/script.h>

#include "mlgo/support/atomic_file.h"
#include "mlgo/support/errors.h"

namespace mlgo {

namespace fs = std::filesystem;

namespace {

/// TorchScript parameters are Python identifiers; LLVM's feature names are.
void checkIdentifier(const std::string &name) {
  bool ok = !name.empty() && !std::isdigit(static_cast<unsigned char>(name[0]));
  for (char c : name) ok = ok && (std::isalnum(static_cast<unsigned char>(c)) || c == '_');
  if (!ok) throw InputError("feature name \"" + name + "\" is not usable as a TorchScript argument name");
}

torch::Tensor floats(const std::vector<float> &values, std::vector<int64_t> shape) {
  return torch::tensor(values, torch::kFloat32).reshape(shape);
}

}  // namespace

std::string torchScriptSource(const YesNoPolicy &policy) {
  const FeaturePreprocessor &pre = policy.preprocessor();
  const PreprocessingConfig &config = pre.config();
  std::ostringstream arguments, body;
  for (size_t f = 0; f < pre.inputCount(); ++f) {
    const std::string &name = pre.featureNames()[f];
    checkIdentifier(name);
    arguments << ", " << name << ": Tensor";
    const std::string index = std::to_string(f);
    body << "    v = " << name << ".reshape(-1).double()\n";
    if (pre.isPassthrough(f)) {
      body << "    inputs.append(v.float())\n";
      continue;
    }
    // ranks_f[0] is 0: the bucket of a value below every boundary.
    body << "    x = self.ranks_" << index << "[torch.searchsorted(self.boundaries_" << index
         << ", v, right=True)]\n"
         << "    inputs.append(x)\n    inputs.append(x * x)\n";
    if (config.withSqrt) body << "    inputs.append(torch.sqrt(x))\n";
    if (config.withZScore)
      body << "    inputs.append(((v - self.z_mean[" << index << "]) / (self.z_stddev[" << index
           << "] + 1e-8)).float())\n";
  }
  std::ostringstream source;
  source << "def logits(self" << arguments.str() << ") -> Tensor:\n"
         << "    inputs: List[Tensor] = []\n"
         << body.str() << "    h = torch.stack(inputs, dim=1)\n";
  const char *activation = policy.activation() == Activation::Relu ? "torch.relu" : "torch.tanh";
  for (size_t l = 0; l < policy.layers().size(); ++l) {
    const bool last = l + 1 == policy.layers().size();
    source << "    h = " << (last ? "" : activation) << "(torch.matmul(h, self.weight_" << l << ") + self.bias_" << l
           << ")\n";
  }
  source << "    return h\n\n";
  std::ostringstream names;
  for (size_t f = 0; f < pre.inputCount(); ++f) names << (f ? ", " : "") << pre.featureNames()[f];
  source << "def forward(self" << arguments.str() << ") -> Tensor:\n"
         << "    h = self.logits(" << names.str() << ")\n"
         << "    return (h[:, 1] > h[:, 0]).long()\n";
  return source.str();
}

void exportTorchScript(const YesNoPolicy &policy, const fs::path &file, bool replace) {
  if (fs::exists(file) && !replace && !isSpecialFile(file)) throw UsageError(file.string() + " exists (pass --force to replace it)");
  const FeaturePreprocessor &pre = policy.preprocessor();
  torch::jit::Module module("MlgoYesNoPolicy");
  for (size_t f = 0; f < pre.inputCount(); ++f) {
    if (pre.isPassthrough(f)) continue;
    const FeaturePreprocessor::Buckets &buckets = pre.buckets(f);
    std::vector<float> ranks{0.0f};
    ranks.insert(ranks.end(), buckets.rankOf.begin(), buckets.rankOf.end());
    module.register_buffer("boundaries_" + std::to_string(f), torch::tensor(buckets.distinct, torch::kFloat64));
    module.register_buffer("ranks_" + std::to_string(f), floats(ranks, {int64_t(ranks.size())}));
  }
  module.register_buffer("z_mean", torch::tensor(pre.zScoreMeans(), torch::kFloat64));
  module.register_buffer("z_stddev", torch::tensor(pre.zScoreStddevs(), torch::kFloat64));
  for (size_t l = 0; l < policy.layers().size(); ++l) {
    const DenseLayer &layer = policy.layers()[l];
    // Stored outputs x inputs; matmul wants inputs x outputs.
    torch::Tensor weights = floats(layer.weights, {int64_t(layer.outputs), int64_t(layer.inputs)});
    module.register_parameter("weight_" + std::to_string(l), weights.t().contiguous(), false);
    module.register_parameter("bias_" + std::to_string(l), floats(layer.bias, {int64_t(layer.outputs)}), false);
  }
  module.define(torchScriptSource(policy));
  module.eval();

  std::ostringstream bytes;
  torch::jit::ExtraFilesMap extra{{"mlgo_policy.json", policy.metadata().dump(2) + "\n"}};
  module.save(bytes, extra);
  writeOutputFile(file, bytes.str());
}

}  // namespace mlgo
