#pragma once
// Error types shared by the library. The library never prints to stdout and
// never exits: it throws one of these and the command-line layer maps them to
// the documented exit codes (include/mlgo/support/exit_codes.h).
#include <stdexcept>
#include <string>

namespace mlgo {

/// Bad input from the user: a file that is missing or malformed, an entry that
/// is wrong. The message names the file, the entry and what is wrong.
class InputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Flags that do not make sense together or out of range values.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// A long run stopped early because its inputs keep failing (e.g. too many
/// modules fail to compile, iteration after iteration). What it finished is
/// saved; the message says what failed and how to continue.
class RunStopped : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// What an exception says, in mlgo's words: a std::filesystem error as
/// "PATH: what failed: why" ("cache/ab: cannot create directories: Not a
/// directory"), without the library's "filesystem error:" tag and bracketed
/// paths; any other exception, its message.
std::string errorText(const std::exception &error);

/// Formats "FILE: ENTRY: WHAT" (ENTRY omitted when empty) so every input error
/// reads the same way.
std::string describeInputProblem(const std::string &file, const std::string &entry,
                                 const std::string &what);

}  // namespace mlgo
