#include "mlgo/trace/trace_writer.h"

#include <map>
#include <mutex>

#include "mlgo/support/atomic_file.h"
#include "mlgo/support/record_io.h"
#include "mlgo/trace/trace_format.h"

namespace mlgo::trace {

namespace fs = std::filesystem;

struct TraceWriter::Shard {
  std::mutex mutex;
  fs::path finalPath;
  std::unique_ptr<RecordWriter> writer;
  size_t nextSlot = 0;  ///< the next slot this shard writes
  std::map<size_t, std::optional<std::string>> pending;
  uint64_t moduleBytes = 0;
};

TraceWriter::TraceWriter(const fs::path &directory, const std::string &problem, nlohmann::json header,
                         size_t shards)
    : directory_(directory) {
  fs::create_directories(directory);
  // A description left by an earlier run would make this one look complete
  // before it is.
  fs::remove(directory / kDescriptionFile);
  for (size_t s = 0; s < shards; ++s) {
    auto shard = std::make_unique<Shard>();
    shard->finalPath = directory / shardFileName(problem, s, shards);
    shard->writer = std::make_unique<RecordWriter>(fs::path(shard->finalPath.string() + ".partial"));
    shard->nextSlot = s;
    header["shard"] = s;
    header["shards"] = shards;
    shard->writer->write(header.dump());
    shards_.push_back(std::move(shard));
  }
}

TraceWriter::~TraceWriter() = default;

void TraceWriter::submit(size_t slot, std::optional<std::string> encodedModule) {
  Shard &shard = *shards_[slot % shards_.size()];
  std::lock_guard<std::mutex> lock(shard.mutex);
  shard.pending.emplace(slot, std::move(encodedModule));
  for (auto it = shard.pending.begin(); it != shard.pending.end() && it->first == shard.nextSlot;
       it = shard.pending.erase(it)) {
    if (it->second) {
      const uint64_t before = shard.writer->bytesWritten();
      shard.writer->write(*it->second);
      shard.moduleBytes += shard.writer->bytesWritten() - before;
    }
    shard.nextSlot += shards_.size();
  }
}

uint64_t TraceWriter::recordBytes() const {
  uint64_t total = 0;
  for (const auto &shard : shards_) {
    std::lock_guard<std::mutex> lock(shard->mutex);
    total += shard->moduleBytes;
  }
  return total;
}

uint64_t TraceWriter::finish(nlohmann::json description, const nlohmann::json &baselines) {
  nlohmann::json files = nlohmann::json::array();
  uint64_t totalBytes = 0;
  for (const auto &shard : shards_) {
    std::lock_guard<std::mutex> lock(shard->mutex);
    if (!shard->pending.empty())
      throw std::logic_error("trace writer finished with modules still waiting for earlier ones");
    totalBytes += shard->writer->bytesWritten();
    shard->writer->close();
    fs::rename(shard->writer->path(), shard->finalPath);
    files.push_back(shard->finalPath.filename().string());
  }
  description["shard_files"] = std::move(files);
  description["trace_bytes"] = totalBytes;
  writeFileAtomically(directory_ / kBaselinesFile, baselines.dump(2) + "\n");
  writeFileAtomically(directory_ / kDescriptionFile, description.dump(2) + "\n");
  return totalBytes;
}

}  // namespace mlgo::trace
