#include "training_library_loader.h"

#include <dlfcn.h>

#include <filesystem>
#include <mutex>
#include <stdexcept>
#include <string>

#include "mlgo/trace/sampling.h"

namespace mlgo::cli {

namespace {

/// The directory of the shared object that holds mlgo_core's code.
std::filesystem::path coreLibraryDirectory() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void *>(&mlgo::hashName), &info) == 0 || info.dli_fname == nullptr)
    throw std::runtime_error("cannot locate libmlgo_core.so to load " + std::string(kTrainingLibraryFile));
  // Absolute: a relative LD_LIBRARY_PATH entry gives a relative name, and
  // dlopen would search its default paths for a bare file name.
  return std::filesystem::absolute(info.dli_fname).parent_path();
}

const TrainingLibrary &load() {
  const std::filesystem::path path = coreLibraryDirectory() / kTrainingLibraryFile;
  void *handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr)
    throw std::runtime_error(std::string("cannot load mlgo's training library (LibTorch): ") + dlerror());
  using Entry = const TrainingLibrary *(*)();
  auto entry = reinterpret_cast<Entry>(dlsym(handle, kTrainingLibraryEntry));
  if (entry == nullptr)
    throw std::runtime_error(path.string() + " has no entry point " + kTrainingLibraryEntry +
                             " (a library from another build?)");
  return *entry();  // never unloaded: LibTorch does not support it
}

}  // namespace

const TrainingLibrary &trainingLibrary() {
  static const TrainingLibrary &library = load();
  return library;
}

}  // namespace mlgo::cli
