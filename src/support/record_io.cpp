#include "mlgo/support/record_io.h"

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include "mlgo/support/atomic_file.h"
#include "mlgo/support/crc32c.h"
#include "mlgo/support/errors.h"

namespace mlgo {

namespace {

void putLittleEndian(std::string &out, uint64_t value, int bytes) {
  for (int i = 0; i < bytes; ++i) out.push_back(static_cast<char>((value >> (8 * i)) & 0xFF));
}

uint64_t getLittleEndian(const unsigned char *in, int bytes) {
  uint64_t value = 0;
  for (int i = 0; i < bytes; ++i) value |= uint64_t(in[i]) << (8 * i);
  return value;
}

/// Records larger than this are taken as corruption of the length field.
constexpr uint64_t kMaxRecordBytes = uint64_t(1) << 32;

}  // namespace

std::string frameRecord(std::string_view data) {
  std::string out;
  out.reserve(data.size() + 16);
  putLittleEndian(out, data.size(), 8);
  putLittleEndian(out, maskCrc(crc32c(out.data(), 8)), 4);
  out.append(data);
  putLittleEndian(out, maskCrc(crc32c(data)), 4);
  return out;
}

RecordWriter::RecordWriter(const std::filesystem::path &path) : path_(path) {
  file_ = std::fopen(path.c_str(), "wb");
  if (!file_) throw std::runtime_error("cannot create " + path.string() + ": " + std::strerror(errno));
}

RecordWriter::~RecordWriter() {
  if (file_) std::fclose(file_);
}

void RecordWriter::write(std::string_view data) {
  const std::string framed = frameRecord(data);
  if (std::fwrite(framed.data(), 1, framed.size(), file_) != framed.size())
    throw std::runtime_error("cannot write " + path_.string() + ": " + std::strerror(errno));
  bytes_ += framed.size();
}

void RecordWriter::flush() {
  if (file_ && std::fflush(file_) != 0)
    throw std::runtime_error("cannot write " + path_.string() + ": " + std::strerror(errno));
}

void RecordWriter::close() {
  if (!file_) return;
  const int status = std::fclose(file_);
  file_ = nullptr;
  if (status != 0) throw std::runtime_error("cannot write " + path_.string() + ": " + std::strerror(errno));
}

RecordReader::RecordReader(const std::filesystem::path &path) : path_(path) {
  requireRegularFile(path);
  file_ = std::fopen(path.c_str(), "rb");
  if (!file_)
    throw InputError(describeInputProblem(path.string(), "", std::string("cannot open: ") + std::strerror(errno)));
}

RecordReader::~RecordReader() {
  if (file_) std::fclose(file_);
}

std::optional<std::string> RecordReader::next() {
  const std::string where = "offset " + std::to_string(offset_);
  unsigned char header[12];
  const size_t got = std::fread(header, 1, sizeof header, file_);
  if (got == 0) return std::nullopt;
  if (got < sizeof header)
    throw InputError(describeInputProblem(path_.string(), where, "truncated record header"));
  const uint64_t length = getLittleEndian(header, 8);
  if (unmaskCrc(static_cast<uint32_t>(getLittleEndian(header + 8, 4))) != crc32c(header, 8))
    throw InputError(describeInputProblem(path_.string(), where, "corrupted record length (checksum mismatch)"));
  if (length > kMaxRecordBytes)
    throw InputError(describeInputProblem(path_.string(), where, "implausible record length"));
  std::string data(length, '\0');
  unsigned char footer[4];
  if (std::fread(data.data(), 1, length, file_) != length || std::fread(footer, 1, 4, file_) != 4)
    throw InputError(describeInputProblem(path_.string(), where, "truncated record"));
  if (unmaskCrc(static_cast<uint32_t>(getLittleEndian(footer, 4))) != crc32c(data))
    throw InputError(describeInputProblem(path_.string(), where, "corrupted record (checksum mismatch)"));
  offset_ += 16 + length;
  return data;
}

}  // namespace mlgo
