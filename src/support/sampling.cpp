#include "mlgo/support/sampling.h"

#include <cstdio>

#include "mlgo/support/errors.h"

namespace mlgo {

uint64_t mixBits(uint64_t value) {
  value += 0x9e3779b97f4a7c15ull;
  value = (value ^ (value >> 30)) * 0xbf58476d1ce4e5b9ull;
  value = (value ^ (value >> 27)) * 0x94d049bb133111ebull;
  return value ^ (value >> 31);
}

uint64_t hashName(std::string_view name) {
  uint64_t hash = 0xcbf29ce484222325ull;
  for (unsigned char c : name) hash = (hash ^ c) * 0x100000001b3ull;
  return hash;
}

double uniformFromKey(uint64_t key, uint64_t seed) {
  return static_cast<double>(mixBits(key ^ mixBits(seed)) >> 11) * 0x1.0p-53;
}

bool isSampled(std::string_view name, double rate, uint64_t seed) {
  if (rate >= 1) return true;
  if (rate <= 0) return false;
  return uniformFromKey(hashName(name), seed) < rate;
}

std::string shareText(double share) {
  char text[32];
  std::snprintf(text, sizeof text, "%.6g", share);
  return text;
}

void checkSamplingShare(const std::string &flag, double share) {
  if (!(share > 0 && share <= 1)) throw UsageError(flag + " must be in (0, 1], got " + shareText(share));
  if (share < kSmallestShare)
    throw UsageError(flag + " " + shareText(share) + " rounds to nothing: shares are sampled in steps of 2^-53 (" +
                     shareText(kSmallestShare) + "); give a larger one");
}

}  // namespace mlgo
