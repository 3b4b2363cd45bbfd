#pragma once
// A regular expression given on the command line (--cmd-filter,
// --module-filter), matched against text from a corpus.
//
// POSIX extended syntax through LLVM's matcher, which runs in time linear in
// the text and without recursion: std::regex recurses once per character and
// ended a run on a 60,000-character recorded argument with a stack overflow.
#include <memory>
#include <string>

namespace llvm {
class Regex;
}

namespace mlgo {

class UserRegex {
 public:
  /// UsageError naming the flag when `pattern` is not a valid regex.
  UserRegex(const std::string &flag, const std::string &pattern);
  ~UserRegex();
  UserRegex(UserRegex &&) noexcept;
  UserRegex &operator=(UserRegex &&) noexcept;

  /// Whether the pattern matches anywhere in `text`. Thread-safe.
  bool search(const std::string &text) const;

 private:
  std::unique_ptr<llvm::Regex> regex_;
};

}  // namespace mlgo
