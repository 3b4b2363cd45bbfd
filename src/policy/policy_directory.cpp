#include "mlgo/policy/policy_directory.h"

#include "mlgo/support/atomic_file.h"
#include "mlgo/support/errors.h"
#include "mlgo/support/text_input.h"

namespace mlgo::policy_directory {

namespace fs = std::filesystem;
using nlohmann::json;

fs::path resolve(const fs::path &given) {
  fs::path directory =
      !fs::exists(given / kMetadataFile) && fs::exists(given / "policy" / kMetadataFile) ? given / "policy" : given;
  if (fs::path found = existingDirectory(directory); !found.empty()) directory = found;
  return directory;
}

std::string problemOf(const fs::path &given) {
  const fs::path metadataPath = resolve(given) / kMetadataFile;
  const json metadata = readFile(metadataPath);
  checkFormat(metadata, metadataPath);
  if (!metadata.contains("problem") || !metadata["problem"].is_string())
    throw InputError(describeInputProblem(metadataPath.string(), "problem", "missing or not a string"));
  return metadata["problem"].get<std::string>();
}

json readFile(const fs::path &path) {
  if (!fs::exists(path))
    throw InputError(describeInputProblem(path.string(), "", "missing: not a policy directory, or an unfinished one"));
  return readJsonFile(path);
}

void checkFormat(const json &metadata, const fs::path &metadataPath) {
  if (!metadata.is_object() || metadata.value("format", "") != kFormat)
    throw InputError(describeInputProblem(metadataPath.string(), "format", "not an mlgo policy"));
  if (metadata.value("version", 0) != kVersion)
    throw InputError(describeInputProblem(metadataPath.string(), "version", "unsupported policy version"));
}

fs::path startPartial(const fs::path &directory) {
  const fs::path partial = fs::path(directory.string() + ".partial");
  fs::remove_all(partial);
  fs::create_directories(partial);
  return partial;
}

void write(const fs::path &partial, const fs::path &directory, const json &metadata, const json &layers) {
  writeFileAtomically(partial / kWeightsFile, json{{"layers", layers}}.dump() + "\n");
  writeFileAtomically(partial / kMetadataFile, metadata.dump(2) + "\n");
  // Replace the old directory only once the new one is complete.
  replaceDirectory(partial, directory);
}

}  // namespace mlgo::policy_directory
