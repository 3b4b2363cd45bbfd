#pragma once
// What `mlgo serve` asks of a problem's trained policy: how a stock
// compiler's observations are laid out and what to answer each of them.
// Inlining's reads LLVM 19's inlining features (and the default decision when
// the compiler sends it) and answers 0 or 1; register allocation's reads the
// 21 eviction tensors and answers a position. Problems make theirs
// (Problem::channelPolicy); the server (interactive_server.h) knows none.
#include <cstdint>
#include <limits>
#include <memory>
#include <string>

#include "mlgo/serve/training_log.h"
#include "mlgo/trace/decision_spec.h"

namespace mlgo::serve {

class ChannelPolicy {
 public:
  virtual ~ChannelPolicy() = default;
  virtual std::string problem() const = 0;
  /// The decisions as a served trace records them (--log).
  virtual const trace::DecisionSpec &decisionSpec() const = 0;
  /// The clang-19 flags that make a compiler ask this policy on channel `base`.
  virtual std::string compilerFlags(const std::string &base) const = 0;
  /// Checks a compiler's header against the policy's features before its
  /// first observation and returns the advice tensor to answer with. Throws
  /// InputError naming `source` and the feature that does not match.
  virtual TensorSpecification connect(const LogHeader &header, const std::string &source) = 0;

  /// What the decision spec's kind answers: yes/no and positions an action,
  /// continuous decisions a value.
  struct Decision {
    int64_t action = 0;
    int64_t defaultAction = -1;  ///< when the compiler sent it
    float value = 0;
    float defaultValue = std::numeric_limits<float>::quiet_NaN();  ///< NaN: not sent
  };
  /// Decides one observation (every feature's bytes, in the header's order)
  /// and writes the decision's features as a trace records them into `words`
  /// (decisionSpec().decisionWords() of them).
  virtual Decision decide(const char *observation, int64_t *words) const = 0;
};

/// Throws InputError naming `source` unless the header's features are
/// exactly `spec`'s (names, types and shapes, in order).
void requireFeatures(const LogHeader &header, const trace::DecisionSpec &spec, const std::string &source);

}  // namespace mlgo::serve
