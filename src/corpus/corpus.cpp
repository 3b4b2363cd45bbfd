#include "mlgo/corpus/corpus.h"

#include <algorithm>
#include <map>
#include <numeric>

#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include "mlgo/support/atomic_file.h"
#include "mlgo/support/errors.h"
#include "mlgo/support/text_input.h"

namespace mlgo {

namespace fs = std::filesystem;
using nlohmann::json;

std::vector<std::string> parseRecordedCommandLine(std::string_view contents) {
  std::vector<std::string> args;
  size_t start = 0;
  while (start < contents.size()) {
    size_t end = contents.find('\0', start);
    if (end == std::string_view::npos) end = contents.size();
    std::string_view arg = contents.substr(start, end - start);
    // extract_ir writes the section as is; some tools add a trailing newline.
    if (end == contents.size()) {
      while (!arg.empty() && (arg.back() == '\n' || arg.back() == '\r')) arg.remove_suffix(1);
    }
    if (!arg.empty()) args.emplace_back(arg);
    start = end + 1;
  }
  return args;
}

std::string formatRecordedCommandLine(const std::vector<std::string> &args) {
  std::string out;
  for (size_t i = 0; i < args.size(); ++i) {
    if (i) out += '\0';
    out += args[i];
  }
  return out;
}

bool isContainedRelativePath(std::string_view name) {
  if (name.empty() || name.front() == '/' || name.find('\0') != std::string_view::npos)
    return false;
  size_t start = 0;
  while (start <= name.size()) {
    size_t end = name.find('/', start);
    if (end == std::string_view::npos) end = name.size();
    std::string_view part = name.substr(start, end - start);
    if (part.empty() || part == "." || part == "..") return false;
    start = end + 1;
  }
  return true;
}

namespace {

/// Whether `path`, with every symbolic link resolved, is inside `realRoot`:
/// a corpus is untrusted data, and a link must not make it read other files.
bool staysInside(const fs::path &realRoot, const fs::path &path) {
  std::error_code error;
  const fs::path real = fs::weakly_canonical(path, error);
  if (error) return false;
  const fs::path relative = real.lexically_relative(realRoot);
  return !relative.empty() && isContainedRelativePath(relative.generic_string());
}

}  // namespace

Corpus Corpus::load(const fs::path &directory) {
  const fs::path descriptionPath = directory / kCorpusDescriptionFile;
  const std::string where = descriptionPath.string();
  if (!fs::is_directory(directory))
    throw InputError(describeInputProblem(directory.string(), "", "corpus directory does not exist"));
  if (!fs::exists(descriptionPath))
    throw InputError(describeInputProblem(
        where, "", "missing: not a corpus directory, or its extraction did not finish"));
  const json description = readJsonFile(descriptionPath);
  if (!description.is_object() || !description.contains("modules") ||
      !description["modules"].is_array())
    throw InputError(describeInputProblem(where, "", "expected an object with a \"modules\" array"));

  Corpus corpus;
  corpus.directory = directory;
  if (description.contains("has_thinlto")) {
    if (!description["has_thinlto"].is_boolean())
      throw InputError(describeInputProblem(where, "has_thinlto", "must be true or false"));
    corpus.hasThinLTO = description["has_thinlto"].get<bool>();
  }
  std::vector<std::string> globalOverride;
  if (description.contains("global_command_override")) {
    const json &override = description["global_command_override"];
    if (!override.is_array())
      throw InputError(describeInputProblem(where, "global_command_override", "must be an array of strings"));
    for (const json &arg : override) {
      if (!arg.is_string())
        throw InputError(describeInputProblem(where, "global_command_override", "must be an array of strings"));
      globalOverride.push_back(arg.get<std::string>());
    }
    // extract_ir writes this placeholder for lld ThinLTO corpora: the user
    // must supply the real flags, so it cannot be used as a command line.
    if (globalOverride == std::vector<std::string>{"<UNSPECIFIED>"})
      throw InputError(describeInputProblem(where, "global_command_override",
                                            "is <UNSPECIFIED>: fill in the command line to use"));
  }

  const json &modules = description["modules"];
  corpus.modules.reserve(modules.size());
  const fs::path realDirectory = fs::canonical(directory);
  std::map<std::string, size_t> firstEntry;
  for (size_t i = 0; i < modules.size(); ++i) {
    const std::string entry = "modules[" + std::to_string(i) + "]";
    if (!modules[i].is_string())
      throw InputError(describeInputProblem(where, entry, "must be a string"));
    CorpusModule module;
    module.name = modules[i].get<std::string>();
    if (!isContainedRelativePath(module.name))
      throw InputError(describeInputProblem(where, entry + " \"" + module.name + "\"",
                                            "module path must be relative and stay inside the corpus"));
    // Listed twice, a module would be compiled and counted twice.
    if (auto [first, inserted] = firstEntry.emplace(module.name, i); !inserted) {
      spdlog::warn("{}", describeInputProblem(where, entry + " \"" + module.name + "\"",
                                              "listed again (first as modules[" + std::to_string(first->second) +
                                                  "]): the repeat is ignored"));
      continue;
    }
    module.bitcodePath = directory / (module.name + ".bc");
    if (corpus.hasThinLTO) module.thinltoIndexPath = directory / (module.name + kThinLTOIndexSuffix);
    if (!staysInside(realDirectory, module.bitcodePath) ||
        !staysInside(realDirectory, directory / (module.name + ".cmd")) ||
        (corpus.hasThinLTO && !staysInside(realDirectory, module.thinltoIndexPath)))
      throw InputError(describeInputProblem(where, entry + " \"" + module.name + "\"",
                                            "a symbolic link takes the module's files outside the corpus"));
    if (!globalOverride.empty()) {
      module.commandLine = globalOverride;
    } else {
      fs::path cmdPath = directory / (module.name + ".cmd");
      try {
        module.commandLine = parseRecordedCommandLine(readFile(cmdPath));
      } catch (const InputError &e) {
        module.loadError = e.what();
      }
    }
    if (corpus.hasThinLTO && module.loadError.empty() && !fs::is_regular_file(module.thinltoIndexPath))
      module.loadError = describeInputProblem(module.thinltoIndexPath.string(), "",
                                              "missing: a has_thinlto corpus needs each module's ThinLTO index");
    corpus.modules.push_back(std::move(module));
  }
  return corpus;
}

void writeCorpusDescription(const fs::path &directory, const std::vector<std::string> &moduleNames,
                            bool hasThinLTO) {
  json description = {{"has_thinlto", hasThinLTO}, {"modules", moduleNames}};
  writeFileAtomically(directory / kCorpusDescriptionFile, description.dump(2) + "\n");
}

namespace {

bool cxxExtension(const std::string &file) {
  const size_t dot = file.rfind('.');
  if (dot == std::string::npos) return false;
  const std::string extension = file.substr(dot + 1);
  for (const char *cxx : {"cc", "cpp", "cxx", "c++", "C", "CC", "CPP", "ii"})
    if (extension == cxx) return true;
  return false;
}

}  // namespace

std::vector<size_t> largestModulesFirst(const Corpus &corpus, const std::vector<size_t> &modules) {
  std::vector<uintmax_t> bytes;
  for (size_t module : modules) {
    std::error_code unreadable;
    const uintmax_t size = std::filesystem::file_size(corpus.modules.at(module).bitcodePath, unreadable);
    bytes.push_back(unreadable ? 0 : size);
  }
  std::vector<size_t> order(modules.size());
  std::iota(order.begin(), order.end(), size_t(0));
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return bytes[a] > bytes[b]; });
  return order;
}

bool isCxxModule(const CorpusModule &module) {
  const std::vector<std::string> &args = module.commandLine;
  auto valueOf = [&](const char *option) -> const std::string * {
    for (size_t i = 0; i + 1 < args.size(); ++i)
      if (args[i] == option) return &args[i + 1];
    return nullptr;
  };
  if (const std::string *language = valueOf("-x")) return language->rfind("c++", 0) == 0;
  if (const std::string *file = valueOf("-main-file-name")) return cxxExtension(*file);
  for (const std::string &arg : args)
    if (arg.rfind("-std=c++", 0) == 0 || arg.rfind("-std=gnu++", 0) == 0) return true;
  return false;
}

}  // namespace mlgo
