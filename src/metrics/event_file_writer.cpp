#include "mlgo/metrics/event_file_writer.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <stdexcept>

#include <nlohmann/json.hpp>
#include <unistd.h>

#include "mlgo/support/record_io.h"
#include "tensorboard_event.pb.h"

namespace mlgo {

namespace fs = std::filesystem;

namespace {

double wallTime() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

/// TensorFlow's name: events.out.tfevents.<seconds>.<host>.<pid>.<counter>,
/// unique even for two writers of one process in the same second.
fs::path newEventFilePath(const fs::path &directory) {
  static std::atomic<unsigned> counter{0};
  char host[256] = "localhost";
  if (::gethostname(host, sizeof host - 1) != 0) std::snprintf(host, sizeof host, "localhost");
  const long seconds = static_cast<long>(wallTime());
  return directory / ("events.out.tfevents." + std::to_string(seconds) + "." + host + "." +
                      std::to_string(::getpid()) + "." + std::to_string(counter++));
}

}  // namespace

struct EventFileWriter::Impl {
  explicit Impl(const fs::path &path) : records(path) {}
  RecordWriter records;

  void write(const tensorboard::Event &event) {
    std::string bytes;
    if (!event.SerializeToString(&bytes)) throw std::runtime_error(records.path().string() + ": cannot encode event");
    records.write(bytes);
  }
  tensorboard::Event summaryEvent(int64_t step) {
    tensorboard::Event event;
    event.set_wall_time(wallTime());
    event.set_step(step);
    return event;
  }
};

EventFileWriter::EventFileWriter(const fs::path &directory) {
  fs::create_directories(directory);
  impl_ = std::make_unique<Impl>(newEventFilePath(directory));
  tensorboard::Event version;
  version.set_wall_time(wallTime());
  version.set_file_version("brain.Event:2");
  impl_->write(version);
  flush();
}

EventFileWriter::~EventFileWriter() = default;

const fs::path &EventFileWriter::path() const { return impl_->records.path(); }

void EventFileWriter::addScalar(const std::string &tag, int64_t step, double value) {
  tensorboard::Event event = impl_->summaryEvent(step);
  tensorboard::Summary::Value *entry = event.mutable_summary()->add_value();
  entry->set_tag(tag);
  entry->set_simple_value(static_cast<float>(value));
  impl_->write(event);
}

void EventFileWriter::addScalars(const nlohmann::json &values, int64_t step, const std::string &prefix) {
  for (const auto &[key, value] : values.items()) {
    const std::string tag = prefix.empty() ? key : prefix + "/" + key;
    if (value.is_object())
      addScalars(value, step, tag);
    else if (value.is_number())
      addScalar(tag, step, value.get<double>());
  }
}

void EventFileWriter::addHistogram(const std::string &tag, int64_t step, const std::vector<double> &values,
                                   size_t buckets) {
  if (values.empty()) return;
  buckets = std::max<size_t>(buckets, 1);
  const auto [low, high] = std::minmax_element(values.begin(), values.end());
  tensorboard::HistogramProto histogram;
  histogram.set_min(*low);
  histogram.set_max(*high);
  histogram.set_num(static_cast<double>(values.size()));
  double sum = 0, squares = 0;
  for (double v : values) {
    sum += v;
    squares += v * v;
  }
  histogram.set_sum(sum);
  histogram.set_sum_squares(squares);
  // Equal-width buckets over [min, max]; a single value gets one bucket.
  const double width = (*high - *low) / static_cast<double>(buckets);
  std::vector<double> counts(width > 0 ? buckets : 1, 0.0);
  for (double v : values) {
    size_t index = width > 0 ? static_cast<size_t>((v - *low) / width) : 0;
    counts[std::min(index, counts.size() - 1)] += 1;
  }
  for (size_t i = 0; i < counts.size(); ++i) {
    histogram.add_bucket_limit(i + 1 == counts.size() ? *high : *low + width * static_cast<double>(i + 1));
    histogram.add_bucket(counts[i]);
  }
  tensorboard::Event event = impl_->summaryEvent(step);
  tensorboard::Summary::Value *entry = event.mutable_summary()->add_value();
  entry->set_tag(tag);
  *entry->mutable_histo() = std::move(histogram);
  impl_->write(event);
}

void EventFileWriter::flush() { impl_->records.flush(); }

}  // namespace mlgo
