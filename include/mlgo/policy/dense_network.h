#pragma once
// A small multilayer perceptron evaluated in plain C++: the network of every
// mlgo policy (a few microseconds a decision, no LibTorch), and its layers'
// JSON form in a policy directory's model.json.
#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace mlgo {

enum class Activation { Relu, Tanh };
Activation parseActivation(const std::string &name);  ///< throws UsageError
const char *activationName(Activation activation);

struct DenseLayer {
  size_t inputs = 0, outputs = 0;
  std::vector<float> weights;  ///< outputs x inputs, row-major
  std::vector<float> bias;     ///< outputs
};

class DenseNetwork {
 public:
  DenseNetwork() = default;
  /// Layers must chain (each one's inputs are the previous one's outputs);
  /// the activation follows every layer but the last.
  DenseNetwork(std::vector<DenseLayer> layers, Activation activation);

  /// Writes outputs() floats for inputs() floats. Allocates nothing after a
  /// thread's first call.
  void forward(const float *inputs, float *out) const;

  size_t inputs() const { return layers_.empty() ? 0 : layers_.front().inputs; }
  size_t outputs() const { return layers_.empty() ? 0 : layers_.back().outputs; }
  const std::vector<DenseLayer> &layers() const { return layers_; }
  Activation activation() const { return activation_; }
  std::vector<size_t> hiddenSizes() const;
  /// Layer `l`'s weights as inputs x outputs (the forward pass's layout: it
  /// adds input i times row i to all outputs, in this order).
  const std::vector<float> &transposedWeights(size_t l) const { return transposed_[l]; }

  /// Every weight and bias, layer by layer (weights, then bias), as one
  /// vector, and a network of the same shape with those values (throws
  /// std::invalid_argument for a vector of another size).
  std::vector<float> flatWeights() const;
  DenseNetwork withFlatWeights(const std::vector<float> &weights) const;

  /// [{"inputs", "outputs", "weights", "bias"}...]
  nlohmann::json layersToJson() const;
  /// The layers of `entries` (from `file`), checked against the expected
  /// shape: `inputs` wide, then `widths` (hidden sizes and the output).
  /// Throws InputError naming the file, the layer and what is wrong
  /// (a shape that does not chain, a weight that is not a finite float).
  static std::vector<DenseLayer> layersFromJson(const nlohmann::json &entries, const std::filesystem::path &file,
                                                size_t inputs, const std::vector<size_t> &widths);

 private:
  std::vector<DenseLayer> layers_;
  Activation activation_ = Activation::Relu;
  size_t widest_ = 0;
  /// Per layer, the weights inputs x outputs (column-major of `weights`): the
  /// forward pass adds input i times row i to all outputs at once, a loop
  /// the compiler vectorizes without reordering any sum.
  std::vector<std::vector<float>> transposed_;
};

}  // namespace mlgo
