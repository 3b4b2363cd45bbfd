#pragma once
// TFRecord framing: each record is
//   uint64 length | uint32 masked CRC-32C of length | data | uint32 masked CRC-32C of data
// (little endian). Used for traces and for TensorBoard event files. A reader
// stops at the first damaged or truncated record with an error that names the
// file and the byte offset; every record before it stays readable.
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace mlgo {

/// Appends framed records to a file.
class RecordWriter {
 public:
  /// Creates (truncates) `path`. Throws std::runtime_error naming it.
  explicit RecordWriter(const std::filesystem::path &path);
  ~RecordWriter();
  RecordWriter(const RecordWriter &) = delete;
  RecordWriter &operator=(const RecordWriter &) = delete;

  void write(std::string_view data);
  void flush();
  void close();
  uint64_t bytesWritten() const { return bytes_; }
  const std::filesystem::path &path() const { return path_; }

 private:
  std::filesystem::path path_;
  std::FILE *file_ = nullptr;
  uint64_t bytes_ = 0;
};

/// Frames one record into a string (for writers that buffer).
std::string frameRecord(std::string_view data);

/// Reads framed records one by one.
class RecordReader {
 public:
  /// Throws InputError naming `path` when it cannot be opened.
  explicit RecordReader(const std::filesystem::path &path);
  ~RecordReader();
  RecordReader(const RecordReader &) = delete;
  RecordReader &operator=(const RecordReader &) = delete;

  /// The next record, or std::nullopt at a clean end of file. Throws
  /// InputError "<file>: offset N: ..." for a truncated or corrupted record.
  std::optional<std::string> next();
  /// Offset of the record next() returns next.
  uint64_t offset() const { return offset_; }

 private:
  std::filesystem::path path_;
  std::FILE *file_ = nullptr;
  uint64_t offset_ = 0;
};

}  // namespace mlgo
