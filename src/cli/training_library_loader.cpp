#include "training_library_loader.h"

#include <dlfcn.h>

#include <filesystem>
#include <mutex>
#include <stdexcept>
#include <string>

#include "mlgo/support/data_paths.h"

namespace mlgo::cli {

namespace {

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
