#pragma once
// Progress of a long step on stderr: a bar with counts, rate and time left on
// a terminal; a plain line every 10% (or every 30 s) otherwise, for CI logs.
#include <chrono>
#include <cstddef>
#include <functional>
#include <string>

namespace mlgo::cli {

class ProgressReporter {
 public:
  ProgressReporter(std::string label, size_t total);
  ~ProgressReporter();
  void update(size_t done);

  /// A (done, total) callback for library calls that report progress: a
  /// reporter is made on the first call of each pass, when the total is known.
  static std::function<void(size_t, size_t)> callback(std::string label);

 private:
  std::string label_;
  size_t total_;
  bool terminal_;
  bool finished_ = false;
  std::chrono::steady_clock::time_point start_, lastLine_;
  size_t lastDecile_ = 0;
};

}  // namespace mlgo::cli
