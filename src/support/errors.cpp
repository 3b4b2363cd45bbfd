#include "mlgo/support/errors.h"

#include <filesystem>

namespace mlgo {

std::string errorText(const std::exception &error) {
  const auto *filesystem = dynamic_cast<const std::filesystem::filesystem_error *>(&error);
  if (!filesystem) return error.what();
  std::string text = filesystem->what();
  const std::string tag = "filesystem error: ";
  if (text.rfind(tag, 0) == 0) text.erase(0, tag.size());
  for (const std::filesystem::path &path : {filesystem->path2(), filesystem->path1()}) {
    const std::string bracketed = " [" + path.string() + "]";
    if (!path.empty() && text.size() >= bracketed.size() &&
        text.compare(text.size() - bracketed.size(), bracketed.size(), bracketed) == 0)
      text.erase(text.size() - bracketed.size());
  }
  return filesystem->path1().empty() ? text : filesystem->path1().string() + ": " + text;
}

std::string describeInputProblem(const std::string &file, const std::string &entry,
                                 const std::string &what) {
  std::string message = file;
  if (!entry.empty()) message += ": " + entry;
  message += ": " + what;
  return message;
}

}  // namespace mlgo
