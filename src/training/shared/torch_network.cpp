#include "mlgo/training/shared/torch_network.h"

#include "mlgo/support/errors.h"

namespace mlgo {

TorchMlpImpl::TorchMlpImpl(int64_t inputs, const std::vector<int64_t> &hidden, Activation activation, double dropout,
                           int64_t outputs)
    : activation_(activation), dropout_(dropout) {
  int64_t width = inputs;
  std::vector<int64_t> sizes = hidden;
  sizes.push_back(outputs);
  for (size_t i = 0; i < sizes.size(); ++i) {
    linears_.push_back(register_module("linear" + std::to_string(i), torch::nn::Linear(width, sizes[i])));
    width = sizes[i];
  }
}

torch::Tensor TorchMlpImpl::forward(torch::Tensor x) {
  for (size_t i = 0; i < linears_.size(); ++i) {
    x = linears_[i]->forward(x);
    if (i + 1 == linears_.size()) break;
    x = activation_ == Activation::Relu ? torch::relu(x) : torch::tanh(x);
    if (dropout_ > 0) x = torch::dropout(x, dropout_, is_training());
  }
  return x;
}

std::vector<DenseLayer> denseLayers(const TorchMlp &network) {
  torch::NoGradGuard noGrad;
  std::vector<DenseLayer> layers;
  for (const torch::nn::Linear &linear : network->linears()) {
    DenseLayer layer;
    const torch::Tensor weight = linear->weight.detach().contiguous().to(torch::kFloat32);
    const torch::Tensor bias = linear->bias.detach().contiguous().to(torch::kFloat32);
    layer.outputs = static_cast<size_t>(weight.size(0));
    layer.inputs = static_cast<size_t>(weight.size(1));
    layer.weights.assign(weight.data_ptr<float>(), weight.data_ptr<float>() + weight.numel());
    layer.bias.assign(bias.data_ptr<float>(), bias.data_ptr<float>() + bias.numel());
    layers.push_back(std::move(layer));
  }
  return layers;
}

YesNoPolicy toPolicyModel(const TorchMlp &network, const std::string &problem, const FeaturePreprocessor &preprocessor,
                          Activation activation) {
  return YesNoPolicy(problem, preprocessor, denseLayers(network), activation);
}

void loadWeights(TorchMlp &network, const std::vector<DenseLayer> &layers) {
  torch::NoGradGuard noGrad;
  const auto &linears = network->linears();
  if (linears.size() != layers.size()) throw InputError("the policy's network shape differs from the config's");
  for (size_t i = 0; i < linears.size(); ++i) {
    const DenseLayer &layer = layers[i];
    if (linears[i]->weight.size(0) != int64_t(layer.outputs) || linears[i]->weight.size(1) != int64_t(layer.inputs))
      throw InputError("the policy's layer " + std::to_string(i) + " has another shape than the config's");
    linears[i]->weight.copy_(torch::from_blob(const_cast<float *>(layer.weights.data()),
                                              {int64_t(layer.outputs), int64_t(layer.inputs)}, torch::kFloat32));
    linears[i]->bias.copy_(torch::from_blob(const_cast<float *>(layer.bias.data()), {int64_t(layer.outputs)},
                                            torch::kFloat32));
  }
}

torch::Tensor positionLogits(TorchMlp &network, const torch::Tensor &inputs, const torch::Tensor &mask) {
  const int64_t decisions = inputs.size(0), positions = inputs.size(1), width = inputs.size(2);
  const torch::Tensor scores = network->forward(inputs.reshape({decisions * positions, width}));
  return scores.reshape({decisions, positions}).masked_fill(mask.logical_not(), kForbiddenLogit);
}

}  // namespace mlgo
