#include "progress.h"

#include <cstdio>
#include <memory>
#include <string>
#include <unistd.h>

namespace mlgo::cli {

namespace {

/// Items per second, or per minute when slower (an autotuned module takes
/// minutes, and "0.0/s" says nothing).
std::string rateText(double perSecond) {
  char text[32];
  if (perSecond >= 1 || perSecond == 0) std::snprintf(text, sizeof text, "%.1f/s", perSecond);
  else std::snprintf(text, sizeof text, "%.1f/min", 60 * perSecond);
  return text;
}

}  // namespace

ProgressReporter::ProgressReporter(std::string label, size_t total)
    : label_(std::move(label)),
      total_(total),
      terminal_(::isatty(STDERR_FILENO) == 1),
      start_(std::chrono::steady_clock::now()),
      lastLine_(start_) {}

ProgressReporter::~ProgressReporter() {
  if (terminal_ && !finished_ && total_ > 0) std::fputc('\n', stderr);
}

std::function<void(size_t, size_t)> ProgressReporter::callback(std::string label) {
  auto reporter = std::make_shared<std::unique_ptr<ProgressReporter>>();
  return [reporter, label = std::move(label)](size_t done, size_t total) {
    // A finished reporter means a new pass (train-ppo collects every iteration).
    if (!*reporter || (*reporter)->finished_) *reporter = std::make_unique<ProgressReporter>(label, total);
    (*reporter)->update(done);
  };
}

void ProgressReporter::update(size_t done) {
  const auto now = std::chrono::steady_clock::now();
  const double elapsed = std::chrono::duration<double>(now - start_).count();
  // A rate over the first fraction of a second says nothing.
  const double rate = elapsed >= 0.5 ? done / elapsed : 0;
  const double left = rate > 0 ? (total_ - done) / rate : 0;
  if (terminal_) {
    constexpr int kWidth = 30;
    const int filled = total_ ? static_cast<int>(kWidth * done / total_) : kWidth;
    std::fprintf(stderr, "\r%s [%.*s%*s] %zu/%zu %s %02d:%02d left ", label_.c_str(), filled,
                 "==============================", kWidth - filled, "", done, total_, rateText(rate).c_str(),
                 static_cast<int>(left) / 60, static_cast<int>(left) % 60);
    if (done == total_) {
      std::fputc('\n', stderr);
      finished_ = true;
    }
    return;
  }
  const size_t decile = total_ ? 10 * done / total_ : 10;
  if (decile > lastDecile_ || now - lastLine_ > std::chrono::seconds(30) || (done == total_ && !finished_)) {
    lastDecile_ = decile;
    lastLine_ = now;
    std::fprintf(stderr, "%s: %zu/%zu (%s, %.0f s left)\n", label_.c_str(), done, total_, rateText(rate).c_str(),
                 left);
    finished_ = done == total_;
  }
}

}  // namespace mlgo::cli
