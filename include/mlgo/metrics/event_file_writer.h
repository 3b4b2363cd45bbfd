#pragma once
// TensorBoard event files ("events.out.tfevents.<time>.<host>"): TFRecord
// framing (record_io.h) around serialized tensorboard.Event protos, the
// convention ml-compiler-opt's users watch training with. Protobuf stays
// inside the .cpp so that callers do not compile its headers.
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace mlgo {

class EventFileWriter {
 public:
  /// Creates a new event file in `directory` (created if missing) and writes
  /// the file_version record. Throws std::runtime_error naming the file.
  explicit EventFileWriter(const std::filesystem::path &directory);
  ~EventFileWriter();
  EventFileWriter(const EventFileWriter &) = delete;
  EventFileWriter &operator=(const EventFileWriter &) = delete;

  void addScalar(const std::string &tag, int64_t step, double value);
  /// Every number in `values` (nested objects joined with '/', e.g.
  /// "reward_distribution/p50") as a scalar under `prefix`; strings, arrays
  /// and booleans are skipped.
  void addScalars(const nlohmann::json &values, int64_t step, const std::string &prefix = "");
  /// A histogram of `values` in `buckets` equal-width buckets (TensorBoard's
  /// histogram and distribution dashboards). Empty `values` write nothing.
  void addHistogram(const std::string &tag, int64_t step, const std::vector<double> &values, size_t buckets = 30);
  /// Makes everything written so far readable (TensorBoard reads while training runs).
  void flush();

  const std::filesystem::path &path() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace mlgo
