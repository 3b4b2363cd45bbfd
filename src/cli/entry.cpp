// The mlgo executable. Everything is in libmlgo_cli.so, which links LLVM and
// clang: mapping and relocating them costs a process about as much as a
// clang-19 start. A build through `mlgo cc` with nothing to apply must not
// pay that twice per compile, so this entry point, which links neither,
// hands such a call straight to the compiler. Every other `mlgo cc` call
// loads libmlgo_cc.so, which holds that command alone (cc_main.cpp);
// everything else loads libmlgo_cli.so. `mlgo cc`'s work runs in a child
// process, forked before the library is loaded (runCcInChild).
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include <csignal>

#include <dlfcn.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mlgo/launcher/cc_options.h"

namespace {

/// Whether the compiler arguments from `first` on stop before linking
/// (-c, -S, -E): a link map has nothing to record there.
bool stopsBeforeLinking(int argc, char **argv, int first) {
  for (int i = first; i < argc; ++i)
    if (std::strcmp(argv[i], "-c") == 0 || std::strcmp(argv[i], "-S") == 0 || std::strcmp(argv[i], "-E") == 0)
      return true;
  return false;
}

/// Whether the option's variable is set in the environment.
bool setInEnvironment(const mlgo::launcher::CcOption &option) {
  const char *value = option.variable ? std::getenv(option.variable) : nullptr;
  return value && *value && std::strcmp(value, "0") != 0;
}

/// Where the compiler's own arguments start when `mlgo cc` has nothing to
/// apply, so that the call is exactly the compiler's own run (as mlgo cc
/// would exec it); 0 when mlgo has something to do. Link maps alone (their
/// flag first, or their variable) matter only to a command that links.
int plainCompilerCall(int argc, char **argv) {
  using mlgo::launcher::CcEffect;
  if (argc < 3 || std::strcmp(argv[1], "cc") != 0) return 0;
  int compiler = 2;
  bool linkMaps = false;
  for (const mlgo::launcher::CcOption &option : mlgo::launcher::kCcOptions) {
    if (option.effect == CcEffect::Applies && setInEnvironment(option)) return 0;
    if (option.effect != CcEffect::LinksOnly) continue;
    linkMaps = linkMaps || setInEnvironment(option);
    if (std::strcmp(argv[2], option.flag) == 0 && argc > 4) {
      compiler = 4;
      linkMaps = true;
    }
  }
  if (argv[compiler][0] == '-') return 0;
  if (linkMaps && !stopsBeforeLinking(argc, argv, compiler + 1)) return 0;
  return compiler;
}

std::string executableDirectory() {
  char path[4096];
  const ssize_t length = ::readlink("/proc/self/exe", path, sizeof path - 1);
  if (length <= 0) return ".";
  const std::string executable(path, size_t(length));
  return executable.substr(0, executable.rfind('/'));
}

/// Loads `library` from beside the executable (a build tree) or from where
/// the libraries are installed, and returns its entry point `symbol`;
/// nullptr after saying why.
template <typename Main = int (*)(int, char **)>
Main loadEntryPoint(const char *library, const char *symbol) {
  const std::string directory = executableDirectory();
  std::string tried;
  for (const std::string &candidate : {directory + "/" + library,
                                       directory + "/" MLGO_LIBRARY_FROM_BINARY "/" + library}) {
    // RTLD_GLOBAL: OpenMPI's components, loaded later, look up its symbols.
    // RTLD_LAZY: a compile of `mlgo cc` calls a sliver of LLVM's and clang's
    // functions; binding every one of them up front cost each compile 4 ms
    // of its ~12 ms over clang's own start (perf, 2026-12-06).
    if (void *handle = ::dlopen(candidate.c_str(), RTLD_LAZY | RTLD_GLOBAL)) {
      if (auto entry = reinterpret_cast<Main>(::dlsym(handle, symbol))) return entry;
      std::fprintf(stderr, "mlgo: error: %s has no %s: %s\n", candidate.c_str(), symbol, ::dlerror());
      return nullptr;
    }
    tried += std::string("\n  ") + ::dlerror();
  }
  std::fprintf(stderr, "mlgo: error: cannot load %s:%s\n", library, tried.c_str());
  return nullptr;
}

int runLibrary(const char *library, const char *symbol, int argc, char **argv) {
  const auto entry = loadEntryPoint(library, symbol);
  return entry ? entry(argc, argv) : 1;
}

/// `mlgo cc`'s own process can die where the crash guard cannot contain it (a
/// stack smashed outside a contained compile, a bug of mlgo's): its work runs
/// in a child, and a child that dies by a signal leaves the command to the
/// real compiler, as given, with a warning; the build goes on as clang's. The
/// fork comes before libmlgo_cc.so is loaded: this process never maps LLVM
/// and clang, so the fork copies next to nothing and its exit has nothing to
/// unmap (forked after the load, a store hit took about 1,000 more page
/// faults). A signal that stops the build (SIGINT, SIGTERM, SIGHUP, SIGQUIT,
/// SIGPIPE) stops this process too.
int runCcInChild(int argc, char **argv) {
  std::fflush(nullptr);
  const pid_t child = ::fork();
  if (child <= 0) return runLibrary("libmlgo_cc.so", "mlgo_cc_main", argc, argv);  // the child, or no process to spare
  int status = 0;
  while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  const int signal = WIFSIGNALED(status) ? WTERMSIG(status) : SIGKILL;
  if (signal == SIGINT || signal == SIGTERM || signal == SIGHUP || signal == SIGQUIT || signal == SIGPIPE) {
    std::signal(signal, SIG_DFL);
    ::raise(signal);
  }
  const auto afterDeath = loadEntryPoint<int (*)(int, char **, int)>("libmlgo_cc.so", "mlgo_cc_after_death");
  return afterDeath ? afterDeath(argc, argv, signal) : 1;
}

}  // namespace

int main(int argc, char **argv) {
  // execvp returns only when it cannot run the compiler: mlgo then says why.
  if (const int compiler = plainCompilerCall(argc, argv)) ::execvp(argv[compiler], argv + compiler);
  if (argc > 1 && std::strcmp(argv[1], "cc") == 0) return runCcInChild(argc, argv);
  return runLibrary("libmlgo_cli.so", "mlgo_main", argc, argv);
}
