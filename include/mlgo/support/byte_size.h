#pragma once
// Sizes as people write them on a command line: "500000", "200K", "64M",
// "2G", "1T" (powers of 1024; a trailing "B" or "iB" is allowed: "64MB",
// "64MiB").
#include <cstdint>
#include <optional>
#include <string>

namespace mlgo {

/// The bytes `text` names; unset when it is not a size (or overflows).
std::optional<uint64_t> parseByteSize(const std::string &text);

/// "1.5 MiB", "812 KiB", "37 B": for reports.
std::string formatByteSize(uint64_t bytes);

}  // namespace mlgo
