#include "mlgo/support/varint.h"

namespace mlgo {

void putVarint(std::string &out, uint64_t value) {
  while (value >= 0x80) {
    out.push_back(static_cast<char>((value & 0x7F) | 0x80));
    value >>= 7;
  }
  out.push_back(static_cast<char>(value));
}

void putBytes(std::string &out, std::string_view bytes) {
  putVarint(out, bytes.size());
  out.append(bytes);
}

uint64_t ByteReader::varint() {
  uint64_t value = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    if (position_ >= data_.size()) throw DecodeError("truncated varint");
    const auto byte = static_cast<uint8_t>(data_[position_++]);
    value |= uint64_t(byte & 0x7F) << shift;
    if (!(byte & 0x80)) return value;
  }
  throw DecodeError("over-long varint");
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
