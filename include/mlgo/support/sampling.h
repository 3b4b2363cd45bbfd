#pragma once
// Deterministic sampling: whether a module (or a decision) is in a sample
// depends only on its name (index) and the seed, never on the order or the
// number of threads.
#include <cstdint>
#include <string_view>

namespace mlgo {

uint64_t mixBits(uint64_t value);  ///< SplitMix64's finalizer
uint64_t hashName(std::string_view name);  ///< FNV-1a, 64 bit

/// A uniform number in [0, 1) from a key and a seed.
double uniformFromKey(uint64_t key, uint64_t seed);

/// True for a `rate` share of names (rate >= 1: all, <= 0: none).
bool isSampled(std::string_view name, double rate, uint64_t seed);

}  // namespace mlgo
