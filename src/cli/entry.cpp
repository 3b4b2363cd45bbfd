// The mlgo executable. Everything is in libmlgo_cli.so, which links LLVM and
// clang: mapping and relocating them costs a process about as much as a
// clang-19 start. A build through `mlgo cc` with nothing to apply must not
// pay that twice per compile, so this entry point, which links neither,
// hands such a call straight to the compiler and loads the library for
// everything else.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include <dlfcn.h>
#include <unistd.h>

namespace {

bool setInEnvironment(const char *variable) {
  const char *value = std::getenv(variable);
  return value && *value && std::strcmp(value, "0") != 0;
}

/// Whether the compiler arguments from `first` on stop before linking
/// (-c, -S, -E): a link map has nothing to record there.
bool stopsBeforeLinking(int argc, char **argv, int first) {
  for (int i = first; i < argc; ++i)
    if (std::strcmp(argv[i], "-c") == 0 || std::strcmp(argv[i], "-S") == 0 || std::strcmp(argv[i], "-E") == 0)
      return true;
  return false;
}

/// Where the compiler's own arguments start when `mlgo cc` has nothing to
/// apply, so that the call is exactly the compiler's own run (as mlgo cc
/// would exec it); 0 when mlgo has something to do. Link maps alone
/// (--link-maps DIR, MLGO_CC_LINK_MAPS) matter only to a command that links.
int plainCompilerCall(int argc, char **argv) {
  if (argc < 3 || std::strcmp(argv[1], "cc") != 0) return 0;
  for (const char *variable : {"MLGO_CC_POLICY", "MLGO_CC_PASS_LISTS", "MLGO_CC_PREDICT", "MLGO_CC_CHOICES",
                               "MLGO_CC_RECORD", "MLGO_CC_STORE", "MLGO_CC_EXPLORE"})
    if (setInEnvironment(variable)) return 0;
  int compiler = 2;
  bool linkMaps = setInEnvironment("MLGO_CC_LINK_MAPS");
  if (std::strcmp(argv[2], "--link-maps") == 0 && argc > 4) {
    compiler = 4;
    linkMaps = true;
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

}  // namespace

int main(int argc, char **argv) {
  // execvp returns only when it cannot run the compiler: mlgo then says why.
  if (const int compiler = plainCompilerCall(argc, argv)) ::execvp(argv[compiler], argv + compiler);
  // Beside the executable in a build tree; installed, where the libraries go.
  const std::string directory = executableDirectory();
  void *library = nullptr;
  std::string tried;
  for (const std::string &candidate :
       {directory + "/libmlgo_cli.so", directory + "/" MLGO_LIBRARY_FROM_BINARY "/libmlgo_cli.so"}) {
    // RTLD_GLOBAL: OpenMPI's components, loaded later, look up its symbols.
    // RTLD_LAZY: a compile of `mlgo cc` calls a sliver of LLVM's, clang's
    // and OpenMPI's functions; binding every one of them up front cost each
    // compile 4 ms of its ~12 ms over clang's own start (perf, 2026-12-06).
    library = ::dlopen(candidate.c_str(), RTLD_LAZY | RTLD_GLOBAL);
    if (library) break;
    tried += std::string("\n  ") + ::dlerror();
  }
  if (!library) {
    std::fprintf(stderr, "mlgo: error: cannot load libmlgo_cli.so:%s\n", tried.c_str());
    return 1;
  }
  using Main = int (*)(int, char **);
  const auto mlgoMain = reinterpret_cast<Main>(::dlsym(library, "mlgo_main"));
  if (!mlgoMain) {
    std::fprintf(stderr, "mlgo: error: libmlgo_cli.so has no mlgo_main: %s\n", ::dlerror());
    return 1;
  }
  return mlgoMain(argc, argv);
}
