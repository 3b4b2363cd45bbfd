#pragma once
// CRC-32C (Castagnoli), as TFRecord and TensorBoard event files use it. No
// Debian package provides it for C++, and it is small.
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace mlgo {

uint32_t crc32c(const void *data, size_t size, uint32_t crc = 0);
inline uint32_t crc32c(std::string_view bytes) { return crc32c(bytes.data(), bytes.size()); }

/// TFRecord's masking, so that a CRC stored next to data it covers does not
/// look like data: rotate right by 15 and add a constant.
inline uint32_t maskCrc(uint32_t crc) { return ((crc >> 15) | (crc << 17)) + 0xa282ead8u; }
inline uint32_t unmaskCrc(uint32_t masked) {
  uint32_t rotated = masked - 0xa282ead8u;
  return (rotated >> 17) | (rotated << 15);
}

}  // namespace mlgo
