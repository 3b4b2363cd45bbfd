#include "mlgo/serve/channel_policy.h"

#include "mlgo/support/errors.h"

namespace mlgo::serve {

namespace {
std::string describe(const std::string &name, const std::string &type, const std::vector<int64_t> &shape) {
  std::string dimensions;
  for (int64_t dimension : shape) dimensions += (dimensions.empty() ? "" : ",") + std::to_string(dimension);
  return name + " (" + type + " [" + dimensions + "])";
}
}  // namespace

void requireFeatures(const LogHeader &header, const trace::DecisionSpec &spec, const std::string &source) {
  const auto &expected = spec.features;
  if (header.features.size() != expected.size())
    throw InputError(describeInputProblem(source, "header",
                                          std::to_string(header.features.size()) + " features, expected " +
                                              std::to_string(expected.size()) + " (LLVM 19's)"));
  for (size_t i = 0; i < expected.size(); ++i) {
    const TensorSpecification &got = header.features[i];
    const trace::FeatureTensor &want = expected[i];
    if (got.name != want.name || got.type != want.typeName() || got.shape != want.shape)
      throw InputError(describeInputProblem(source, "header: feature " + std::to_string(i),
                                            "is " + describe(got.name, got.type, got.shape) + ", expected " +
                                                describe(want.name, want.typeName(), want.shape)));
  }
}

}  // namespace mlgo::serve
