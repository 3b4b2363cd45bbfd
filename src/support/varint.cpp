#include "mlgo/support/varint.h"

#include <llvm/Support/LEB128.h>

// Protobuf varints are unsigned LEB128: LLVM's encoder and decoder (the ones
// its object-file readers use), with the decoder's checks for truncated and
// over-long input.
namespace mlgo {

void putVarint(std::string &out, uint64_t value) {
  uint8_t buffer[16];
  const unsigned length = llvm::encodeULEB128(value, buffer);
  out.append(reinterpret_cast<const char *>(buffer), length);
}

void putBytes(std::string &out, std::string_view bytes) {
  putVarint(out, bytes.size());
  out.append(bytes);
}

uint64_t ByteReader::varint() {
  const auto *begin = reinterpret_cast<const uint8_t *>(data_.data());
  unsigned length = 0;
  const char *error = nullptr;
  const uint64_t value = llvm::decodeULEB128(begin + position_, &length, begin + data_.size(), &error);
  if (error)
    throw DecodeError(std::string_view(error).find("past end") != std::string_view::npos ? "truncated varint"
                                                                                         : "over-long varint");
  position_ += length;
  return value;
}

uint8_t ByteReader::byte() {
  if (position_ >= data_.size()) throw DecodeError("truncated byte");
  return static_cast<uint8_t>(data_[position_++]);
}

std::string_view ByteReader::bytes() {
  const uint64_t size = varint();
  if (size > data_.size() - position_) throw DecodeError("truncated bytes");
  std::string_view out = data_.substr(position_, size);
  position_ += size;
  return out;
}

}  // namespace mlgo
