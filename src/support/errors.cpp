#include "mlgo/support/errors.h"

namespace mlgo {

std::string describeInputProblem(const std::string &file, const std::string &entry,
                                 const std::string &what) {
  std::string message = file;
  if (!entry.empty()) message += ": " + entry;
  message += ": " + what;
  return message;
}

}  // namespace mlgo
