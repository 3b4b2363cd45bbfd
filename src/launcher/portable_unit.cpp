#include "mlgo/launcher/portable_unit.h"

#include <cctype>
#include <set>

#include <llvm/Bitcode/BitcodeWriter.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/DebugInfo.h>
#include <llvm/IR/GlobalVariable.h>
#include <llvm/IR/Module.h>
#include <llvm/Support/raw_ostream.h>

#include "mlgo/driver/compile_memo.h"

namespace mlgo::launcher {

namespace fs = std::filesystem;

namespace {

bool continuesPath(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-'; }

/// `text` with each occurrence of the directory `root` (as a whole path
/// component) written `placeholder`.
std::string replaceRoot(std::string text, const std::string &root, const std::string &placeholder) {
  if (root.empty()) return text;
  for (size_t at = text.find(root); at != std::string::npos; at = text.find(root, at)) {
    const size_t end = at + root.size();
    if (end < text.size() && continuesPath(text[end])) {
      at = end;
      continue;
    }
    text.replace(at, root.size(), placeholder);
    at += placeholder.size();
  }
  return text;
}

/// Options whose value (the next argument) names an output or a dependency
/// file: they never change the code.
const std::set<std::string> kOutputOptions{"-o", "-dependency-file", "-MT", "-MQ", "-header-include-file",
                                           "-stack-usage-file", "-opt-record-file"};
/// Options alone that only ask for dependency output.
const std::set<std::string> kDependencyFlags{"-sys-header-deps", "-MP", "-module-file-deps"};

/// The deepest directory holding both (lexically).
fs::path commonAncestor(const fs::path &a, const fs::path &b) {
  const fs::path left = a.lexically_normal(), right = b.lexically_normal();
  fs::path common;
  for (auto x = left.begin(), y = right.begin(); x != left.end() && y != right.end() && *x == *y; ++x, ++y)
    if (!x->empty()) common /= *x;
  return common;
}

/// The include directories a cc1 command line gives, made absolute.
std::vector<fs::path> includeDirectories(const std::vector<std::string> &commandLine, const fs::path &directory) {
  static const std::vector<std::string> kFlags{"-I", "-iquote", "-isystem", "-idirafter"};
  std::vector<fs::path> found;
  for (size_t i = 0; i < commandLine.size(); ++i)
    for (const std::string &flag : kFlags) {
      if (commandLine[i].compare(0, flag.size(), flag) != 0) continue;
      std::string value = commandLine[i].substr(flag.size());
      if (value.empty() && i + 1 < commandLine.size()) value = commandLine[++i];
      if (!value.empty()) found.push_back(fs::path(value).is_absolute() ? fs::path(value) : directory / value);
      break;
    }
  return found;
}

}  // namespace

PathRoots PathRoots::of(const fs::path &directory, const fs::path &source, const fs::path &base,
                        const std::vector<std::string> &commandLine) {
  PathRoots roots;
  roots.directory = directory.lexically_normal().string();
  if (!base.empty()) {
    roots.base = fs::absolute(base).lexically_normal().string();
  } else {
    const fs::path here = directory.lexically_normal();
    fs::path common = commonAncestor(here, (source.is_absolute() ? source : directory / source).parent_path());
    for (const fs::path &include : includeDirectories(commandLine, directory)) {
      const fs::path shared = commonAncestor(here, include);
      if (std::distance(shared.begin(), shared.end()) > 2) common = commonAncestor(common, include);  // "/" and one more
    }
    if (common.has_relative_path()) roots.base = common.string();
  }
  while (roots.base.size() > 1 && roots.base.back() == '/') roots.base.pop_back();
  while (roots.directory.size() > 1 && roots.directory.back() == '/') roots.directory.pop_back();
  if (roots.base == "/") roots.base.clear();
  return roots;
}

std::string PathRoots::normalize(std::string text) const {
  // The working directory first: it lies under the base, and is the more particular.
  return replaceRoot(replaceRoot(std::move(text), directory, "<cwd>"), base, "<base>");
}

std::string portableModuleHash(llvm::Module &module, const PathRoots &roots) {
  llvm::StripDebugInfo(module);
  module.setModuleIdentifier(roots.normalize(module.getModuleIdentifier()));
  module.setSourceFileName(roots.normalize(module.getSourceFileName()));
  // __FILE__ and the like: a string global whose text names a path gets a
  // global of the normalized text in its place.
  std::vector<llvm::GlobalVariable *> named;
  for (llvm::GlobalVariable &global : module.globals()) {
    const auto *text = llvm::dyn_cast_or_null<llvm::ConstantDataSequential>(
        global.hasInitializer() ? global.getInitializer() : nullptr);
    if (text && text->isString() && roots.normalize(text->getAsString().str()) != text->getAsString())
      named.push_back(&global);
  }
  for (llvm::GlobalVariable *global : named) {
    const std::string text = roots.normalize(
        llvm::cast<llvm::ConstantDataSequential>(global->getInitializer())->getAsString().str());
    llvm::Constant *initializer = llvm::ConstantDataArray::getString(module.getContext(), text, /*AddNull=*/false);
    auto *replacement = new llvm::GlobalVariable(module, initializer->getType(), global->isConstant(),
                                                 global->getLinkage(), initializer, "", global,
                                                 global->getThreadLocalMode(), global->getAddressSpace());
    replacement->copyAttributesFrom(global);
    replacement->takeName(global);
    global->replaceAllUsesWith(replacement);
    global->eraseFromParent();
  }
  std::string bitcode;
  llvm::raw_string_ostream stream(bitcode);
  llvm::WriteBitcodeToFile(module, stream);
  stream.flush();
  return CompileMemo::hash(bitcode);
}

std::vector<std::string> portableCommandLine(const std::vector<std::string> &commandLine, const PathRoots &roots) {
  std::vector<std::string> portable;
  for (size_t i = 0; i < commandLine.size(); ++i) {
    const std::string &arg = commandLine[i];
    if (kOutputOptions.count(arg)) {
      ++i;
      continue;
    }
    if (kDependencyFlags.count(arg)) continue;
    portable.push_back(roots.normalize(arg));
  }
  return portable;
}

}  // namespace mlgo::launcher
