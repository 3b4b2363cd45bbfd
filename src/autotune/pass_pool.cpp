#include "mlgo/autotune/pass_pool.h"

#include <llvm/Bitcode/BitcodeReader.h>
#include <llvm/Bitcode/BitcodeWriter.h>
#include <llvm/Config/llvm-config.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/raw_ostream.h>

#include <algorithm>
#include <functional>
#include <sstream>
#include <tuple>

#include <nlohmann/json.hpp>

#include "mlgo/driver/compile_memo.h"
#include "mlgo/driver/compiler_driver.h"
#include "mlgo/support/atomic_file.h"
#include "mlgo/support/errors.h"
#include "mlgo/support/parallel_for.h"
#include "mlgo/support/portable_math.h"
#include "mlgo/support/text_input.h"

namespace mlgo::autotune {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

constexpr const char *kFormat = "mlgo-pass-pool-entry";
constexpr int kVersion = 1;

json sizesToJson(const SectionSizes &sizes, uint64_t irInstructions) {
  return {{"text", sizes.text},         {"data", sizes.data}, {"rodata", sizes.rodata},
          {"bss", sizes.bss},           {"text+data", sizes.textPlusData()},
          {"ir_instructions", irInstructions}};
}

json entryToJson(const PoolEntry &entry) {
  json lists = json::array();
  for (const HarvestedList &list : entry.lists)
    lists.push_back({{"passes", list.passes},
                     {"pipeline", list.pipeline},
                     {"sizes", sizesToJson(list.sizes, list.irInstructions)},
                     {"gate", list.gate}});
  json out{{"format", kFormat},
           {"version", kVersion},
           {"module_hash", entry.key.module},
           {"space", entry.key.space},
           {"llvm", entry.key.llvm},
           {"module", entry.module},
           {"language", entry.cxx ? "C++" : "C"},
           {"budget", entry.budget},
           {"seed", entry.seed},
           {"strategy", entry.strategy},
           {"compilations", entry.compilations}};
  if (!entry.failure.empty()) {
    out["failure"] = entry.failure;
  } else {
    out["oz"] = sizesToJson(entry.oz, entry.ozIrInstructions);
    out["lists"] = lists;
  }
  return out;
}

/// Reads one line's entry; what is wrong is thrown as InputError naming the
/// file, the line and the field.
class EntryReader {
 public:
  EntryReader(const json &value, std::string file, std::string where)
      : value_(value), file_(std::move(file)), where_(std::move(where)) {}

  PoolEntry read(const SearchSpace &space, const std::string &spaceHash) {
    if (!value_.is_object()) fail("", "not a JSON object");
    if (value_.value("format", "") != kFormat) fail("format", std::string("not \"") + kFormat + "\"");
    if (!value_.contains("version") || value_["version"] != kVersion)
      fail("version", "unsupported (this mlgo reads version " + std::to_string(kVersion) + ")");
    PoolEntry entry;
    entry.key = {hexText(value_, "module_hash"), hexText(value_, "space"), text(value_, "llvm")};
    entry.module = text(value_, "module");
    const std::string language = text(value_, "language");
    if (language != "C" && language != "C++") fail("language", "neither C nor C++");
    entry.cxx = language == "C++";
    entry.budget = number(value_, "budget");
    entry.seed = number(value_, "seed");
    entry.strategy = text(value_, "strategy");
    entry.compilations = number(value_, "compilations");
    if (value_.contains("failure")) {
      entry.failure = text(value_, "failure");
      return entry;
    }
    std::tie(entry.oz, entry.ozIrInstructions) = sizes(field(value_, "oz"), "oz");
    const json &lists = field(value_, "lists");
    if (!lists.is_array()) fail("lists", "not an array");
    for (size_t i = 0; i < lists.size(); ++i)
      entry.lists.push_back(readList(lists[i], "lists[" + std::to_string(i) + "]",
                                     entry.key.space == spaceHash ? &space : nullptr));
    return entry;
  }

 private:
  HarvestedList readList(const json &value, const std::string &name, const SearchSpace *space) {
    if (!value.is_object()) fail(name, "not an object");
    HarvestedList list;
    const json &passes = field(value, "passes", name);
    if (!passes.is_array() || !std::all_of(passes.begin(), passes.end(), [](const json &p) { return p.is_string(); }))
      fail(name + ".passes", "not a list of pass names");
    list.passes = passes.get<std::vector<std::string>>();
    list.pipeline = text(value, "pipeline", name);
    // A list of this search space is one mlgo may run: its elements must be
    // the space's, and its text the rendering of them (untrusted data).
    if (space) list.pipeline = space->checkedPipeline(list.passes, list.pipeline, file_, where_ + "." + name);
    std::tie(list.sizes, list.irInstructions) = sizes(field(value, "sizes", name), name + ".sizes");
    list.gate = text(value, "gate", name);
    return list;
  }

  std::pair<SectionSizes, uint64_t> sizes(const json &value, const std::string &name) {
    if (!value.is_object()) fail(name, "not an object");
    SectionSizes out;
    out.text = number(value, "text", name);
    out.data = number(value, "data", name);
    out.rodata = number(value, "rodata", name);
    out.bss = number(value, "bss", name);
    return {out, number(value, "ir_instructions", name)};
  }

  const json &field(const json &value, const std::string &key, const std::string &parent = "") {
    if (!value.contains(key)) fail(qualified(parent, key), "missing");
    return value[key];
  }
  std::string text(const json &value, const std::string &key, const std::string &parent = "") {
    const json &found = field(value, key, parent);
    if (!found.is_string()) fail(qualified(parent, key), "not a string");
    return found.get<std::string>();
  }
  std::string hexText(const json &value, const std::string &key) {
    std::string out = text(value, key);
    if (out.empty() || !std::all_of(out.begin(), out.end(), [](char c) { return std::isxdigit((unsigned char)c); }))
      fail(key, "not a hexadecimal hash");
    return out;
  }
  uint64_t number(const json &value, const std::string &key, const std::string &parent = "") {
    const json &found = field(value, key, parent);
    if (!found.is_number_unsigned()) fail(qualified(parent, key), "not a whole number");
    return found.get<uint64_t>();
  }
  static std::string qualified(const std::string &parent, const std::string &key) {
    return parent.empty() ? key : parent + "." + key;
  }
  [[noreturn]] void fail(const std::string &fieldName, const std::string &problem) {
    throw InputError(describeInputProblem(file_, fieldName.empty() ? where_ : where_ + " " + fieldName, problem));
  }

  const json &value_;
  std::string file_, where_;
};

}  // namespace

bool PoolKey::operator<(const PoolKey &other) const {
  return std::tie(module, space, llvm) < std::tie(other.module, other.space, other.llvm);
}

std::string modulePoolHash(const CorpusModule &module) {
  if (!module.loadError.empty()) return "";
  auto buffer = llvm::MemoryBuffer::getFile(module.bitcodePath.string());
  if (!buffer) return "";
  llvm::LLVMContext context;
  auto parsed = llvm::parseBitcodeFile((*buffer)->getMemBufferRef(), context);
  if (!parsed) {
    llvm::consumeError(parsed.takeError());
    return "";
  }
  // Paths are where the build ran, not what was compiled.
  (*parsed)->setSourceFileName("");
  (*parsed)->setModuleIdentifier("");
  std::string bytes;
  llvm::raw_string_ostream stream(bytes);
  llvm::WriteBitcodeToFile(**parsed, stream);
  stream.flush();
  if (!module.thinltoIndexPath.empty()) {
    auto index = llvm::MemoryBuffer::getFile(module.thinltoIndexPath.string());
    if (!index) return "";
    bytes += (*index)->getBuffer().str();
  }
  return CompileMemo::hash(bytes);
}

std::string searchSpaceHash(const SearchSpace &space) {
  // What runs before every list is part of what a list's sizes mean.
  std::string elements = std::string("prologue ") + kPassListPrologue + "\n";
  for (const PassElement &pass : space.passes()) elements += pass.pipelineText() + "\n";
  return CompileMemo::hash(elements);
}

PoolKey poolKeyOf(const CorpusModule &module, const SearchSpace &space) {
  return {modulePoolHash(module), searchSpaceHash(space), LLVM_VERSION_STRING};
}

std::string poolFileOf(const Corpus &corpus, const CorpusModule &module) {
  const size_t slash = module.name.find('/');
  std::string name = slash != std::string::npos && slash > 0 ? module.name.substr(0, slash)
                                                              : fs::absolute(corpus.directory).filename().string();
  if (name.empty() || name == "." || name == "..") name = "modules";
  for (char &c : name)
    if (!std::isalnum((unsigned char)c) && c != '.' && c != '_' && c != '+' && c != '-') c = '_';
  return name;
}

PassPool PassPool::load(const fs::path &directory, const SearchSpace &space) {
  PassPool pool;
  pool.directory_ = directory;
  if (!fs::exists(directory)) return pool;
  if (!fs::is_directory(directory)) throw InputError(describeInputProblem(directory.string(), "", "not a directory"));
  std::vector<fs::path> files;
  for (const auto &item : fs::directory_iterator(directory))
    if (item.path().extension() == ".jsonl") files.push_back(item.path());
  std::sort(files.begin(), files.end());
  const std::string spaceHash = searchSpaceHash(space);
  for (const fs::path &file : files) {
    std::istringstream lines(readFile(file));
    const std::string name = file.stem().string();
    std::string line;
    for (size_t number = 1; std::getline(lines, line); ++number) {
      if (line.empty()) continue;
      const std::string where = "line " + std::to_string(number);
      const json value = parseJsonLine(line, file.string(), number);
      PoolEntry entry = EntryReader(value, file.string(), where).read(space, spaceHash);
      if (pool.index_.count(entry.key))
        throw InputError(describeInputProblem(file.string(), where, "a second entry for module hash " +
                                                                        entry.key.module + " (" + entry.module + ")"));
      pool.index_[entry.key] = {name, pool.files_[name].size()};
      pool.files_[name].push_back(std::move(entry));
    }
  }
  return pool;
}

const PoolEntry *PassPool::find(const PoolKey &key, size_t budget) const {
  auto found = index_.find(key);
  if (found == index_.end()) return nullptr;
  const PoolEntry &entry = files_.at(found->second.first)[found->second.second];
  return entry.budget >= budget ? &entry : nullptr;
}

void PassPool::add(PoolEntry entry, const std::string &file) {
  auto found = index_.find(entry.key);
  if (found != index_.end()) {
    // Replaced in place: a module stays in the file it was first harvested to.
    changed_.insert(found->second.first);
    files_[found->second.first][found->second.second] = std::move(entry);
    return;
  }
  std::vector<PoolEntry> &entries = files_[file];
  index_[entry.key] = {file, entries.size()};
  entries.push_back(std::move(entry));
  changed_.insert(file);
}

void PassPool::save() {
  for (const std::string &file : changed_) {
    std::vector<const PoolEntry *> sorted;
    for (const PoolEntry &entry : files_[file]) sorted.push_back(&entry);
    std::sort(sorted.begin(), sorted.end(), [](const PoolEntry *a, const PoolEntry *b) {
      return std::tie(a->module, a->key) < std::tie(b->module, b->key);
    });
    std::string text;
    for (const PoolEntry *entry : sorted) text += entryToJson(*entry).dump() + "\n";
    writeFileAtomically(directory_ / (file + ".jsonl"), text);
  }
  changed_.clear();
}

namespace {

/// The distinct gated lists of `entries` that `usable` takes, as search-space
/// elements: those best for most modules first (ties: shorter, then the
/// pipeline text), then the runners-up the same way.
std::vector<std::vector<std::string>> rankedDistinctLists(
    const std::vector<const PoolEntry *> &entries, const std::function<bool(const HarvestedList &)> &usable) {
  struct Tally {
    size_t best = 0, runnerUp = 0;
    std::vector<std::string> passes;
  };
  std::map<std::string, Tally> tallies;  // by pipeline
  for (const PoolEntry *entry : entries) {
    for (size_t i = 0; i < entry->lists.size(); ++i) {
      const HarvestedList &list = entry->lists[i];
      if (list.gate == "unchecked" || !usable(list)) continue;
      Tally &tally = tallies[list.pipeline];
      (i == 0 ? tally.best : tally.runnerUp) += 1;
      tally.passes = list.passes;
    }
  }
  std::vector<std::pair<std::string, Tally>> ranked(tallies.begin(), tallies.end());
  std::sort(ranked.begin(), ranked.end(), [](const auto &a, const auto &b) {
    const auto &[x, y] = std::tie(a.second, b.second);
    if (x.best != y.best) return x.best > y.best;
    if (x.runnerUp != y.runnerUp) return x.runnerUp > y.runnerUp;
    if (x.passes.size() != y.passes.size()) return x.passes.size() < y.passes.size();
    return a.first < b.first;
  });
  std::vector<std::vector<std::string>> lists;
  for (const auto &[pipeline, tally] : ranked) lists.push_back(tally.passes);
  return lists;
}

}  // namespace

std::vector<std::vector<std::string>> PassPool::distinctLists(const SearchSpace &space) const {
  const std::string spaceHash = searchSpaceHash(space);
  std::vector<const PoolEntry *> current;
  for (const PoolEntry *entry : entries())
    if (entry->key.space == spaceHash && entry->key.llvm == LLVM_VERSION_STRING) current.push_back(entry);
  return rankedDistinctLists(current, [](const HarvestedList &) { return true; });
}

std::vector<std::vector<std::string>> PassPool::listsOfOtherSpaces(const SearchSpace &space) const {
  const std::string spaceHash = searchSpaceHash(space);
  std::vector<const PoolEntry *> others;
  for (const PoolEntry *entry : entries())
    if (entry->key.space != spaceHash && entry->key.llvm == LLVM_VERSION_STRING) others.push_back(entry);
  std::set<std::vector<std::string>> current;
  for (std::vector<std::string> &passes : distinctLists(space)) current.insert(std::move(passes));
  return rankedDistinctLists(others, [&](const HarvestedList &list) {
    return !current.count(list.passes) &&
           std::all_of(list.passes.begin(), list.passes.end(),
                       [&](const std::string &pass) { return space.find(pass) >= 0; });
  });
}

std::vector<const PoolEntry *> PassPool::entries() const {
  std::vector<const PoolEntry *> out;
  for (const auto &[file, entries] : files_)
    for (const PoolEntry &entry : entries) out.push_back(&entry);
  return out;
}

PoolSummary summarizePool(const PassPool &pool, const SearchSpace &space) {
  const std::string spaceHash = searchSpaceHash(space);
  PoolSummary summary;
  double logSum = 0, irLogSum = 0;
  size_t searched = 0;
  for (const PoolEntry *entry : pool.entries()) {
    if (entry->key.space != spaceHash || entry->key.llvm != LLVM_VERSION_STRING) {
      ++summary.others;
      continue;
    }
    ++summary.entries;
    if (!entry->failure.empty()) {
      ++summary.failed;
      continue;
    }
    ++searched;
    auto gated = std::find_if(entry->lists.begin(), entry->lists.end(),
                              [](const HarvestedList &list) { return list.gate != "unchecked"; });
    if (gated == entry->lists.end()) continue;
    ++summary.improved;
    // As eval and autotune count: a module without code or data is unchanged.
    const double oz = double(entry->oz.textPlusData()), best = double(gated->sizes.textPlusData());
    if (oz > 0 && best > 0) logSum += portable::log(best / oz);
    if (entry->ozIrInstructions > 0 && gated->irInstructions > 0)
      irLogSum += portable::log(double(gated->irInstructions) / double(entry->ozIrInstructions));
  }
  summary.distinctLists = pool.distinctLists(space).size();
  summary.otherSpaceLists = pool.listsOfOtherSpaces(space).size();
  summary.geomeanChange = searched ? portable::exp(logSum / double(searched)) - 1 : 0;
  summary.geomeanIrChange = searched ? portable::exp(irLogSum / double(searched)) - 1 : 0;
  return summary;
}

PoolCoverage poolCoverage(const PassPool &pool, const Corpus &corpus, const SearchSpace &space, size_t budget,
                          unsigned threads) {
  std::vector<PoolKey> keys(corpus.modules.size());
  parallelFor(keys.size(), threads, [&](size_t i) { keys[i] = poolKeyOf(corpus.modules[i], space); });
  PoolCoverage coverage;
  std::map<std::string, size_t> projectIndex;
  for (size_t i = 0; i < keys.size(); ++i) {
    const std::string file = poolFileOf(corpus, corpus.modules[i]);
    if (!projectIndex.count(file)) {
      projectIndex[file] = coverage.projects.size();
      coverage.projects.push_back({file});
    }
    PoolCoverage::Project &project = coverage.projects[projectIndex[file]];
    ++project.modules;
    ++coverage.modules;
    if (keys[i].module.empty()) ++coverage.unreadable;
    const bool covered = !keys[i].module.empty() && pool.find(keys[i], budget);
    project.covered += covered;
    coverage.covered += covered;
    if (!covered) coverage.missing.push_back(corpus.modules[i].name);
  }
  return coverage;
}

}  // namespace mlgo::autotune
