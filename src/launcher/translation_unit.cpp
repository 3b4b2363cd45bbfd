#include "mlgo/launcher/translation_unit.h"

#include <algorithm>
#include <cstdlib>
#include <functional>

#include <fcntl.h>
#include <unistd.h>

#include <spdlog/spdlog.h>

#include "mlgo/autotune/correctness_gate.h"
#include "mlgo/autotune/module_features.h"
#include "mlgo/autotune/pass_predictor.h"
#include "mlgo/store/build_store.h"
#include "mlgo/autotune/search_space.h"
#include "mlgo/corpus/compile_commands.h"
#include "mlgo/corpus/corpus.h"
#include "mlgo/driver/compile_memo.h"
#include "mlgo/driver/compiler_driver.h"
#include "mlgo/driver/object_capture.h"
#include "mlgo/driver/optimization_work.h"
#include "mlgo/launcher/frontend.h"
#include "mlgo/launcher/link_baseline.h"
#include "mlgo/launcher/unit_exploration.h"
#include "mlgo/launcher/unit_recording.h"
#include "mlgo/support/atomic_file.h"
#include "mlgo/support/errors.h"

namespace mlgo::launcher {

namespace fs = std::filesystem;

namespace {

/// The module's bitcode in a file of its own beside the object
/// (OBJECT.mlgo-cc.bc), removed with this. A compile killed before it is
/// removed leaves it in the build directory, where the unit's next compile
/// writes and removes it again: nothing piles up in $TMPDIR.
class TemporaryBitcode {
 public:
  TemporaryBitcode(const fs::path &object, const std::string &bitcode)
      : path_(object.string() + ".mlgo-cc.bc") {
    const int fd = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0) {
      path_.clear();
      return;
    }
    size_t written = 0;
    while (written < bitcode.size()) {
      const ssize_t n = ::write(fd, bitcode.data() + written, bitcode.size() - written);
      if (n <= 0) break;
      written += size_t(n);
    }
    ::close(fd);
    if (written != bitcode.size()) remove();
  }
  ~TemporaryBitcode() { remove(); }
  const fs::path &path() const { return path_; }

 private:
  void remove() {
    std::error_code ignored;
    if (!path_.empty()) fs::remove(path_, ignored);
    path_.clear();
  }
  fs::path path_;
};

/// The frontend job's arguments as a corpus records them: the same cc1
/// command without its source (the driver compiles the bitcode instead).
std::vector<std::string> recordedCommandLine(const CompilePlan &plan) {
  std::vector<std::string> recorded = plan.cc1;
  auto source = std::find(recorded.rbegin(), recorded.rend(), plan.source.string());
  if (source != recorded.rend()) recorded.erase(std::next(source).base());
  return recorded;
}

std::string firstLine(const std::string &text) { return text.substr(0, text.find('\n')); }

/// One way to compile the unit: a pipeline ("" is the recorded level) with
/// or without the policy.
struct Way {
  std::string pipeline;
  bool withPolicy = false;
  bool predicted = false;  ///< one of the predictor's lists: kept within the cost bound
  bool operator==(const Way &other) const { return pipeline == other.pipeline && withPolicy == other.withPolicy; }
};

/// Predicted lists a unit tries beyond --predicted-lists, for those over the
/// cost bound.
constexpr size_t kSparePredictions = 3;

/// The ways to compile the unit, the one to stand by first: its tuned list;
/// or the recorded level and the predictor's first lists (with spares for
/// lists over the cost bound); then, with --never-larger, the plain recorded
/// level as the backup.
std::vector<Way> candidateWays(const Application &application, const CorpusModule &module) {
  const bool policy = application.policyFor(module.name);
  std::vector<Way> ways;
  auto tuned = application.passLists.find(module.name);
  if (tuned != application.passLists.end()) {
    ways.push_back({tuned->second, policy});
  } else {
    ways.push_back({"", policy});
    if (application.prediction) {
      const Prediction &prediction = *application.prediction;
      const std::vector<size_t> ranking =
          prediction.predictor->rank(autotune::moduleFeatures(module), isCxxModule(module));
      for (size_t k = 0; k < ranking.size() && k < prediction.count + kSparePredictions; ++k)
        ways.push_back({prediction.pipelines.at(ranking[k]), policy, true});
    }
  }
  const Way plainLevel{"", false};
  if (application.neverLarger && std::find(ways.begin(), ways.end(), plainLevel) == ways.end())
    ways.push_back(plainLevel);
  return ways;
}

/// One compile of the unit: its result and object.
struct Candidate {
  CompileResult result;
  std::string object;
};

Candidate compileCandidate(const CompilerDriver &driver, const CorpusModule &module, const Way &way,
                           const Application &application, std::shared_ptr<PipelineHook> extra = nullptr) {
  auto capture = std::make_shared<ObjectCapture>();
  CompileRequest request{&module, way.pipeline, {}};
  if (way.withPolicy) request.hooks.push_back(application.policyHooks());
  if (extra) request.hooks.push_back(std::move(extra));
  request.hooks.push_back(capture);
  Candidate candidate{driver.compile(request), capture->object()};
  if (candidate.result.ok() && candidate.object.empty()) {
    candidate.result.failure = FailureKind::CompileError;
    candidate.result.message = "code generation wrote no object";
  }
  return candidate;
}

/// A compile's estimated cost in nanoseconds (mlgo/driver/optimization_work.h):
/// the frontend, the optimization `work` counted and code generation.
uint64_t compileCost(const FrontendResult &frontend, const OptimizationWork &work, const CompileResult &result) {
  return estimatedFrontendNanoseconds(frontend.sourceBytes) + work.estimatedNanoseconds() +
         estimatedCodeGenerationNanoseconds(result.irInstructions);
}

/// Whether `pipeline` is the rendering of a list of the search space (the
/// recorded level, "", is).
bool inSearchSpace(const autotune::SearchSpace &space, const std::string &pipeline) {
  if (pipeline.empty()) return true;
  try {
    return space.pipeline(space.listOfPipeline(pipeline, "", "")) == pipeline;
  } catch (const InputError &) {
    return false;
  }
}

/// A store's rows are data other builds wrote (a shared store's above all):
/// a list outside the search space is refused, never compiled. InputError
/// naming the store and the unit (the unit then builds plainly, with a
/// warning); `everyTrial`: the unit's every list, else its choice only.
void requireSearchSpaceLists(const store::StoredUnit &unit, const Application &application, bool everyTrial) {
  auto refuse = [&](const std::string &pipeline) {
    const std::string shown = pipeline.size() > 60 ? pipeline.substr(0, 57) + "..." : pipeline;
    throw InputError(describeInputProblem(application.store->location(), "unit " + unit.key,
                                          "\"" + shown + "\" is not a list of the search space: never applied"));
  };
  if (unit.choice && !inSearchSpace(*application.space, *unit.choice)) refuse(*unit.choice);
  if (everyTrial)
    for (const auto &[pipeline, trial] : unit.trials)
      if (!inSearchSpace(*application.space, pipeline)) refuse(pipeline);
}

/// The lists a unit new to the store tries first: what its earlier
/// versions chose (an edited file's lineage, by its module name), then what
/// won on the project's other units (lists of the search space only), then
/// the predictor's ranking (--predict).
std::vector<std::string> rankedForStore(const Application &application, const CorpusModule &module,
                                        const std::string &key) {
  std::vector<std::string> ranked;
  for (const std::vector<std::string> &source :
       {application.store->lineageChoices(module.name, key), application.store->winningPipelines()})
    for (const std::string &pipeline : source)
      if (inSearchSpace(*application.space, pipeline) &&
          std::find(ranked.begin(), ranked.end(), pipeline) == ranked.end())
        ranked.push_back(pipeline);
  if (application.prediction) {
    const Prediction &prediction = *application.prediction;
    for (size_t k : prediction.predictor->rank(autotune::moduleFeatures(module), isCxxModule(module)))
      if (std::find(ranked.begin(), ranked.end(), prediction.pipelines.at(k)) == ranked.end())
        ranked.push_back(prediction.pipelines.at(k));
  }
  return ranked;
}

/// How many new lists the unit tries in this build with --explore: its share
/// of the build's exploration at the store's price (autotune/store_model.h):
/// the one the build before's links set, or the one this build's first
/// compile sets (BuildStore::explorationPrice).
size_t explorationShare(store::BuildStore &store, const store::StoredUnit &unit, const Application &application) {
  std::optional<double> price = store.explorationPrice(application.explore, application.exploreBudget, unit.used);
  if (!price) price = store.refreshExplorationPrice(application.explore, application.exploreBudget);
  return store::explorationShare(unit, *price, application.explore, application.exploreBudget);
}

/// Lists the gate judges in one compile at most; the rest wait for the
/// unit's next compile, as autotune's gate fallbacks wait their turn.
constexpr size_t kGateChecksPerCompile = 3;

/// Gates the unit's compiled lists that are smaller than its choice, within
/// its work limit and not judged yet, smallest first, until one is accepted.
void gateCandidates(store::BuildStore &store, const std::string &key, const Application &application) {
  const std::optional<store::StoredUnit> unit = store.unit(key);
  if (!unit || !unit->choice) return;
  // Only the verdicts on this unit's lists: the store's others are no concern here.
  const std::map<std::string, store::StoredVerdict> verdicts = store.verdictsFor(*unit);
  const int64_t chosenSize = store::shippedBytes(*unit, unit->trials.at(*unit->choice));
  const std::vector<store::StoredUnit> all = store.units();
  const std::vector<const store::StoredUnit *> build = store::currentUnits(all);
  std::vector<const store::StoredTrial *> waiting;
  for (const auto &[pipeline, trial] : unit->trials)
    if (!pipeline.empty() && trial.compiled && store::shippedBytes(*unit, trial) < chosenSize &&
        store::affordableInBuild(*unit, trial, build, store.costBound()) && !verdicts.count(pipeline))
      waiting.push_back(&trial);
  auto rank = [&unit](const store::StoredTrial *trial) {
    return std::make_tuple(store::shippedBytes(*unit, *trial), trial->pipeline.size(), trial->pipeline);
  };
  std::sort(waiting.begin(), waiting.end(),
            [&rank](const store::StoredTrial *a, const store::StoredTrial *b) { return rank(a) < rank(b); });
  for (size_t i = 0; i < waiting.size() && i < kGateChecksPerCompile; ++i) {
    const autotune::GateVerdict verdict = application.gate().check(waiting[i]->pipeline);
    store.recordVerdict(waiting[i]->pipeline, {verdict.passed, verdict.cxxLinkOnly, verdict.failure});
    if (verdict.acceptsFor(unit->cxx)) return;
  }
}

/// A unit's keys in the store: the one every tree shares (its rows), and
/// this tree's own (its recorded object, which carries the tree's paths).
struct UnitKeys {
  std::string portable, exact;
};

UnitKeys unitKeys(const CorpusModule &module, const FrontendResult &frontend, const PathRoots &roots) {
  return {store::unitKeyOfHash(frontend.portableHash, portableCommandLine(module.commandLine, roots)),
          store::unitKey(frontend.bitcode, module.commandLine)};
}

/// The unit's rows: under its portable key, or under its exact key in a
/// store written before keys travelled (moved to the portable key then).
std::optional<store::StoredUnit> storedUnit(store::BuildStore &store, const UnitKeys &keys) {
  std::optional<store::StoredUnit> unit = store.unit(keys.portable);
  if (!unit && keys.exact != keys.portable && store.unit(keys.exact) && store.rekeyUnit(keys.exact, keys.portable))
    unit = store.unit(keys.portable);
  return unit;
}

/// What a link needs to compare the unit's object with its plain compile
/// (store_link.h): which unit and pipeline the object comes from and, for a
/// list, the recorded level's object beside the store (compiled once more on
/// a store hit that lacks it). A store that cannot take them leaves the
/// unit's link unverified, with a warning there, and the compile as it is.
void rememberObjects(store::BuildStore &store, const UnitKeys &keys, const std::string &pipeline,
                     const std::string &object, const std::function<std::string()> &recordedObject) {
  try {
    const std::string hash = CompileMemo::hash(object);
    const fs::path cached = store.recordedObjectPath(keys.exact);
    const bool haveRecorded = pipeline.empty() || fs::is_regular_file(cached);
    // The tree builds the unit: its recorded object is in use (store-gc
    // removes other trees' objects, least recently used first).
    if (!pipeline.empty() && haveRecorded) {
      std::error_code ignored;
      fs::last_write_time(cached, fs::file_time_type::clock::now(), ignored);
    }
    const std::optional<store::ObjectOrigin> known = store.objectOrigin(hash);
    const store::ObjectOrigin origin{keys.portable, pipeline, keys.exact};
    // A rebuild's object is the last build's: nothing to write (a write is a synced transaction).
    if (haveRecorded && known && known->unit == origin.unit && known->pipeline == pipeline && known->plain == origin.plain)
      return;
    std::vector<std::pair<std::string, store::ObjectOrigin>> origins{{hash, origin}};
    if (!haveRecorded) {
      const std::string recorded = recordedObject();
      if (!recorded.empty()) {
        fs::create_directories(cached.parent_path());
        writeFileAtomically(cached, recorded);
        origins.push_back({CompileMemo::hash(recorded), {keys.portable, "", keys.exact}});
      }
    }
    store.recordObjects(origins);
  } catch (const store::StoreUnavailable &) {
    throw;  // the compile builds as clang would (cc_command.cpp)
  } catch (const std::exception &e) {
    spdlog::warn("--store: {}", firstLine(e.what()));
  }
}

/// The unit through the project's store: a decided unit compiles once with
/// its choice; otherwise the unit's new lists are compiled (its recorded
/// level and, with --predict, the first ranked lists; with --explore N, its
/// next N lists), recorded, gated, and the choice is compiled.
Candidate compileWithStore(const CompilerDriver &driver, const CorpusModule &module, const FrontendResult &frontend,
                           const PathRoots &roots,
                           const Application &application, TranslationUnitOutcome &outcome) {
  store::BuildStore &store = *application.store;
  const UnitKeys keys = unitKeys(module, frontend, roots);
  const std::string &key = keys.portable;
  outcome.storeUnit = key;
  std::map<std::string, Candidate> compiled;
  auto compile = [&](const std::string &pipeline) {
    auto work = std::make_shared<OptimizationWork>();
    Candidate candidate = compileCandidate(driver, module, {pipeline, false}, application, work);
    const store::StoredTrial trial = trialOf(pipeline, candidate.result, compileCost(frontend, *work, candidate.result));
    compiled[pipeline] = std::move(candidate);
    return trial;
  };
  std::optional<store::StoredUnit> unit = storedUnit(store, keys);
  if (unit) requireSearchSpaceLists(*unit, application, /*everyTrial=*/!unit->choice || application.explore > 0);
  // A unit the store has not seen tries N. The share is taken before this
  // use is noted: the unit's last use tells whether a new build has begun.
  const size_t share =
      unit && application.explore > 0 ? explorationShare(store, *unit, application) : application.explore;
  if (unit) store.noteUsed(key);
  if (unit && unit->choice && share == 0) {
    outcome.storeUse = "hit";
  } else {
    const std::map<std::string, store::StoredTrial> known = unit ? unit->trials : decltype(unit->trials){};
    std::vector<store::StoredTrial> fresh;
    const std::vector<std::string> ranked = rankedForStore(application, module, key);
    if (application.explore > 0) {
      ExplorationSettings settings;
      settings.newCompiles = share + (known.count("") ? 0 : 1);
      settings.ranked = ranked;
      settings.budget = application.exploreBudget;
      fresh = exploreUnit(module, known, *application.space, settings, compile);
    } else {
      const size_t count = application.prediction ? application.prediction->count : 0;
      std::vector<std::string> pipelines{""};
      pipelines.insert(pipelines.end(), ranked.begin(), ranked.begin() + std::min(count, ranked.size()));
      for (const std::string &pipeline : pipelines)
        if (!known.count(pipeline)) fresh.push_back(compile(pipeline));
    }
    outcome.storeUse = unit ? (fresh.empty() ? "decided" : "explored") : "new";
    outcome.candidates = fresh.size();
    if (!fresh.empty()) store.recordTrials(key, module.name, isCxxModule(module), fresh);
    gateCandidates(store, key, application);
    unit = store.unit(key);
  }
  const std::string pipeline = unit && unit->choice ? *unit->choice : "";
  outcome.passList = pipeline;
  if (unit && unit->trials.count("") && unit->trials.at("").compiled)
    outcome.recordedTextData = unit->trials.at("").sizes.textPlusData();
  auto recordedObject = [&]() {
    auto recorded = compiled.find("");
    if (recorded != compiled.end()) return recorded->second.object;
    Candidate plain = compileCandidate(driver, module, {"", false}, application);
    return plain.result.ok() ? plain.object : std::string();
  };
  auto done = compiled.find(pipeline);
  Candidate chosen = done != compiled.end() ? std::move(done->second)
                                            : compileCandidate(driver, module, {pipeline, false}, application);
  if (chosen.result.ok()) rememberObjects(store, keys, pipeline, chosen.object, recordedObject);
  return chosen;
}

/// Compiles the ways the unit has (candidateWays) and keeps the smallest. A
/// predicted list whose estimated cost goes over --cost-bound times the first
/// way's is cut short and skipped for the next one; --predicted-lists counts
/// the lists within the bound.
Candidate compileWays(const CompilerDriver &driver, const CorpusModule &module, const FrontendResult &frontend,
                      const Application &application, TranslationUnitOutcome &outcome, std::string &plainObject) {
  const std::vector<Way> ways = candidateWays(application, module);
  // The first way is the one to stand by; a predicted list that fails is
  // simply not chosen.
  auto firstWork = std::make_shared<OptimizationWork>();
  Candidate best = compileCandidate(driver, module, ways.front(), application, firstWork);
  if (!best.result.ok()) return best;
  const Way plainWay{"", false};
  if (ways.front() == plainWay) plainObject = best.object;
  const double bound = application.costBound * double(compileCost(frontend, *firstWork, best.result));
  // What optimization may spend: the bound less what the rest of a compile
  // costs at the first way's size.
  const double others = double(compileCost(frontend, OptimizationWork(), best.result));
  const size_t wanted = application.prediction ? application.prediction->count : 0;
  size_t chosen = 0, predicted = 0;
  outcome.candidates = 1;
  for (size_t w = 1; w < ways.size(); ++w) {
    if (ways[w].predicted && predicted == wanted) continue;
    auto work = std::make_shared<OptimizationWork>();
    if (ways[w].predicted) work->stopAbove(uint64_t(std::max(1.0, bound - others)));
    Candidate candidate = compileCandidate(driver, module, ways[w], application, work);
    ++outcome.candidates;
    if (ways[w] == plainWay && candidate.result.ok()) plainObject = candidate.object;
    if (ways[w].predicted) {
      if (work->stopped() || double(compileCost(frontend, *work, candidate.result)) > bound) {
        ++outcome.overCostBound;
        continue;
      }
      ++predicted;
    }
    if (candidate.result.ok() && candidate.result.sizes.textPlusData() < best.result.sizes.textPlusData()) {
      best = std::move(candidate);
      chosen = w;
    }
  }
  outcome.passList = ways[chosen].pipeline;
  outcome.keptBackup = application.neverLarger && chosen > 0 && ways[chosen] == plainWay;
  return best;
}

/// Without a store: clang's object of a unit compiled another way goes
/// into the cache of plain objects, for the links to compare with
/// (compiled now where no way was plain). A unit that cannot be kept there
/// still builds, with a warning: its links then ship as linked.
void keepPlainObject(const CompilerDriver &driver, const CorpusModule &module, const Application &application,
                     const std::string &written, std::string plainObject) {
  try {
    if (plainObject.empty()) {
      Candidate plain = compileCandidate(driver, module, {"", false}, application);
      if (!plain.result.ok()) return;
      plainObject = std::move(plain.object);
    }
    application.plainObjects->remember(written, plainObject);
  } catch (const std::exception &e) {
    spdlog::warn("{}: clang's object not kept for the links to compare with: {}", module.name, firstLine(errorText(e)));
  }
}

/// --record: the unit into the corpus; a unit that cannot be recorded still
/// builds, with a warning.
void recordInCorpus(const Application &application, const std::string &module, const FrontendResult &frontend) {
  try {
    recordUnit(application.recordCorpus, module, frontend.bitcode, frontend.commandLine);
  } catch (const std::exception &e) {
    spdlog::warn("--record: {}", firstLine(errorText(e)));
  }
}

}  // namespace

TranslationUnitOutcome compileTranslationUnit(const CompilePlan &plan, const Application &application,
                                              const fs::path &buildDirectory) {
  const auto start = std::chrono::steady_clock::now();
  TranslationUnitOutcome outcome;
  outcome.module = moduleNameForObject(plan.object, buildDirectory);
  auto finish = [&](std::string fallback) {
    outcome.fallback = std::move(fallback);
    outcome.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return outcome;
  };

  const bool record = !application.recordCorpus.empty();
  const PathRoots roots = PathRoots::of(buildDirectory, plan.source, application.baseDirectory, plan.cc1);
  FrontendResult frontend = runFrontend(plan.cc1, record, application.store ? &roots : nullptr);
  outcome.diagnostics = std::move(frontend.diagnostics);
  if (!frontend.ok) return finish("clang's frontend reported errors");
  if (record) recordInCorpus(application, outcome.module, frontend);
  const TemporaryBitcode bitcode(plan.object, frontend.bitcode);
  if (bitcode.path().empty()) return finish("cannot write " + plan.object.string() + ".mlgo-cc.bc");

  Corpus single;
  single.directory = buildDirectory;
  single.modules.push_back(
      {outcome.module, bitcode.path(), recordedCommandLine(plan), {}, {}, frontend.nameCounter, true});
  const CorpusModule &module = single.modules.front();
  try {
    applyCorpusBackendOptions(single);
  } catch (const std::exception &e) {
    return finish(firstLine(e.what()));
  }
  DriverOptions options;
  options.threads = 1;
  options.timeout = application.timeout;
  const CompilerDriver driver(options);
  Candidate best;
  std::string plainObject;
  try {
    best = application.store ? compileWithStore(driver, module, frontend, roots, application, outcome)
                             : compileWays(driver, module, frontend, application, outcome, plainObject);
  } catch (const store::StoreUnavailable &) {
    throw;  // the compile builds as clang would, said once a build (cc_command.cpp)
  } catch (const std::exception &e) {
    return finish(firstLine(e.what()));
  }
  if (!best.result.ok()) return finish(std::string(failureKindName(best.result.failure)) + ": " +
                                       firstLine(best.result.message));
  try {
    writeOutputFile(plan.object, best.object);
  } catch (const std::exception &e) {
    return finish(firstLine(e.what()));
  }
  if (application.plainObjects && !application.store)
    keepPlainObject(driver, module, application, best.object, std::move(plainObject));
  outcome.compiled = true;
  outcome.sizes = best.result.sizes;
  outcome.decisions = best.result.decisions;
  return finish("");
}

}  // namespace mlgo::launcher
