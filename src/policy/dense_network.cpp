#include "mlgo/policy/dense_network.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "mlgo/support/errors.h"
#include "mlgo/support/text_input.h"

namespace mlgo {

using nlohmann::json;

Activation parseActivation(const std::string &name) {
  if (name == "relu") return Activation::Relu;
  if (name == "tanh") return Activation::Tanh;
  throw UsageError("unknown activation \"" + name + "\" (known: relu, tanh)");
}

const char *activationName(Activation activation) { return activation == Activation::Relu ? "relu" : "tanh"; }

DenseNetwork::DenseNetwork(std::vector<DenseLayer> layers, Activation activation)
    : layers_(std::move(layers)), activation_(activation) {
  widest_ = inputs();
  for (const DenseLayer &layer : layers_) {
    widest_ = std::max(widest_, layer.outputs);
    std::vector<float> transposed(layer.inputs * layer.outputs);
    for (size_t o = 0; o < layer.outputs; ++o)
      for (size_t i = 0; i < layer.inputs; ++i) transposed[i * layer.outputs + o] = layer.weights[o * layer.inputs + i];
    transposed_.push_back(std::move(transposed));
  }
}

std::vector<size_t> DenseNetwork::hiddenSizes() const {
  std::vector<size_t> sizes;
  for (size_t i = 0; i + 1 < layers_.size(); ++i) sizes.push_back(layers_[i].outputs);
  return sizes;
}

void DenseNetwork::forward(const float *inputs, float *out) const {
  // Two buffers the width of the widest layer, reused by every decision of
  // the thread: no allocation per decision.
  thread_local std::vector<float> front, back;
  if (front.size() < widest_) {
    front.resize(widest_);
    back.resize(widest_);
  }
  const float *x = inputs;
  for (size_t l = 0; l < layers_.size(); ++l) {
    const DenseLayer &layer = layers_[l];
    const bool last = l + 1 == layers_.size();
    float *y = last ? out : (l % 2 == 0 ? front.data() : back.data());
    const size_t outputs = layer.outputs;
    std::copy(layer.bias.begin(), layer.bias.end(), y);
    const float *column = transposed_[l].data();
    for (size_t i = 0; i < layer.inputs; ++i, column += outputs) {
      const float xi = x[i];
      for (size_t o = 0; o < outputs; ++o) y[o] += column[o] * xi;
    }
    if (!last) {
      for (size_t o = 0; o < outputs; ++o)
        y[o] = activation_ == Activation::Relu ? std::max(y[o], 0.0f) : std::tanh(y[o]);
    }
    x = y;
  }
}

std::vector<float> DenseNetwork::flatWeights() const {
  std::vector<float> weights;
  for (const DenseLayer &layer : layers_) {
    weights.insert(weights.end(), layer.weights.begin(), layer.weights.end());
    weights.insert(weights.end(), layer.bias.begin(), layer.bias.end());
  }
  return weights;
}

DenseNetwork DenseNetwork::withFlatWeights(const std::vector<float> &weights) const {
  std::vector<DenseLayer> layers = layers_;
  size_t at = 0;
  for (DenseLayer &layer : layers)
    for (std::vector<float> *part : {&layer.weights, &layer.bias})
      for (float &value : *part) {
        if (at == weights.size()) throw std::invalid_argument("withFlatWeights: the vector does not fit the network");
        value = weights[at++];
      }
  if (at != weights.size()) throw std::invalid_argument("withFlatWeights: the vector does not fit the network");
  return DenseNetwork(std::move(layers), activation_);
}

json DenseNetwork::layersToJson() const {
  json layers = json::array();
  for (const DenseLayer &layer : layers_)
    layers.push_back({{"inputs", layer.inputs}, {"outputs", layer.outputs}, {"weights", layer.weights},
                      {"bias", layer.bias}});
  return layers;
}

namespace {

/// Numbers the network computes with must be finite floats: a weight of
/// 1.7e308 would become inf (and an exported model that does not compile).
std::vector<float> finiteFloats(const json &entry, const char *key, const std::filesystem::path &file,
                                const std::string &where) {
  if (!entry.contains(key) || !entry[key].is_array())
    throw InputError(describeInputProblem(file.string(), where + "." + key, "missing or not a list of numbers"));
  std::vector<float> floats;
  floats.reserve(entry[key].size());
  for (size_t i = 0; i < entry[key].size(); ++i) {
    const json &value = entry[key][i];
    const double number = value.is_number() ? value.get<double>() : std::numeric_limits<double>::quiet_NaN();
    if (!std::isfinite(number) || std::fabs(number) > std::numeric_limits<float>::max())
      throw InputError(describeInputProblem(file.string(), where + "." + key + "[" + std::to_string(i) + "]",
                                            "not a finite 32-bit float: " + shortJsonText(value)));
    floats.push_back(static_cast<float>(number));
  }
  return floats;
}

}  // namespace

std::vector<DenseLayer> DenseNetwork::layersFromJson(const json &entries, const std::filesystem::path &file,
                                                     size_t inputs, const std::vector<size_t> &widths) {
  if (!entries.is_array() || entries.size() != widths.size())
    throw InputError(describeInputProblem(file.string(), "layers",
                                          "expected " + std::to_string(widths.size()) + " layers"));
  std::vector<DenseLayer> layers;
  size_t expectedInputs = inputs;
  for (size_t l = 0; l < widths.size(); ++l) {
    const json &entry = entries[l];
    const std::string where = "layers[" + std::to_string(l) + "]";
    DenseLayer layer;
    try {
      layer.inputs = entry.at("inputs").get<size_t>();
      layer.outputs = entry.at("outputs").get<size_t>();
    } catch (const json::exception &) {
      throw InputError(describeInputProblem(file.string(), where, "inputs and outputs missing or not sizes"));
    }
    layer.weights = finiteFloats(entry, "weights", file, where);
    layer.bias = finiteFloats(entry, "bias", file, where);
    if (layer.inputs != expectedInputs || layer.outputs != widths[l] ||
        layer.weights.size() != layer.inputs * layer.outputs || layer.bias.size() != layer.outputs)
      throw InputError(describeInputProblem(file.string(), where, "shape does not match the network in policy.json"));
    expectedInputs = layer.outputs;
    layers.push_back(std::move(layer));
  }
  return layers;
}

}  // namespace mlgo
