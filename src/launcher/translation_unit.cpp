#include "mlgo/launcher/translation_unit.h"

#include <algorithm>
#include <cstdlib>

#include <fcntl.h>
#include <unistd.h>

#include "mlgo/autotune/module_features.h"
#include "mlgo/autotune/pass_predictor.h"
#include "mlgo/corpus/compile_commands.h"
#include "mlgo/corpus/corpus.h"
#include "mlgo/driver/compiler_driver.h"
#include "mlgo/driver/object_capture.h"
#include "mlgo/launcher/frontend.h"
#include "mlgo/support/atomic_file.h"

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
  bool operator==(const Way &other) const { return pipeline == other.pipeline && withPolicy == other.withPolicy; }
};

/// The ways to compile the unit, the one to stand by first: its tuned list;
/// or the recorded level and the predictor's first lists; then, with
/// --never-larger, the plain recorded level as the backup.
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
      for (size_t k = 0; k < ranking.size() && k < prediction.count; ++k)
        ways.push_back({prediction.pipelines.at(ranking[k]), policy});
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
                           const Application &application) {
  auto capture = std::make_shared<ObjectCapture>();
  CompileRequest request{&module, way.pipeline, {}};
  if (way.withPolicy) request.hooks.push_back(application.policyHooks());
  request.hooks.push_back(capture);
  Candidate candidate{driver.compile(request), capture->object()};
  if (candidate.result.ok() && candidate.object.empty()) {
    candidate.result.failure = FailureKind::CompileError;
    candidate.result.message = "code generation wrote no object";
  }
  return candidate;
}

}  // namespace

std::string moduleOfPlan(const CompilePlan &plan) { return moduleNameForObject(plan.object, fs::current_path()); }

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

  FrontendResult frontend = runFrontend(plan.cc1);
  outcome.diagnostics = std::move(frontend.diagnostics);
  if (!frontend.ok) return finish("clang's frontend reported errors");
  const TemporaryBitcode bitcode(plan.object, frontend.bitcode);
  if (bitcode.path().empty()) return finish("cannot write " + plan.object.string() + ".mlgo-cc.bc");

  Corpus single;
  single.directory = buildDirectory;
  single.modules.push_back({outcome.module, bitcode.path(), recordedCommandLine(plan), {}, {}, frontend.nameCounter});
  const CorpusModule &module = single.modules.front();
  std::vector<Way> ways;
  try {
    applyCorpusBackendOptions(single);
    ways = candidateWays(application, module);
  } catch (const std::exception &e) {
    return finish(firstLine(e.what()));
  }
  DriverOptions options;
  options.threads = 1;
  options.timeout = application.timeout;
  const CompilerDriver driver(options);
  // The first way is the one to stand by; a predicted list that fails is
  // simply not chosen.
  Candidate best = compileCandidate(driver, module, ways.front(), application);
  if (!best.result.ok()) return finish(std::string(failureKindName(best.result.failure)) + ": " +
                                       firstLine(best.result.message));
  size_t chosen = 0;
  for (size_t w = 1; w < ways.size(); ++w) {
    Candidate candidate = compileCandidate(driver, module, ways[w], application);
    if (candidate.result.ok() && candidate.result.sizes.textPlusData() < best.result.sizes.textPlusData()) {
      best = std::move(candidate);
      chosen = w;
    }
  }
  outcome.passList = ways[chosen].pipeline;
  outcome.candidates = ways.size();
  outcome.keptBackup = application.neverLarger && chosen > 0 && ways[chosen] == Way{"", false};
  try {
    writeFileAtomically(plan.object, best.object);
  } catch (const std::exception &e) {
    return finish(firstLine(e.what()));
  }
  outcome.compiled = true;
  outcome.sizes = best.result.sizes;
  outcome.decisions = best.result.decisions;
  return finish("");
}

}  // namespace mlgo::launcher
