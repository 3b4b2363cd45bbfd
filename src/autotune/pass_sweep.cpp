#include "mlgo/autotune/pass_sweep.h"

#include <chrono>
#include <mutex>
#include <set>
#include <sstream>

#include <spdlog/spdlog.h>

#include "mlgo/autotune/module_features.h"
#include "mlgo/autotune/pass_pool.h"
#include "mlgo/store/build_store.h"
#include "mlgo/distributed/rank_share.h"
#include "mlgo/driver/module_journal.h"
#include "mlgo/support/atomic_file.h"
#include "mlgo/support/crc32c.h"
#include "mlgo/support/errors.h"
#include "mlgo/support/parallel_for.h"
#include "mlgo/support/text_input.h"

namespace mlgo::autotune {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

constexpr const char *kJournal = ".sweep-journal";
constexpr const char *kGateVerdicts = "gate-verdicts.json";

// An outcome on disk: [text, rodata, data, bss, IR instructions].
json outcomeToJson(const ListOutcome &outcome) {
  return json::array({outcome.sizes.text, outcome.sizes.rodata, outcome.sizes.data, outcome.sizes.bss,
                      outcome.irInstructions});
}

ListOutcome outcomeFromJson(const json &value, const std::string &file, const std::string &entry) {
  if (!value.is_array() || value.size() != 5)
    throw InputError(describeInputProblem(file, entry, "not [text, rodata, data, bss, ir_instructions]"));
  for (const json &number : value)
    if (!number.is_number_unsigned())
      throw InputError(describeInputProblem(file, entry, "holds a value that is not a whole number"));
  ListOutcome outcome;
  outcome.sizes.text = value[0].get<uint64_t>();
  outcome.sizes.rodata = value[1].get<uint64_t>();
  outcome.sizes.data = value[2].get<uint64_t>();
  outcome.sizes.bss = value[3].get<uint64_t>();
  outcome.irInstructions = value[4].get<uint64_t>();
  return outcome;
}

json verdictToJson(const GateVerdict &verdict) {
  return {{"passed", verdict.passed},
          {"cxx_link_only", verdict.cxxLinkOnly},
          {"program", verdict.program},
          {"failure", verdict.failure}};
}

GateVerdict verdictFromJson(const json &value, const std::string &file, const std::string &entry) {
  try {
    return {value.at("passed").get<bool>(), value.at("failure").get<std::string>(),
            value.at("program").get<std::string>(), value.at("cxx_link_only").get<bool>()};
  } catch (const json::exception &) {
    throw InputError(describeInputProblem(file, entry, "not a gate verdict (passed, cxx_link_only, program, failure)"));
  }
}

PoolList poolListOf(const std::vector<std::string> &passes, const SearchSpace &space, const std::string &file,
                    const std::string &entry) {
  if (passes.empty()) throw InputError(describeInputProblem(file, entry, "an empty pass list"));
  std::vector<int> indices;
  for (const std::string &element : passes) {
    const int index = space.find(element);
    if (index < 0)
      throw InputError(describeInputProblem(file, entry, "'" + element + "' is not a pass of the search space"));
    indices.push_back(index);
  }
  return {passes, space.pipeline(indices), std::nullopt};
}

std::vector<std::string> stringsOf(const json &value, const std::string &file, const std::string &entry) {
  if (!value.is_array()) throw InputError(describeInputProblem(file, entry, "not a list of pass names"));
  std::vector<std::string> strings;
  for (const json &element : value) {
    if (!element.is_string()) throw InputError(describeInputProblem(file, entry, "a pass name that is not a string"));
    strings.push_back(element.get<std::string>());
  }
  return strings;
}

std::vector<PoolList> poolFromJson(const json &document, const SearchSpace &space, const std::string &file) {
  const std::string format = document.value("format", "");
  std::vector<PoolList> lists;
  if (format == "mlgo-autotune") {
    const json &modules = document.value("modules", json::array());
    for (size_t i = 0; i < modules.size(); ++i) {
      const std::string entry = "modules[" + std::to_string(i) + "].passes";
      const json passes = modules[i].value("passes", json::array());
      if (passes.is_array() && passes.empty()) continue;  // -Oz kept, or the module failed
      lists.push_back(poolListOf(stringsOf(passes, file, entry), space, file, entry));
    }
  } else if (format == "mlgo-coreset") {
    const json &coreset = document.value("lists", json::array());
    for (size_t i = 0; i < coreset.size(); ++i) {
      const std::string entry = "lists[" + std::to_string(i) + "].passes";
      lists.push_back(poolListOf(stringsOf(coreset[i].value("passes", json()), file, entry), space, file, entry));
    }
  } else {
    throw InputError(describeInputProblem(file, "format", "neither autotune's best.json nor a coreset"));
  }
  return lists;
}

std::vector<PoolList> poolFromText(const std::string &text, const SearchSpace &space, const std::string &file) {
  std::vector<PoolList> lists;
  std::istringstream lines(text);
  std::string line;
  for (size_t number = 1; std::getline(lines, line); ++number) {
    line = line.substr(0, line.find('#'));
    std::istringstream words(line);
    std::vector<std::string> passes;
    for (std::string word; words >> word;) passes.push_back(word);
    if (!passes.empty()) lists.push_back(poolListOf(passes, space, file, "line " + std::to_string(number)));
  }
  return lists;
}

/// A harvested pool's lists (pass_pool.h), most often best first; then the
/// lists its entries of another search space found, which the sweep
/// measures and gates as any other list.
std::vector<PoolList> poolFromHarvest(const fs::path &directory, const SearchSpace &space) {
  const PassPool pool = PassPool::load(directory, space);
  std::vector<PoolList> lists;
  auto add = [&](const std::vector<std::vector<std::string>> &found) {
    for (const std::vector<std::string> &passes : found)
      lists.push_back(poolListOf(passes, space, directory.string(), "list " + std::to_string(lists.size() + 1)));
  };
  add(pool.distinctLists(space));
  const std::vector<std::vector<std::string>> others = pool.listsOfOtherSpaces(space);
  if (!others.empty())
    spdlog::info("{}: {} lists of entries harvested under another search space, tried again after its {}",
                 directory.string(), others.size(), lists.size());
  add(others);
  return lists;
}

/// A project store's gated lists (builds/build_store.h): what the project's
/// builds found, winners first.
std::vector<PoolList> poolFromStore(const fs::path &file, const SearchSpace &space) {
  const std::unique_ptr<store::BuildStore> store = store::BuildStore::openExisting(file);
  if (!(store->storedIdentity() == store::storeIdentity(autotune::searchSpaceHash(space))))
    throw InputError(describeInputProblem(file.string(), "", "a store of another LLVM or search space"));
  std::vector<PoolList> lists;
  for (const std::string &pipeline : store->gatedPipelines()) {
    const std::string entry = "list " + std::to_string(lists.size() + 1);
    std::vector<std::string> passes;
    for (int index : space.listOfPipeline(pipeline, file.string(), entry)) passes.push_back(space.passes()[index].element);
    lists.push_back(poolListOf(passes, space, file.string(), entry));
  }
  return lists;
}

/// SQLite's file header: a project store.
bool isSqliteFile(const std::string &text) { return text.rfind(std::string("SQLite format 3") + '\0', 0) == 0; }

std::vector<PoolList> listsOfFile(const fs::path &file, const SearchSpace &space) {
  if (fs::is_directory(file)) return poolFromHarvest(file, space);
  const std::string text = readFile(file);
  if (isSqliteFile(text)) return poolFromStore(file, space);
  const size_t first = text.find_first_not_of(" \t\r\n");
  return first != std::string::npos && text[first] == '{' ? poolFromJson(readJsonFile(file), space, file.string())
                                                          : poolFromText(text, space, file.string());
}

}  // namespace

std::vector<PoolList> readPassListPool(const fs::path &file, const SearchSpace &space) {
  return readPassListPools({file}, space);
}

std::vector<PoolList> readPassListPools(const std::vector<fs::path> &files, const SearchSpace &space) {
  std::vector<PoolList> distinct;
  std::set<std::string> seen;
  for (const fs::path &file : files) {
    std::vector<PoolList> lists = listsOfFile(file, space);
    if (lists.empty()) throw InputError(describeInputProblem(file.string(), "", "holds no pass list"));
    for (PoolList &list : lists)
      if (seen.insert(list.pipeline).second) distinct.push_back(std::move(list));
  }
  return distinct;
}

bool SweepTable::usable(size_t m, size_t l, bool allowUngated) const {
  if (!modules[m].lists[l]) return false;
  const std::optional<GateVerdict> &gate = lists[l].gate;
  return gate ? gate->acceptsFor(modules[m].cxx) : allowUngated;
}

json SweepTable::toJson() const {
  json poolJson = json::array();
  for (const PoolList &list : lists) {
    json entry{{"passes", list.passes}, {"pipeline", list.pipeline}};
    entry["gate"] = list.gate ? verdictToJson(*list.gate) : json();
    poolJson.push_back(entry);
  }
  json modulesJson = json::array();
  for (const SweptModule &module : modules) {
    json outcomes = json::array();
    for (const std::optional<ListOutcome> &outcome : module.lists)
      outcomes.push_back(outcome ? outcomeToJson(*outcome) : json());
    modulesJson.push_back({{"name", module.name},
                           {"cxx", module.cxx},
                           {"features", module.features},
                           {"oz", outcomeToJson(module.oz)},
                           {"lists", outcomes}});
  }
  json failed = json::array();
  for (const auto &[name, why] : failedModules) failed.push_back({{"name", name}, {"failure", why}});
  return {{"format", kFormat},
          {"version", kVersion},
          {"outcome_fields", {"text", "rodata", "data", "bss", "ir_instructions"}},
          {"lists", poolJson},
          {"feature_names", featureNames},
          {"modules", modulesJson},
          {"failed_modules", failed}};
}

SweepTable SweepTable::read(const fs::path &path) {
  const fs::path file = fs::is_directory(path) ? path / kFile : path;
  const std::string name = file.string();
  const json document = readJsonFile(file);
  requireFormat(document, name, kFormat, kVersion, "a sweep", "sweep again with this mlgo's sweep-passes");
  SweepTable table;
  table.file = name;
  try {
    for (size_t l = 0; l < document.at("lists").size(); ++l) {
      const json &list = document["lists"][l];
      const std::string entry = "lists[" + std::to_string(l) + "]";
      PoolList pool{stringsOf(list.at("passes"), name, entry + ".passes"), list.at("pipeline").get<std::string>(),
                    std::nullopt};
      if (!list.at("gate").is_null()) pool.gate = verdictFromJson(list["gate"], name, entry + ".gate");
      table.lists.push_back(std::move(pool));
    }
    table.featureNames = document.at("feature_names").get<std::vector<std::string>>();
    for (size_t m = 0; m < document.at("modules").size(); ++m) {
      const json &module = document["modules"][m];
      const std::string entry = "modules[" + std::to_string(m) + "]";
      SweptModule swept;
      swept.name = module.at("name").get<std::string>();
      swept.cxx = module.at("cxx").get<bool>();
      swept.features = module.at("features").get<std::vector<double>>();
      if (swept.features.size() != table.featureNames.size())
        throw InputError(describeInputProblem(name, entry + ".features", "not one value per feature name"));
      swept.oz = outcomeFromJson(module.at("oz"), name, entry + ".oz");
      const json &outcomes = module.at("lists");
      if (!outcomes.is_array() || outcomes.size() != table.lists.size())
        throw InputError(describeInputProblem(name, entry + ".lists", "not one outcome per list"));
      for (size_t l = 0; l < outcomes.size(); ++l) {
        const std::string where = entry + ".lists[" + std::to_string(l) + "]";
        swept.lists.push_back(outcomes[l].is_null()
                                  ? std::nullopt
                                  : std::optional<ListOutcome>(outcomeFromJson(outcomes[l], name, where)));
      }
      table.modules.push_back(std::move(swept));
    }
    for (const json &failed : document.at("failed_modules"))
      table.failedModules.emplace_back(failed.at("name").get<std::string>(), failed.at("failure").get<std::string>());
  } catch (const json::exception &e) {
    throw InputError(describeInputProblem(name, "", "malformed sweep: " + jsonErrorText(e)));
  }
  return table;
}

namespace {

// One module's row, encoded for the journal and the other ranks.
json sweepModule(const CorpusModule &module, const std::vector<PoolList> &lists, const CandidateCompile &compile,
                 size_t &compiles, size_t &failedCompiles) {
  json row{{"name", module.name}, {"cxx", isCxxModule(module)}};
  std::vector<double> features;
  try {
    features = moduleFeatures(module);
  } catch (const InputError &e) {
    return {{"name", module.name}, {"failure", e.what()}};
  }
  const CompileResult oz = compile(module, "");
  ++compiles;
  if (!oz.ok()) return {{"name", module.name}, {"failure", std::string("-Oz: ") + oz.message}};
  row["features"] = features;
  row["oz"] = outcomeToJson({oz.sizes, oz.irInstructions});
  json outcomes = json::array();
  for (const PoolList &list : lists) {
    const CompileResult result = compile(module, list.pipeline);
    ++compiles;
    failedCompiles += !result.ok();
    outcomes.push_back(result.ok() ? outcomeToJson({result.sizes, result.irInstructions}) : json());
  }
  row["lists"] = outcomes;
  return row;
}

/// Gate verdicts of the pool, kept in the journal as they come so a resumed
/// run does not check a list twice.
void gatePool(std::vector<PoolList> &lists, PassListGate &gate, const std::optional<ModuleJournal> &journal,
              const fs::path &journalDirectory) {
  const fs::path kept = journalDirectory / kGateVerdicts;
  json verdicts = journal && fs::exists(kept) ? readJsonFile(kept) : json::object();
  for (PoolList &list : lists) {
    if (verdicts.contains(list.pipeline)) {
      list.gate = verdictFromJson(verdicts[list.pipeline], kept.string(), list.pipeline);
      continue;
    }
    list.gate = gate.check(list.pipeline);
    verdicts[list.pipeline] = verdictToJson(*list.gate);
    if (journal) writeFileAtomically(kept, verdicts.dump() + "\n");
  }
}

}  // namespace

SweepSummary sweepPassLists(const Corpus &corpus, const CompilerDriver &driver, SweepOptions options,
                            Cluster &cluster) {
  const auto start = std::chrono::steady_clock::now();
  if (options.lists.empty()) throw UsageError("the pool holds no pass list");
  CandidateCompile compile = options.compile;
  if (!compile)
    compile = [&driver](const CorpusModule &module, const std::string &pipeline) {
      return driver.compile({&module, pipeline, {}});
    };
  json settings = json::array();
  for (const PoolList &list : options.lists) settings.push_back(list.pipeline);
  settings = {{"lists", settings}, {"gate", options.gate != nullptr}};
  const fs::path journalDirectory = options.output / kJournal;
  std::optional<ModuleJournal> journal;
  if (cluster.isLeader() && !cluster.distributed())
    journal.emplace(journalDirectory, settings, options.resume, "a sweep");

  SweepSummary summary;
  summary.modules = corpus.modules.size();
  std::mutex mutex;
  size_t done = 0;
  const unsigned threads = resolveThreadCount(driver.options().threads);
  const std::vector<std::string> rows =
      gatherShares(cluster, corpus.modules.size(), [&](const std::vector<size_t> &mine) {
        std::vector<std::string> encoded(mine.size());
        // The largest modules first, so that a sweep does not end on one
        // large module alone while the other threads idle (a module's row
        // does not depend on when it is swept: one-module workers).
        const std::vector<size_t> order = largestModulesFirst(corpus, mine);
        parallelFor(mine.size(), threads, [&](size_t next) {
          const size_t k = order[next];
          const CorpusModule &module = corpus.modules[mine[k]];
          std::optional<std::string> kept = journal ? journal->find(module) : std::nullopt;
          size_t compiles = 0, failed = 0;
          encoded[k] = kept ? *kept : sweepModule(module, options.lists, compile, compiles, failed).dump();
          if (journal && !kept) journal->keep(module, encoded[k]);
          std::lock_guard<std::mutex> lock(mutex);
          summary.resumed += kept.has_value();
          summary.compiles += compiles;
          summary.failedCompiles += failed;
          if (options.progress) options.progress(++done, mine.size());
        });
        return encoded;
      });
  if (!cluster.isLeader()) return {};

  SweepTable table;
  if (options.gate) gatePool(options.lists, *options.gate, journal, journalDirectory);
  table.lists = options.lists;
  table.featureNames = moduleFeatureNames();
  for (const std::string &encoded : rows) {
    const json row = parseJsonText(encoded, "a swept module's row");
    if (row.contains("failure")) {
      table.failedModules.emplace_back(row["name"].get<std::string>(), row["failure"].get<std::string>());
      continue;
    }
    SweptModule module;
    module.name = row["name"].get<std::string>();
    module.cxx = row["cxx"].get<bool>();
    module.features = row["features"].get<std::vector<double>>();
    module.oz = outcomeFromJson(row["oz"], kJournal, module.name);
    for (const json &outcome : row["lists"])
      module.lists.push_back(outcome.is_null()
                                 ? std::nullopt
                                 : std::optional<ListOutcome>(outcomeFromJson(outcome, kJournal, module.name)));
    table.modules.push_back(std::move(module));
  }
  for (const PoolList &list : table.lists)
    if (list.gate && !list.gate->passed) {
      ++summary.listsRejected;
      summary.listsCxxLinkOnly += list.gate->cxxLinkOnly;
    }
  summary.swept = table.modules.size();
  // A sweep of no module is nothing usable: an earlier sweep.json stays.
  if (summary.swept > 0) writeFileAtomically(options.output / SweepTable::kFile, table.toJson().dump(1) + "\n");
  if (journal) journal->remove();
  summary.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return summary;
}

std::vector<std::string> sweepDirectoryEntries() { return {SweepTable::kFile, kJournal, kGateWorkDirectory}; }

}  // namespace mlgo::autotune
