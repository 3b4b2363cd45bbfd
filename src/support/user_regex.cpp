#include "mlgo/support/user_regex.h"

#include <llvm/ADT/StringRef.h>
#include <llvm/Support/Regex.h>

#include "mlgo/support/errors.h"

namespace mlgo {

UserRegex::UserRegex(const std::string &flag, const std::string &pattern)
    : regex_(std::make_unique<llvm::Regex>(pattern)) {
  std::string error;
  if (!regex_->isValid(error))
    throw UsageError(flag + " \"" + pattern + "\" is not a valid regex (POSIX extended): " + error);
}

UserRegex::~UserRegex() = default;
UserRegex::UserRegex(UserRegex &&) noexcept = default;
UserRegex &UserRegex::operator=(UserRegex &&) noexcept = default;

bool UserRegex::search(const std::string &text) const {
  return regex_->match(text);
}

}  // namespace mlgo
