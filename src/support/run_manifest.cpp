// See run_manifest.h.
#include "mlgo/support/run_manifest.h"

#include <fstream>
#include <set>

#include <llvm/Config/llvm-config.h>
#include <llvm/ADT/StringExtras.h>
#include <llvm/Support/SHA256.h>

#include "mlgo/support/atomic_file.h"
#include "mlgo/support/errors.h"
#include "mlgo/support/output_directory.h"
#include "mlgo/support/text_input.h"

namespace fs = std::filesystem;
using nlohmann::json;

namespace mlgo {

namespace {

constexpr const char *kManifestFile = "manifest.json";

/// mlgo's own files about a run, not its data: an input directory that
/// another run wrote holds its lock and its manifest (which names the machine
/// it ran on), and neither says anything about the data.
bool isRunMetadata(const std::string &name) {
  const std::string suffix = std::string(".") + kManifestFile;
  return name == OutputDirectoryLock::kLockFile || name == kManifestFile ||
         (name.size() > suffix.size() && name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0);
}

/// Whether filesBelow lists TensorBoard event files.
enum class EventFiles { Listed, LeftOut };

/// Regular files below `root` by path relative to it, in sorted order (links
/// to files are followed, links to directories are not), but for the
/// directories `skip` (canonical paths) and mlgo's metadata.
std::map<std::string, fs::path> filesBelow(const fs::path &root, const std::set<fs::path> &skip, EventFiles events) {
  std::map<std::string, fs::path> files;
  for (auto it = fs::recursive_directory_iterator(root); it != fs::recursive_directory_iterator(); ++it) {
    if (it->is_directory() && skip.count(fs::weakly_canonical(it->path()))) {
      it.disable_recursion_pending();
      continue;
    }
    const std::string name = it->path().filename().string();
    if (!it->is_regular_file() || isRunMetadata(name)) continue;
    if (events == EventFiles::LeftOut && isTensorBoardEvents(name)) continue;
    // Lexically: fs::relative would resolve a link and name the file by
    // where it points ("../elsewhere.json"), not by where it is.
    files[it->path().lexically_relative(root).generic_string()] = it->path();
  }
  return files;
}

json hashFiles(const std::map<std::string, fs::path> &files) {
  json hashes = json::object();
  for (const auto &[name, path] : files) hashes[name] = contentHash(path);
  return hashes;
}

/// A small JSON input (a config) is kept whole, so that a comparison can
/// name the key that differs; not when nested deeper than any config is,
/// since writing the manifest would then recurse once per level.
json describeInputFile(const fs::path &file) {
  json input{{"path", fs::absolute(file).string()}, {"sha256", contentHash(file)}};
  if (file.extension() == ".json" && fs::file_size(file) <= 64 * 1024) {
    std::ifstream in(file);
    json content = parseJsonOrDiscarded(std::string(std::istreambuf_iterator<char>(in), {}));
    if (!content.is_discarded() && !jsonNestedDeeperThan(content, 64)) input["json"] = std::move(content);
  }
  return input;
}

/// An input's identity is what the command reads, so that a rerun on the
/// same data is the same run. TensorBoard event files are logs that no
/// command reads, and their names hold the time, host and pid of the run that
/// wrote them: a warm start from a rerun's training directory would otherwise
/// always differ from the original's.
json describeInputs(const RunDescription &run, const fs::path &output) {
  json inputs = json::object();
  for (const auto &[flag, values] : run.flags) {
    if (flag == run.outputFlag || flagLeavesResultAlone(flag) || values.size() != 1) continue;
    if (const auto described = run.inputsDescribed.find(flag); described != run.inputsDescribed.end()) {
      inputs[flag] = described->second;
      continue;
    }
    std::error_code error;
    const fs::path path = values.front();
    if (path.empty()) continue;
    if (fs::is_regular_file(path, error))
      inputs[flag] = describeInputFile(path);
    else if (fs::is_directory(path, error))
      inputs[flag] = json{{"path", fs::absolute(path).string()},
                          {"files", hashFiles(filesBelow(path, {fs::weakly_canonical(output)}, EventFiles::LeftOut))}};
  }
  return inputs;
}

/// An output file goes by its flag's name: two runs write their files under
/// other names.
json describeOutputs(const fs::path &output, const std::string &outputFlag) {
  if (!fs::is_directory(output)) return json{{outputFlag, contentHash(output)}};
  return hashFiles(outputFilesBelow(output));
}

std::string firstLine(const fs::path &file) {
  std::ifstream in(file);
  std::string line;
  std::getline(in, line);
  return line;
}

/// What the run ran on: shown when two runs differ, never compared.
json describeMachine() {
  std::string cpu;
  std::ifstream cpuinfo("/proc/cpuinfo");
  for (std::string line; std::getline(cpuinfo, line);)
    if (line.rfind("model name", 0) == 0) {
      cpu = line.substr(line.find(':') + 2);
      break;
    }
  return json{{"cpu", cpu}, {"kernel", firstLine("/proc/sys/kernel/osrelease")}};
}

}  // namespace

bool flagLeavesResultAlone(const std::string &flag) {
  static const std::set<std::string> flags{"--threads",   "--force",         "--resume",   "--log-level",
                                           "--cache-dir", "--verify-cache",  "--no-memo",  "--memo-mb",
                                           "--rank-timeout"};
  return flags.count(flag) > 0;
}

std::string contentHash(const fs::path &file) {
  std::error_code error;
  if (!fs::is_regular_file(file, error))
    throw InputError(describeInputProblem(file.string(), "", "not a regular file"));
  std::ifstream in(file, std::ios::binary);
  if (!in) throw InputError(describeInputProblem(file.string(), "", "cannot be read"));
  llvm::SHA256 hash;
  std::vector<char> buffer(1 << 20);
  while (in) {
    in.read(buffer.data(), std::streamsize(buffer.size()));
    hash.update(llvm::StringRef(buffer.data(), size_t(in.gcount())));
  }
  const std::array<uint8_t, 32> digest = hash.final();
  return "sha256:" + llvm::toHex(digest, /*LowerCase=*/true);
}

std::map<std::string, fs::path> outputFilesBelow(const fs::path &output) {
  return filesBelow(output, {}, EventFiles::Listed);
}

bool isTensorBoardEvents(const std::string &name) {
  return fs::path(name).filename().string().rfind("events.out.tfevents", 0) == 0;
}

std::string textHash(std::string_view text) {
  const std::array<uint8_t, 32> digest = llvm::SHA256::hash(llvm::arrayRefFromStringRef(text));
  return "sha256:" + llvm::toHex(digest, /*LowerCase=*/true);
}

fs::path manifestPath(const fs::path &output) {
  if (fs::is_directory(output)) return output / kManifestFile;
  return output.string() + "." + kManifestFile;
}

json describeRun(const RunDescription &run) {
  const fs::path output = run.flags.at(run.outputFlag).at(0);
  json flags = json::object();
  for (const auto &[flag, values] : run.flags) flags[flag] = values;
  return json{{"format", "mlgo-run-manifest"},
              {"version", 1},
              {"command", run.command},
              {"mlgo_version", MLGO_VERSION},
              {"llvm_version", LLVM_VERSION_STRING},
              {"flags", flags},
              {"output_flag", run.outputFlag},
              {"inputs", describeInputs(run, output)},
              {"outputs", describeOutputs(output, run.outputFlag)},
              {"machine", describeMachine()}};
}

void writeRunManifest(const RunDescription &run) {
  const json manifest = describeRun(run);
  writeFileAtomically(manifestPath(run.flags.at(run.outputFlag).at(0)), manifest.dump(2) + "\n");
}

}  // namespace mlgo
