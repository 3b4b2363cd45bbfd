#pragma once
// `mlgo serve`: the host side of LLVM 19's interactive model runner. A stock
// clang-19 run with the problem's flags (inlining:
//   -mllvm -enable-ml-inliner=release -mllvm -inliner-interactive-channel-base=BASE,
// register-allocation eviction:
//   -mllvm -regalloc-enable-advisor=release -mllvm -regalloc-evict-interactive-channel-base=BASE,
// register-allocation priority:
//   -mllvm -regalloc-enable-priority-advisor=release -mllvm -regalloc-priority-interactive-channel-base=BASE)
// opens BASE.in for reading and BASE.out for writing (named pipes), sends a
// training-log header and one observation per decision (training_log.h), and
// reads each decision back as the advice tensor's bytes. What the
// observations hold and what to answer is the problem's ChannelPolicy.
//
// One channel carries one compilation at a time: the server answers one
// compiler until it closes the channel, then waits for the next one (a
// session each). As soon as a compiler is connected the server puts fresh
// pipes under the channel's names, so a compiler that starts meanwhile waits
// for the next session instead of mixing its messages into this one (only one
// that opens the channel in the microseconds between the two would join it).
// Builds that compile in parallel give each job its own channel (and server).
// A channel has one server: it holds BASE.lock while serving, and a second
// server on the same BASE is refused.
#include <atomic>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "mlgo/serve/channel_policy.h"

namespace mlgo::serve {

struct SessionReport {
  size_t index = 0;          ///< 0, 1, ... in the order compilers connected
  std::string context;       ///< the last context name the compiler sent
  uint64_t decisions = 0;
  uint64_t nonzero = 0;  ///< decisions answered with an action other than 0 (inlining: inlined)
  /// Empty when the compiler closed the channel between two observations (it
  /// finished); otherwise what went wrong (e.g. it died mid-header or
  /// mid-observation).
  std::string problem;
};

struct ServeOptions {
  std::filesystem::path channelBase;  ///< BASE: the pipes are BASE.in and BASE.out
  size_t maxSessions = 0;             ///< stop after this many; 0: until stopped
  /// When set, every session's decisions are written there as an mlgo trace
  /// (one module record per session; sizes are unknown to the server).
  std::optional<std::filesystem::path> traceDirectory;
  /// Polled when a blocking call is interrupted (EINTR): a signal handler sets
  /// it to end the server cleanly.
  const std::atomic<bool> *stop = nullptr;
  std::function<void(const SessionReport &)> onSession;
};

struct ServeSummary {
  size_t sessions = 0;
  size_t incompleteSessions = 0;
  uint64_t decisions = 0;
};

/// Serves `policy` on the channel until maxSessions or *stop. Creates missing
/// pipes (and removes the ones it created when it returns).
/// Throws UsageError when the channel cannot be created, is not made of
/// named pipes or is served by another server, InputError when a compiler sends a malformed header or a
/// feature set that is not the policy's.
ServeSummary serveChannel(ChannelPolicy &policy, const ServeOptions &options);

}  // namespace mlgo::serve
