#pragma once
// LLVM's training-log wire format (llvm/Analysis/Utils/TrainingLogger.h), as
// LLVM 19's InteractiveModelRunner writes it to the host:
//   {"features":[<tensor spec>...], "advice": <tensor spec>}\n      header
//   {"context":"<name>"}\n                                           per context
//   {"observation":<n>}\n <raw bytes of every feature, in order> \n  per decision
// A tensor spec is {"name":..., "port":0, "type":"int64_t", "shape":[1]}.
// The host answers each observation with the advice tensor's raw bytes.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace mlgo::serve {

struct TensorSpecification {
  std::string name;
  std::string type;  ///< LLVM's element type name: "int64_t", "float", ...
  std::vector<int64_t> shape;
  size_t elementSize = 0;
  size_t elementCount() const;
  size_t byteSize() const { return elementSize * elementCount(); }
};

struct LogHeader {
  std::vector<TensorSpecification> features;
  std::optional<TensorSpecification> advice;
  size_t observationBytes() const;  ///< all features of one observation
};

/// Parses the header line. Throws InputError saying what is wrong; `source`
/// names the stream in the message.
LogHeader parseLogHeader(const std::string &line, const std::string &source);

/// One line after the header: a context switch, an observation (whose feature
/// bytes follow), or an outcome (reward logging, not used by the inliner).
struct LogEvent {
  enum class Kind { Context, Observation, Outcome } kind;
  std::string context;  ///< Kind::Context
  int64_t id = 0;       ///< Kind::Observation or Outcome
};
LogEvent parseLogEvent(const std::string &line, const std::string &source);

/// The header line LLVM writes for `features` and `advice` (tests, tools).
std::string formatLogHeader(const std::vector<TensorSpecification> &features,
                            const std::optional<TensorSpecification> &advice);

/// An int64 tensor of shape [1], as LLVM's inlining features are.
TensorSpecification scalarInt64(const std::string &name);

}  // namespace mlgo::serve
