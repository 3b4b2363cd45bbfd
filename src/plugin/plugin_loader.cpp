// mlgo-pass-plugin.so, the library `-fpass-plugin=` (clang-19) and
// `--load-pass-plugin=` (lld-19) name: a loader linked against libLLVM only.
// The plugin proper (mlgo-pass-plugin-impl.so, pass_plugin.cpp) runs mlgo's
// policies, which need clang's libclang-cpp. clang-19 has it loaded already
// and lld-19 loads it without harm, but a process that defines one of its
// options itself (opt-19: pgo-cold-func-opt) aborts while loading it, in a
// static initializer no plugin code can catch. So the loader refuses such a
// process with a message first, and otherwise loads the plugin proper
// beside it.
#include <dlfcn.h>
#include <link.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include <llvm/Passes/PassPlugin.h>
#include <llvm/Support/CommandLine.h>

namespace {

constexpr const char *kPluginProper = "mlgo-pass-plugin-impl.so";

/// Ends the process as clang reports an error (exit code 1), not as a crash.
[[noreturn]] void refuse(const std::string &reason) {
  std::fprintf(stderr, "error: mlgo pass plugin: %s\n", reason.c_str());
  std::fflush(stderr);
  std::_Exit(1);
}

/// The options libclang-cpp.so.19.1 registers: the names it adds to a
/// process that has only libLLVM (an LLVM tool defining one of them aborts
/// when the library is loaded; opt-19 defines pgo-cold-func-opt).
constexpr const char *kClangLibraryOptions[] = {
    "dataflow-log",
    "emptyline-comment-coverage",
    "enable-single-byte-coverage",
    "enable-value-profiling",
    "execute-concurrency",
    "executor",
    "filter",
    "limited-coverage-experimental",
    "pgo-cold-func-opt",
    "sanitizer-early-opt-ep",
    "system-headers-coverage",
    "ubsan-guard-checks",
    "ubsan-unique-traps",
};

/// Whether clang's libclang-cpp is loaded in this process, as in clang-19.
bool clangLibraryLoaded() {
  bool found = false;
  dl_iterate_phdr(
      [](dl_phdr_info *info, size_t, void *data) {
        const std::string name = info->dlpi_name ? info->dlpi_name : "";
        const size_t at = name.rfind("libclang-cpp.so");
        if (at != std::string::npos && (at == 0 || name[at - 1] == '/')) *static_cast<bool *>(data) = true;
        return 0;
      },
      &found);
  return found;
}

/// An option of clang's library that this process defines itself (and so
/// would register twice), or "" when loading the library is safe.
std::string optionDefinedTwice() {
  if (clangLibraryLoaded()) return "";  // clang itself: the library is shared, not loaded again
  const llvm::StringMap<llvm::cl::Option *> &options = llvm::cl::getRegisteredOptions();
  for (const char *name : kClangLibraryOptions)
    if (options.count(name)) return name;
  return "";
}

std::string processPath() {
  char path[4096];
  const ssize_t length = ::readlink("/proc/self/exe", path, sizeof path - 1);
  return length > 0 ? std::string(path, size_t(length)) : std::string("this program");
}

/// The plugin proper, in the directory this loader was loaded from.
std::string pluginProperPath() {
  Dl_info info;
  if (!::dladdr(reinterpret_cast<void *>(&pluginProperPath), &info) || !info.dli_fname)
    refuse("cannot tell which directory it was loaded from");
  const std::string self = info.dli_fname;
  return self.substr(0, self.rfind('/') + 1) + kPluginProper;
}

}  // namespace

extern "C" LLVM_ATTRIBUTE_WEAK ::llvm::PassPluginLibraryInfo llvmGetPassPluginInfo() {
  if (const std::string option = optionDefinedTwice(); !option.empty())
    refuse(processPath() + " defines the LLVM option -" + option +
           ", as clang's libclang-cpp (which the plugin needs) does: loading it would abort the process. The plugin "
           "runs in clang-19 (-fpass-plugin) and lld-19 (--load-pass-plugin), not in opt-19; with opt-19, apply a "
           "pass list with -passes=...");
  const std::string path = pluginProperPath();
  void *library = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!library) refuse(std::string("cannot load ") + path + ": " + ::dlerror());
  using InfoFunction = ::llvm::PassPluginLibraryInfo (*)();
  const auto info = reinterpret_cast<InfoFunction>(::dlsym(library, "mlgoPassPluginInfo"));
  if (!info) refuse(path + " is not mlgo's pass plugin (it has no mlgoPassPluginInfo)");
  return info();
}
