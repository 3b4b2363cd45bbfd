#include "mlgo/driver/module_journal.h"

#include "mlgo/driver/compiler_driver.h"
#include "mlgo/support/atomic_file.h"
#include "mlgo/support/crc32c.h"
#include "mlgo/support/errors.h"
#include "mlgo/support/text_input.h"
#include "mlgo/support/varint.h"

namespace mlgo {

namespace fs = std::filesystem;

namespace {

std::string keyOf(const CorpusModule &module) {
  return module.name + "\n" + CompilerDriver::requestMemoKey({&module, "", {}});
}

}  // namespace

ModuleJournal::ModuleJournal(fs::path directory, const nlohmann::json &settings, bool resume,
                             const std::string &what)
    : directory_(std::move(directory)) {
  const fs::path settingsFile = directory_ / "settings.json";
  if (resume && fs::exists(settingsFile)) {
    const nlohmann::json recorded = readJsonFile(settingsFile);
    if (recorded != settings)
      throw UsageError("--resume: " + directory_.parent_path().string() + " holds " + what +
                       " with other settings (" + recorded.dump() + "); pass --force to start over");
  } else {
    std::error_code ignored;
    fs::remove_all(directory_, ignored);
  }
  fs::create_directories(directory_);
  writeFileAtomically(settingsFile, settings.dump() + "\n");
}

std::optional<std::string> ModuleJournal::find(const CorpusModule &module) const {
  const fs::path file = fileOf(module.name);
  if (!fs::exists(file)) return std::nullopt;
  const std::string bytes = readFile(file);
  try {
    ByteReader reader(bytes);
    if (reader.bytes() == keyOf(module)) return std::string(reader.bytes());
  } catch (const ByteReader::DecodeError &) {
  }
  return std::nullopt;  // another module's, a changed module, or damaged: done again
}

void ModuleJournal::keep(const CorpusModule &module, const std::string &encoded) const {
  std::string bytes;
  putBytes(bytes, keyOf(module));
  putBytes(bytes, encoded);
  writeFileAtomically(fileOf(module.name), bytes);
}

void ModuleJournal::remove() const {
  std::error_code ignored;
  fs::remove_all(directory_, ignored);
}

fs::path ModuleJournal::fileOf(const std::string &moduleName) const {
  // Two names sharing a checksum share a file; find() then sees the other
  // module's key and the module is simply done again.
  return directory_ / (std::to_string(crc32c(moduleName)) + ".done");
}

}  // namespace mlgo
