// See run_comparison.h.
#include "mlgo/support/run_comparison.h"

#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>

#include "mlgo/support/errors.h"
#include "mlgo/support/run_manifest.h"

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

std::string shortValue(const json &value) {
  std::string text = value.dump();
  return text.size() > 60 ? text.substr(0, 57) + "..." : text;
}

json loadManifest(const fs::path &output) {
  const fs::path path = manifestPath(output);
  std::error_code error;
  if (!fs::is_regular_file(path, error))
    throw InputError(
        describeInputProblem(path.string(), "", "no run manifest (was this written by mlgo 0.1 or later?)"));
  std::ifstream in(path);
  json manifest = json::parse(in, nullptr, false);
  if (manifest.is_discarded() || !manifest.is_object() || manifest.value("format", "") != "mlgo-run-manifest")
    throw InputError(describeInputProblem(path.string(), "", "not an mlgo run manifest"));
  for (const char *key : {"command", "flags", "inputs", "outputs"})
    if (!manifest.contains(key)) throw InputError(describeInputProblem(path.string(), key, "missing"));
  return manifest;
}

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
      if (leftFiles.value(name, "") == rightFiles.value(name, "")) continue;
      const char *how = !leftFiles.contains(name) ? " only in the second run's"
                        : !rightFiles.contains(name) ? " only in the first run's"
                                                     : " differs in";
      differences.push_back({"input", "file " + name + how + " input " + flag});
      break;  // the first file is what a person needs; a rebuilt corpus would list every module
    }
  }
}

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
                               ? "iteration " + l["iteration"].dump() + " (line " + std::to_string(line) + ")"
                               : "line " + std::to_string(line);
    return at + ", " + where;
  }
}

/// Where two differing outputs differ, or "" when they differ only in what
/// measures time.
std::string outputDifference(const fs::path &a, const fs::path &b, const PathCorrespondence &paths) {
  std::error_code error;
  if (!fs::is_regular_file(a, error) || !fs::is_regular_file(b, error)) return "differs (content hash)";
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
PathCorrespondence correspondingPaths(const fs::path &aRoot, const json &a, const fs::path &bRoot, const json &b) {
  PathCorrespondence paths{{aRoot.string(), bRoot.string()},
                           {fs::absolute(aRoot).string(), fs::absolute(bRoot).string()}};
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

bool isTensorBoardEvents(const std::string &name) {
  return fs::path(name).filename().string().rfind("events.out.tfevents", 0) == 0;
}

fs::path outputFile(const fs::path &output, const std::string &name) {
  return fs::is_directory(output) ? output / name : output;
}

void compareOutputs(const fs::path &aRoot, const json &a, const fs::path &bRoot, const json &b,
                    const PathCorrespondence &paths, std::vector<RunDifference> &differences) {
  std::set<std::string> names;
  for (const auto &[name, hash] : a.items()) names.insert(name);
  for (const auto &[name, hash] : b.items()) names.insert(name);
  // Progress files first: the first iteration that differs is the most
  // telling difference of a training run.
  std::vector<RunDifference> progress, rest;
  for (const std::string &name : names) {
    if (isTensorBoardEvents(name) || a.value(name, "") == b.value(name, "")) continue;
    if (!a.contains(name) || !b.contains(name)) {
      rest.push_back({"output", "output " + name + " only in the " + (a.contains(name) ? "first" : "second") + " run"});
      continue;
    }
    const std::string where = outputDifference(outputFile(aRoot, name), outputFile(bRoot, name), paths);
    if (where.empty()) continue;
    (fs::path(name).extension() == ".jsonl" ? progress : rest).push_back({"output", "output " + name + ": " + where});
  }
  differences.insert(differences.end(), progress.begin(), progress.end());
  differences.insert(differences.end(), rest.begin(), rest.end());
}

}  // namespace

bool RunComparison::sameRun() const {
  for (const RunDifference &difference : differences)
    if (difference.kind != "output") return false;
  return true;
}

std::string firstJsonDifference(const json &a, const json &b, const PathCorrespondence &paths) {
  if (a.is_string() && b.is_string() && samePlace(a.get<std::string>(), b.get<std::string>(), paths)) return "";
  if (a.type() != b.type()) {
    if (a.is_number() && b.is_number() && a.get<double>() == b.get<double>()) return "";
    return "/ (" + shortValue(a) + " vs " + shortValue(b) + ")";
  }
  if (a.is_object()) {
    std::set<std::string> keys;
    for (const auto &[key, value] : a.items()) keys.insert(key);
    for (const auto &[key, value] : b.items()) keys.insert(key);
    for (const std::string &key : keys) {
      if (isBookkeeping(key)) continue;
      if (!a.contains(key) || !b.contains(key)) return "/" + key + " (in only one run)";
      const std::string inner = firstJsonDifference(a[key], b[key], paths);
      if (!inner.empty()) return "/" + key + inner;
    }
    return "";
  }
  if (a.is_array()) {
    if (a.size() != b.size())
      return "/ (" + std::to_string(a.size()) + " vs " + std::to_string(b.size()) + " elements)";
    for (size_t i = 0; i < a.size(); ++i) {
      const std::string inner = firstJsonDifference(a[i], b[i], paths);
      if (!inner.empty()) return "/" + elementName(a[i], i) + inner;
    }
    return "";
  }
  return a == b ? "" : " (" + shortValue(a) + " vs " + shortValue(b) + ")";
}

RunComparison compareRuns(const fs::path &a, const fs::path &b) {
  json left = loadManifest(a), right = loadManifest(b);
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
  compareOutputs(a, left["outputs"], b, right["outputs"], correspondingPaths(a, left, b, right), differences);
  return comparison;
}

}  // namespace mlgo
