#pragma once
// The pipes between LLVM's InteractiveModelRunner (inside the eviction
// advisor) and the compiling thread itself. LLVM writes each decision's
// features and then blocks reading the answer; the thread never waits on it,
// because the answer is written before LLVM asks (the default's position) and
// the features are read after LLVM returns. The steer's own answer is then
// applied by the advisor, not sent. Per compile, so compiles on other threads
// never share a channel.
#include <cstdint>
#include <string>

#include "mlgo/serve/training_log.h"

namespace mlgo::regalloc {

class EvictionChannel {
 public:
  /// Creates two named pipes in a private temporary directory; throws
  /// std::runtime_error saying why it could not.
  EvictionChannel();
  ~EvictionChannel();
  EvictionChannel(const EvictionChannel &) = delete;
  EvictionChannel &operator=(const EvictionChannel &) = delete;

  /// LLVM's channel base: it opens base() + ".out" and base() + ".in".
  const std::string &base() const { return base_; }
  /// After LLVM opened both pipes: removes them from the file system and
  /// reads LLVM's header. Throws InputError when the header is malformed.
  void connect();
  const serve::LogHeader &header() const { return header_; }

  /// Queues `position` as the answer to LLVM's next question.
  void answerInAdvance(int64_t position);
  /// The feature bytes of the observation LLVM wrote since answerInAdvance,
  /// true; or false when it asked nothing (the queued answer is withdrawn).
  /// Throws InputError when what LLVM wrote does not parse.
  bool takeObservation(std::string &featureBytes);

 private:
  void release();  ///< closes the pipe ends and removes the directory
  void readAvailable();
  bool takeLine(std::string &line);

  std::string directory_;
  std::string base_;
  int fromLLVM_ = -1;
  int toLLVM_ = -1;
  std::string pending_;  ///< bytes read from LLVM, not parsed yet
  serve::LogHeader header_;
};

}  // namespace mlgo::regalloc
