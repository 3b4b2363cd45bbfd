#pragma once
// LEB128 varints and zigzag signed integers: the compact encoding of trace
// records (most feature values are small).
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <string_view>

namespace mlgo {

void putVarint(std::string &out, uint64_t value);
inline void putZigzag(std::string &out, int64_t value) {
  putVarint(out, (static_cast<uint64_t>(value) << 1) ^ static_cast<uint64_t>(value >> 63));
}
void putBytes(std::string &out, std::string_view bytes);  ///< length-prefixed
/// Floating-point numbers as the varint of their IEEE bits: exact round trips.
inline void putFloat(std::string &out, float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  putVarint(out, bits);
}
inline void putDouble(std::string &out, double value) {
  uint64_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  putVarint(out, bits);
}

/// Reads what the put* functions wrote. Throws DecodeError past the end or
/// on an over-long varint.
class ByteReader {
 public:
  struct DecodeError : std::runtime_error {
    using std::runtime_error::runtime_error;
  };
  explicit ByteReader(std::string_view data) : data_(data) {}
  uint64_t varint();
  int64_t zigzag() {
    const uint64_t v = varint();
    return static_cast<int64_t>((v >> 1) ^ (0 - (v & 1)));
  }
  uint8_t byte();
  std::string_view bytes();  ///< length-prefixed
  float float32() {
    const auto bits = static_cast<uint32_t>(varint());
    float value;
    std::memcpy(&value, &bits, sizeof value);
    return value;
  }
  double float64() {
    const uint64_t bits = varint();
    double value;
    std::memcpy(&value, &bits, sizeof value);
    return value;
  }
  bool atEnd() const { return position_ == data_.size(); }
  size_t position() const { return position_; }  ///< bytes read so far

 private:
  std::string_view data_;
  size_t position_ = 0;
};

}  // namespace mlgo
