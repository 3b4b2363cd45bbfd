#pragma once
// The policy network in LibTorch and its conversion to the framework-free
// YesNoPolicy. Include only from training code: it pulls in torch.
#include <string>
#include <vector>

#include <torch/torch.h>

#include "mlgo/policy/yes_no_policy.h"

namespace mlgo {

/// MLP: Linear -> activation -> dropout for each hidden size, then Linear to
/// `outputs` (2 logits: ml-compiler-opt's QNetwork / ActorDistributionNetwork
/// shape; 1 score: a position policy's).
class TorchMlpImpl : public torch::nn::Module {
 public:
  TorchMlpImpl(int64_t inputs, const std::vector<int64_t> &hidden, Activation activation, double dropout,
               int64_t outputs = 2);
  torch::Tensor forward(torch::Tensor inputs);
  /// The linear layers, in order.
  const std::vector<torch::nn::Linear> &linears() const { return linears_; }

 private:
  std::vector<torch::nn::Linear> linears_;
  Activation activation_;
  double dropout_;
};
TORCH_MODULE(TorchMlp);

/// The network's weights as the plain C++ network's layers.
std::vector<DenseLayer> denseLayers(const TorchMlp &network);
/// Copies the network's weights into a YesNoPolicy.
YesNoPolicy toPolicyModel(const TorchMlp &network, const std::string &problem, const FeaturePreprocessor &preprocessor,
                          Activation activation);
/// Copies a plain C++ network's layers (a YesNoPolicy's, a PositionPolicy's)
/// into a network of the same shape.
void loadWeights(TorchMlp &network, const std::vector<DenseLayer> &layers);

/// The logit of an action a decision's mask forbids: softmax gives it exactly
/// 0, and unlike -infinity it keeps 0 * log p finite in an entropy or a KL.
inline constexpr float kForbiddenLogit = -1e9f;

/// A position network's logits: every position of `inputs` (decisions x
/// positions x width) scored, kForbiddenLogit where `mask` (decisions x
/// positions, bool) forbids the position.
torch::Tensor positionLogits(TorchMlp &network, const torch::Tensor &inputs, const torch::Tensor &mask);

}  // namespace mlgo
