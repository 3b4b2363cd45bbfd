#include "mlgo/corpus/compile_commands.h"

#include <clang/Driver/Options.h>
#include <llvm/Option/ArgList.h>
#include <llvm/Option/OptTable.h>
#include <nlohmann/json.hpp>

#include "mlgo/corpus/corpus.h"
#include "mlgo/support/atomic_file.h"
#include "mlgo/support/errors.h"
#include "mlgo/support/shell_words.h"
#include "mlgo/support/text_input.h"

namespace mlgo {

namespace fs = std::filesystem;
using nlohmann::json;

std::string moduleNameForObject(const fs::path &object, const fs::path &buildDirectory) {
  fs::path absolute = (object.is_absolute() ? object : buildDirectory / object).lexically_normal();
  fs::path relative = absolute.lexically_relative(buildDirectory.lexically_normal());
  std::string name = relative.generic_string();
  if (!relative.empty() && isContainedRelativePath(name)) return name;
  // Outside the build directory: mirror the absolute path below the corpus.
  name = absolute.relative_path().generic_string();
  return name;
}

namespace {

/// The object the compile writes, read as clang's driver reads it: `-o F`,
/// `-oF`, `--output F` and `--output=F`, the last one winning.
std::string findOutputArgument(const std::vector<std::string> &args) {
  std::vector<const char *> driverArgs;
  for (size_t i = 1; i < args.size(); ++i) driverArgs.push_back(args[i].c_str());
  unsigned missingIndex = 0, missingCount = 0;
  const llvm::opt::InputArgList parsed =
      clang::driver::getDriverOptTable().ParseArgs(driverArgs, missingIndex, missingCount);
  return parsed.getLastArgValue(clang::driver::options::OPT_o).str();
}

}  // namespace

std::vector<ObjectEntry> readCompileCommands(const fs::path &file) {
  const json commands = readJsonFile(file);
  if (!commands.is_array())
    throw InputError(describeInputProblem(file.string(), "", "expected a JSON array of compile commands"));

  std::vector<ObjectEntry> entries;
  entries.reserve(commands.size());
  for (size_t i = 0; i < commands.size(); ++i) {
    ObjectEntry entry;
    entry.origin = file.string() + ": entry " + std::to_string(i);
    const json &command = commands[i];
    auto fail = [&](std::string problem) {
      entry.problem = std::move(problem);
      entries.push_back(entry);
    };
    if (!command.is_object()) {
      fail("not an object");
      continue;
    }
    if (!command.contains("directory") || !command["directory"].is_string()) {
      fail("no \"directory\" string");
      continue;
    }
    fs::path directory = command["directory"].get<std::string>();
    if (directory.is_relative()) directory = fs::absolute(file.parent_path() / directory);
    std::string output;
    if (command.contains("output") && command["output"].is_string()) {
      output = command["output"].get<std::string>();
    } else {
      std::vector<std::string> args;
      if (command.contains("arguments") && command["arguments"].is_array()) {
        for (const json &arg : command["arguments"])
          if (arg.is_string()) args.push_back(arg.get<std::string>());
      } else if (command.contains("command") && command["command"].is_string()) {
        auto words = splitShellWords(command["command"].get<std::string>());
        if (!words) {
          fail("\"command\" has an unterminated quote");
          continue;
        }
        args = std::move(*words);
      } else {
        fail("neither \"arguments\" nor \"command\"");
        continue;
      }
      output = findOutputArgument(args);
    }
    if (output.empty()) {
      fail("no output (-o) in the command: not an object compile");
      continue;
    }
    fs::path object = output;
    entry.objectPath = object.is_absolute() ? object : directory / object;
    entry.directory = directory;
    entry.moduleName = moduleNameForObject(object, directory);
    entries.push_back(std::move(entry));
  }
  return entries;
}

std::vector<ObjectEntry> readObjectList(const fs::path &file) {
  const fs::path base = fs::absolute(file).parent_path();
  std::vector<ObjectEntry> entries;
  forEachLine(readFile(file), [&](size_t lineNumber, std::string_view line) {
    if (line.empty() || line[0] == '#') return;
    ObjectEntry entry;
    entry.origin = file.string() + ": line " + std::to_string(lineNumber);
    const fs::path object(line);
    entry.objectPath = object.is_absolute() ? object : base / object;
    entry.directory = base;
    entry.moduleName = moduleNameForObject(object, base);
    entries.push_back(std::move(entry));
  });
  return entries;
}

}  // namespace mlgo
