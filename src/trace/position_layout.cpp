#include "mlgo/trace/position_layout.h"

#include <cmath>
#include <cstring>

#include "mlgo/support/errors.h"

namespace mlgo {

namespace {
constexpr const char *kMaskName = PositionLayout::kMaskName;
}  // namespace

std::string PositionLayout::whyNot(const trace::DecisionSpec &spec) {
  if (spec.actions < 2) return "it has fewer than 2 actions";
  for (const trace::FeatureTensor &tensor : spec.features) {
    if (tensor.name == kMaskName &&
        !(tensor.type == trace::FeatureTensor::Type::Int64 && isPerPosition(tensor, spec.actions)))
      return "its mask is not int64 of shape [1, " + std::to_string(spec.actions) + "]";
    if (!isPerPosition(tensor, spec.actions) && tensor.elements() != 1)
      return "feature " + tensor.name + " is neither one value per action nor a scalar";
  }
  for (const trace::FeatureTensor &tensor : spec.features)
    if (tensor.name != kMaskName && isPerPosition(tensor, spec.actions)) return "";
  return "no feature has one value per action";
}

PositionLayout::PositionLayout(const trace::DecisionSpec &spec) : positions_(static_cast<size_t>(spec.actions)) {
  if (std::string reason = whyNot(spec); !reason.empty())
    throw UsageError("not a decision among positions: " + reason);
  std::vector<Source> shared;
  std::vector<std::string> sharedNames;
  for (size_t i = 0; i < spec.features.size(); ++i) {
    const trace::FeatureTensor &tensor = spec.features[i];
    const Source source{spec.offsetOf(i), tensor.type == trace::FeatureTensor::Type::Float,
                        isPerPosition(tensor, spec.actions)};
    if (tensor.name == kMaskName) {
      hasMask_ = true;
      maskOffset_ = source.byteOffset;
    } else if (source.perPosition) {
      sources_.push_back(source);
      inputNames_.push_back(tensor.name);
    } else {
      shared.push_back(source);
      sharedNames.push_back(tensor.name);
    }
  }
  sources_.insert(sources_.end(), shared.begin(), shared.end());
  inputNames_.insert(inputNames_.end(), sharedNames.begin(), sharedNames.end());
  inputNames_.push_back("position");
}

double PositionLayout::valueAt(const uint8_t *bytes, const Source &source, size_t position) const {
  const size_t element = source.perPosition ? position : 0;
  if (source.isFloat) {
    float value;
    std::memcpy(&value, bytes + source.byteOffset + element * sizeof(float), sizeof value);
    return value;
  }
  int64_t value;
  std::memcpy(&value, bytes + source.byteOffset + element * sizeof(int64_t), sizeof value);
  return static_cast<double>(value);
}

void PositionLayout::rawInputs(const int64_t *words, float *inputs, uint8_t *mask) const {
  const auto *bytes = reinterpret_cast<const uint8_t *>(words);
  const size_t last = positions_ - 1;
  for (size_t p = 0; p < positions_; ++p) {
    float *row = inputs + p * width();
    for (size_t s = 0; s < sources_.size(); ++s) {
      // LLVM's features can be NaN (use_def_density of a live range with no
      // weight); one NaN would poison every score and gradient it touches.
      const double value = valueAt(bytes, sources_[s], p);
      row[s] = std::isfinite(value) ? static_cast<float>(value) : 0.0f;
    }
    row[sources_.size()] = static_cast<float>(p) / static_cast<float>(last);
    if (hasMask_) {
      int64_t allowed;
      std::memcpy(&allowed, bytes + maskOffset_ + p * sizeof(int64_t), sizeof allowed);
      mask[p] = allowed != 0;
    } else {
      mask[p] = 1;
    }
  }
}

}  // namespace mlgo
