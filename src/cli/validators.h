#pragma once
// CLI11 checks that flags of several subcommands share: numbers and output
// names refused before anything runs, in the same words everywhere.
#include <cstdint>
#include <limits>

#include <CLI/CLI.hpp>

namespace mlgo::cli {

/// For options held in unsigned integers: CLI11 would turn "-5" into a huge
/// count (a budget that runs until killed), so the text must be digits only,
/// at least `minimum` and at most `maximum` (a count that sizes files or
/// memory has a bound).
CLI::Validator wholeNumber(uint64_t minimum = 0, uint64_t maximum = std::numeric_limits<uint64_t>::max());
/// A finite number of seconds, at least 0 (or above 0): NaN and infinity are
/// refused.
CLI::Validator finiteSeconds(bool zeroAllowed);

/// For flags naming a file to write (--json, a coreset's --output): an
/// existing directory, or a name ending in '/', is a usage error before
/// anything runs, not a failure at the end of the run.
CLI::Validator outputFile();

}  // namespace mlgo::cli
