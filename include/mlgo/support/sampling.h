#pragma once
// Deterministic sampling: whether a module (or a decision) is in a sample
// depends only on its name (index) and the seed, never on the order or the
// number of threads.
#include <cstdint>
#include <string>
#include <string_view>

namespace mlgo {

uint64_t mixBits(uint64_t value);  ///< SplitMix64's finalizer
uint64_t hashName(std::string_view name);  ///< FNV-1a, 64 bit

/// A uniform number in [0, 1) from a key and a seed: a whole multiple of
/// kSmallestShare.
double uniformFromKey(uint64_t key, uint64_t seed);
/// 2^-53: a share below it samples nothing (but the one key in 2^53 that
/// maps to 0).
inline constexpr double kSmallestShare = 0x1.0p-53;

/// UsageError unless `share`, the value of `flag` (e.g. "--sampling-rate"),
/// is in (0, 1] and not below kSmallestShare: a share that rounds to nothing
/// is a bad flag value, not an empty input.
void checkSamplingShare(const std::string &flag, double share);
/// "0.25", "1e-300": a share as the user could have typed it.
std::string shareText(double share);

/// True for a `rate` share of names (rate >= 1: all, <= 0: none).
bool isSampled(std::string_view name, double rate, uint64_t seed);

}  // namespace mlgo
