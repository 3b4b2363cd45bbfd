// See run_comparison.h.
#include "mlgo/support/run_comparison.h"

#include <algorithm>
#include <fstream>
#include <set>

#include "mlgo/support/errors.h"
#include "mlgo/support/run_manifest.h"
#include "mlgo/support/text_input.h"

namespace fs = std::filesystem;
using nlohmann::json;

namespace mlgo {

namespace {

/// What describes how a run went rather than what it computed: time
/// ("seconds", "collect_seconds", "seconds_saved", "decisions_per_second")
/// and the compile memo's statistics, which depend on what was cached.
bool isBookkeeping(const std::string &key) { return key.find("second") != std::string::npos || key == "memo"; }

/// The name an array element goes by, if it is an object that has one
/// ("module", "name"): a difference then names the module, not an index.
std::string elementName(const json &element, size_t index) {
  if (element.is_object())
    for (const char *key : {"module", "name"})
      if (element.contains(key) && element[key].is_string()) return element[key].get<std::string>();
  return std::to_string(index);
}

// --- Reading a run: its manifest, checked entry by entry, and its outputs as they are now.

/// One of the two runs compared.
struct Run {
  fs::path output;  ///< as given: a directory, or an output file
  bool isDirectory = false;
  fs::path manifestFile;
  json manifest;
  std::map<std::string, fs::path> files;  ///< output name -> the file now holding it
  const char *ordinal;                    ///< "first" or "second", for messages
};

/// `path`'s status; InputError naming it when it cannot be looked at (a loop
/// of symbolic links, no permission). A path that does not exist is not an
/// error here.
fs::file_status statusOf(const fs::path &path) {
  std::error_code error;
  const fs::file_status status = fs::status(path, error);
  if (error && status.type() != fs::file_type::not_found)
    throw InputError(describeInputProblem(path.string(), "", "cannot be read: " + error.message()));
  return status;
}

/// The manifest entries compare-runs reads, checked before it reads them.
class ManifestChecker {
 public:
  explicit ManifestChecker(const fs::path &file) : file_(file.string()) {}

  void check(const json &manifest) const {
    if (!manifest.is_object() || !manifest.contains("format") || manifest["format"] != "mlgo-run-manifest")
      throw InputError(describeInputProblem(file_, "", "not an mlgo run manifest"));
    for (const char *key : {"command", "flags", "inputs", "outputs"}) require(manifest.contains(key), key, "missing");
    require(manifest["command"].is_string(), "command", "expected a string");
    for (const char *key : {"mlgo_version", "llvm_version", "output_flag"})
      require(!manifest.contains(key) || manifest[key].is_string(), key, "expected a string");
    checkFlags(manifest["flags"]);
    checkInputs(manifest["inputs"]);
    checkOutputs(manifest["outputs"]);
  }

 private:
  void require(bool holds, const std::string &entry, const std::string &what) const {
    if (!holds) throw InputError(describeInputProblem(file_, entry, what));
  }

  /// A list (`isList`) or an object of strings, each element named when it is not one.
  void requireStrings(const json &values, const std::string &entry, bool isList) const {
    require(isList ? values.is_array() : values.is_object(), entry,
            isList ? "expected a list of strings" : "expected an object of strings");
    size_t index = 0;
    for (auto it = values.begin(); it != values.end(); ++it, ++index)
      require(it->is_string(), entry + (isList ? "[" + std::to_string(index) + "]" : "." + it.key()),
              "expected a string");
  }

  void checkFlags(const json &flags) const {
    require(flags.is_object(), "flags", "expected an object");
    for (const auto &[flag, values] : flags.items()) requireStrings(values, "flags." + flag, true);
  }

  void checkInputs(const json &inputs) const {
    require(inputs.is_object(), "inputs", "expected an object");
    for (const auto &[flag, input] : inputs.items()) {
      const std::string entry = "inputs." + flag;
      require(input.is_object(), entry, "expected an object");
      require(!input.contains("path") || input["path"].is_string(), entry + ".path", "expected a string");
      require(input.contains("sha256") != input.contains("files"), entry, "expected either sha256 or files");
      if (input.contains("sha256")) require(input["sha256"].is_string(), entry + ".sha256", "expected a string");
      if (input.contains("files")) requireStrings(input["files"], entry + ".files", false);
    }
  }

  /// Output names are paths below the run's output: one that climbs out of
  /// it ("../secret.json") or is absolute would make compare-runs read, and
  /// print values of, a file that is no part of the run.
  void checkOutputs(const json &outputs) const {
    requireStrings(outputs, "outputs", false);
    for (const auto &[name, hash] : outputs.items()) {
      const fs::path path(name);
      const bool climbs = std::any_of(path.begin(), path.end(), [](const fs::path &part) { return part == ".."; });
      require(!name.empty() && !path.has_root_path() && !climbs, "outputs." + name,
              "not a path inside the run's output");
    }
  }

  std::string file_;
};

/// Every output file of a directory run as it is now (what the manifest's
/// writer would hash), each checked to lie inside the directory: a link out
/// of it is not the run's file.
std::map<std::string, fs::path> outputFilesNow(const fs::path &directory) {
  const fs::path root = fs::canonical(directory);
  std::map<std::string, fs::path> files = outputFilesBelow(directory);
  for (const auto &[name, path] : files) {
    const fs::path target = fs::weakly_canonical(path);
    const fs::path inside = target.lexically_relative(root);
    if (inside.empty() || *inside.begin() == "..")
      throw InputError(describeInputProblem(path.string(), "",
                                            "a link to " + target.string() + ", outside the run's output " +
                                                directory.string() + ": compare-runs reads only the runs' own files"));
  }
  return files;
}

Run loadRun(const fs::path &output, const char *ordinal) {
  Run run{output, fs::is_directory(statusOf(output)), manifestPath(output), json(), {}, ordinal};
  if (!fs::is_regular_file(statusOf(run.manifestFile)))
    throw InputError(describeInputProblem(run.manifestFile.string(), "",
                                          "no run manifest (was this written by mlgo 0.1 or later?)"));
  run.manifest = readJsonFile(run.manifestFile);
  ManifestChecker(run.manifestFile).check(run.manifest);
  if (run.isDirectory)
    run.files = outputFilesNow(output);
  else if (fs::is_regular_file(statusOf(output)))
    run.files[run.manifest.value("output_flag", "")] = output;
  return run;
}

// --- Comparing flags and inputs, as recorded.

std::string valuesText(const json &values) {
  if (values.is_null()) return "(not given)";
  std::string text;
  for (const json &value : values) text += (text.empty() ? "" : " ") + value.get<std::string>();
  return text;
}

/// --set values differ: name the keys whose value differs.
std::string settingsDifference(const json &a, const json &b) {
  auto settings = [](const json &values) {
    std::map<std::string, std::string> result;
    if (values.is_array())
      for (const json &value : values) {
        const std::string text = value.get<std::string>();
        const size_t equals = text.find('=');
        result[text.substr(0, equals)] = equals == std::string::npos ? "" : text.substr(equals + 1);
      }
    return result;
  };
  const auto left = settings(a), right = settings(b);
  std::set<std::string> keys;
  for (const auto &[key, value] : left) keys.insert(key);
  for (const auto &[key, value] : right) keys.insert(key);
  for (const std::string &key : keys) {
    const auto l = left.find(key), r = right.find(key);
    const std::string lv = l == left.end() ? "(default)" : l->second;
    const std::string rv = r == right.end() ? "(default)" : r->second;
    if (lv != rv) return "config key " + key + ": " + lv + " vs " + rv + " (--set)";
  }
  return "";
}

void compareFlags(const json &a, const json &b, std::vector<RunDifference> &differences) {
  std::set<std::string> flags;
  for (const auto &[flag, values] : a.items()) flags.insert(flag);
  for (const auto &[flag, values] : b.items()) flags.insert(flag);
  for (const std::string &flag : flags) {
    if (flagLeavesResultAlone(flag)) continue;
    const json left = a.value(flag, json()), right = b.value(flag, json());
    if (left == right) continue;
    if (flag == "--set")
      differences.push_back({"flag", settingsDifference(left, right)});
    else
      differences.push_back({"flag", "flag " + flag + ": " + valuesText(left) + " vs " + valuesText(right)});
  }
}

/// Flags that name the output or an input hold paths, which differ between
/// machines: inputs and outputs are compared by content instead.
void dropPaths(json &flags, const json &manifest) {
  flags.erase(manifest.value("output_flag", ""));
  for (const auto &[flag, input] : manifest["inputs"].items()) flags.erase(flag);
}

void compareInputs(const json &a, const json &b, std::vector<RunDifference> &differences) {
  std::set<std::string> flags;
  for (const auto &[flag, input] : a.items()) flags.insert(flag);
  for (const auto &[flag, input] : b.items()) flags.insert(flag);
  for (const std::string &flag : flags) {
    if (!a.contains(flag) || !b.contains(flag)) {
      differences.push_back({"input", "input " + flag + " given to only one run"});
      continue;
    }
    const json &left = a[flag], &right = b[flag];
    if (left.contains("sha256") || right.contains("sha256")) {
      if (left.value("sha256", "") == right.value("sha256", "")) continue;
      std::string where;
      if (left.contains("json") && right.contains("json")) where = firstJsonDifference(left["json"], right["json"]);
      differences.push_back({"input", "input " + flag + " (" + fs::path(right.value("path", "")).filename().string() +
                                          ") differs" + (where.empty() ? "" : " at " + where)});
      continue;
    }
    const json &leftFiles = left["files"], &rightFiles = right["files"];
    std::set<std::string> names;
    for (const auto &[name, hash] : leftFiles.items()) names.insert(name);
    for (const auto &[name, hash] : rightFiles.items()) names.insert(name);
    for (const std::string &name : names) {
      // Manifests written before event files were left out of inputs list them.
      if (isTensorBoardEvents(name) || leftFiles.value(name, "") == rightFiles.value(name, "")) continue;
      const char *how = !leftFiles.contains(name) ? " only in the second run's"
                        : !rightFiles.contains(name) ? " only in the first run's"
                                                     : " differs in";
      differences.push_back({"input", "file " + name + how + " input " + flag});
      break;  // the first file is what a person needs; a rebuilt corpus would list every module
    }
  }
}

// --- Comparing outputs, as they are now.

/// The first line of two JSON-lines files whose values differ, named by its
/// "iteration" where it has one.
std::string firstJsonLinesDifference(const fs::path &a, const fs::path &b, const PathCorrespondence &paths) {
  std::ifstream left(a), right(b);
  std::string leftLine, rightLine;
  for (size_t line = 1;; ++line) {
    const bool hasLeft = bool(std::getline(left, leftLine)), hasRight = bool(std::getline(right, rightLine));
    if (!hasLeft && !hasRight) return "";
    if (hasLeft != hasRight) return "line " + std::to_string(line) + " is in only one run (one run stopped earlier)";
    const json l = json::parse(leftLine, nullptr, false), r = json::parse(rightLine, nullptr, false);
    const std::string where = l.is_discarded() || r.is_discarded() ? (leftLine == rightLine ? "" : "/")
                                                                    : firstJsonDifference(l, r, paths);
    if (where.empty()) continue;
    const std::string at = l.is_object() && l.contains("iteration")
                               ? "iteration " + shortJsonText(l["iteration"]) + " (line " + std::to_string(line) + ")"
                               : "line " + std::to_string(line);
    return at + ", " + where;
  }
}

/// Where two differing output files differ, or "" when they differ only in
/// what measures time.
std::string outputDifference(const fs::path &a, const fs::path &b, const PathCorrespondence &paths) {
  if (a.extension() == ".jsonl") return firstJsonLinesDifference(a, b, paths);
  if (a.extension() == ".json") {
    std::ifstream left(a), right(b);
    const json l = json::parse(left, nullptr, false), r = json::parse(right, nullptr, false);
    if (!l.is_discarded() && !r.is_discarded()) return firstJsonDifference(l, r, paths);
  }
  return "differs (content hash)";
}

/// Whether two strings name the same place in their runs: equal, or equal
/// after a corresponding prefix.
bool samePlace(const std::string &a, const std::string &b, const PathCorrespondence &paths) {
  if (a == b) return true;
  for (const auto &[first, second] : paths)
    if (a.rfind(first, 0) == 0 && b.rfind(second, 0) == 0 && a.substr(first.size()) == b.substr(second.size()))
      return true;
  return false;
}

/// Each run's output and input paths, as given and absolute, paired.
PathCorrespondence correspondingPaths(const Run &first, const Run &second) {
  const json &a = first.manifest, &b = second.manifest;
  PathCorrespondence paths{{first.output.string(), second.output.string()},
                           {fs::absolute(first.output).string(), fs::absolute(second.output).string()}};
  for (const auto &[flag, input] : a["inputs"].items())
    if (b["inputs"].contains(flag)) {
      paths.emplace_back(input.value("path", ""), b["inputs"][flag].value("path", ""));
      const json &given = a["flags"].value(flag, json()), &other = b["flags"].value(flag, json());
      if (given.size() == 1 && other.size() == 1) paths.emplace_back(given[0], other[0]);
    }
  // Longest first, so that a nested path matches before its parent.
  std::sort(paths.begin(), paths.end(), [](const auto &x, const auto &y) { return x.first.size() > y.first.size(); });
  paths.erase(std::remove_if(paths.begin(), paths.end(), [](const auto &p) { return p.first.empty(); }), paths.end());
  return paths;
}

/// The hash of each output a run holds now (event files aside: they are
/// never compared).
std::map<std::string, std::string> hashesNow(const Run &run) {
  std::map<std::string, std::string> hashes;
  for (const auto &[name, path] : run.files)
    if (!isTensorBoardEvents(name)) hashes[name] = contentHash(path);
  return hashes;
}

/// What changed in a run's output since its manifest was written: the
/// manifest's hashes say what the run wrote, the files what is there now,
/// and a policy edited or deleted afterwards is no longer that run's result.
void compareWithManifest(const Run &run, const std::map<std::string, std::string> &now,
                         std::vector<RunDifference> &differences) {
  const json &recorded = run.manifest["outputs"];
  std::set<std::string> names;
  for (const auto &[name, hash] : recorded.items())
    if (!isTensorBoardEvents(name)) names.insert(name);
  for (const auto &[name, hash] : now) names.insert(name);
  const std::string of = " of the " + std::string(run.ordinal) + " run";
  for (const std::string &name : names) {
    const auto current = now.find(name);
    if (current == now.end())
      differences.push_back({"output", "output " + name + of + " is missing (its manifest lists it)"});
    else if (!recorded.contains(name))
      differences.push_back({"output", "output " + name + of + " is not in its manifest (written after it)"});
    else if (recorded[name] != current->second)
      differences.push_back({"output", "output " + name + of + " changed since its manifest was written"});
  }
}

void compareOutputs(const Run &first, const Run &second, std::vector<RunDifference> &differences) {
  const auto a = hashesNow(first), b = hashesNow(second);
  compareWithManifest(first, a, differences);
  compareWithManifest(second, b, differences);
  const PathCorrespondence paths = correspondingPaths(first, second);
  std::set<std::string> names;
  for (const auto &[name, hash] : a) names.insert(name);
  for (const auto &[name, hash] : b) names.insert(name);
  // Progress files first: the first iteration that differs is the most
  // telling difference of a training run.
  std::vector<RunDifference> progress, rest;
  for (const std::string &name : names) {
    if (!a.count(name) || !b.count(name)) {
      rest.push_back({"output", "output " + name + " only in the " + (a.count(name) ? "first" : "second") + " run"});
      continue;
    }
    if (a.at(name) == b.at(name)) continue;
    const std::string where = outputDifference(first.files.at(name), second.files.at(name), paths);
    if (where.empty()) continue;
    (fs::path(name).extension() == ".jsonl" ? progress : rest).push_back({"output", "output " + name + ": " + where});
  }
  differences.insert(differences.end(), progress.begin(), progress.end());
  differences.insert(differences.end(), rest.begin(), rest.end());
}

// --- Comparing two JSON values, level by level without recursion.

/// How two values compare before looking inside them.
struct Shallow {
  enum { Equal, Differs, LookInside } outcome;
  std::string what;  ///< Differs: how, as the end of a path
};

Shallow compareShallow(const json &a, const json &b, const PathCorrespondence &paths) {
  if (a.is_string() && b.is_string() && samePlace(a.get<std::string>(), b.get<std::string>(), paths))
    return {Shallow::Equal, ""};
  if (a.type() != b.type()) {
    if (a.is_number() && b.is_number() && a.get<double>() == b.get<double>()) return {Shallow::Equal, ""};
    return {Shallow::Differs, "/ (" + shortJsonText(a) + " vs " + shortJsonText(b) + ")"};
  }
  if (a.is_array() && a.size() != b.size())
    return {Shallow::Differs, "/ (" + std::to_string(a.size()) + " vs " + std::to_string(b.size()) + " elements)"};
  if (a.is_structured()) return {Shallow::LookInside, ""};
  if (a == b) return {Shallow::Equal, ""};
  return {Shallow::Differs, " (" + shortJsonText(a) + " vs " + shortJsonText(b) + ")"};
}

/// An array or object of both values being looked inside: its children's
/// keys (objects, time keys left out), and the next child to compare.
struct Level {
  const json *a, *b;
  std::string name;  ///< how the path names it ("" for the top)
  std::vector<std::string> keys;
  size_t next = 0;
};

Level levelOf(const json &a, const json &b, std::string name) {
  Level level{&a, &b, std::move(name), {}, 0};
  if (a.is_object()) {
    std::set<std::string> keys;
    for (const auto &[key, value] : a.items()) keys.insert(key);
    for (const auto &[key, value] : b.items()) keys.insert(key);
    for (const std::string &key : keys)
      if (!isBookkeeping(key)) level.keys.push_back(key);
  }
  return level;
}

/// The path of the levels looked inside, "/a/b/c"; the middle of a path
/// deeper than a person reads is cut ("/a/b/... 199,980 levels .../y/z").
std::string pathOf(const std::vector<Level> &levels) {
  constexpr size_t kHead = 16, kTail = 8;
  std::string path;
  for (size_t i = 1; i < levels.size(); ++i) {
    if (levels.size() > kHead + kTail + 1 && i == kHead + 1) {
      const size_t cut = levels.size() - 1 - kHead - kTail;
      path += "/... " + std::to_string(cut) + " levels ...";
      i += cut - 1;
      continue;
    }
    path += "/" + levels[i].name;
  }
  return path;
}

}  // namespace

bool RunComparison::sameRun() const {
  for (const RunDifference &difference : differences)
    if (difference.kind != "output") return false;
  return true;
}

// Iterative: outputs may nest arrays 200,000 deep, and a recursion per level
// would exhaust the stack.
std::string firstJsonDifference(const json &a, const json &b, const PathCorrespondence &paths) {
  const Shallow top = compareShallow(a, b, paths);
  if (top.outcome != Shallow::LookInside) return top.what;
  std::vector<Level> levels{levelOf(a, b, "")};
  while (!levels.empty()) {
    Level &level = levels.back();
    const bool isObject = level.a->is_object();
    if (level.next == (isObject ? level.keys.size() : level.a->size())) {
      levels.pop_back();
      continue;
    }
    const size_t index = level.next++;
    const std::string name = isObject ? level.keys[index] : elementName((*level.a)[index], index);
    if (isObject && (!level.a->contains(name) || !level.b->contains(name)))
      return pathOf(levels) + "/" + name + " (in only one run)";
    const json &childA = isObject ? (*level.a)[name] : (*level.a)[index];
    const json &childB = isObject ? (*level.b)[name] : (*level.b)[index];
    const Shallow child = compareShallow(childA, childB, paths);
    if (child.outcome == Shallow::Differs) return pathOf(levels) + "/" + name + child.what;
    if (child.outcome == Shallow::LookInside) levels.push_back(levelOf(childA, childB, name));
  }
  return "";
}

RunComparison compareRuns(const fs::path &a, const fs::path &b) {
  const Run first = loadRun(a, "first"), second = loadRun(b, "second");
  const json &left = first.manifest, &right = second.manifest;
  RunComparison comparison;
  auto &differences = comparison.differences;
  if (left["command"] != right["command"])
    differences.push_back({"command", "command " + left["command"].get<std::string>() + " vs " +
                                          right["command"].get<std::string>()});
  for (const char *key : {"mlgo_version", "llvm_version"})
    if (left.value(key, "") != right.value(key, ""))
      differences.push_back({"version", std::string(key) + " " + left.value(key, "") + " vs " + right.value(key, "")});
  json leftFlags = left["flags"], rightFlags = right["flags"];
  dropPaths(leftFlags, left);
  dropPaths(rightFlags, right);
  compareFlags(leftFlags, rightFlags, differences);
  compareInputs(left["inputs"], right["inputs"], differences);
  compareOutputs(first, second, differences);
  return comparison;
}

}  // namespace mlgo
