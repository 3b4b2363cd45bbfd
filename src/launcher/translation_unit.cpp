#include "mlgo/launcher/translation_unit.h"

#include <algorithm>
#include <cstdlib>

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

/// The module's bitcode in a file of its own, removed with this.
class TemporaryBitcode {
 public:
  explicit TemporaryBitcode(const std::string &bitcode) {
    const char *directory = std::getenv("TMPDIR");
    std::string pattern = std::string(directory && *directory ? directory : "/tmp") + "/mlgo-cc-XXXXXX.bc";
    const int fd = ::mkstemps(pattern.data(), 3);
    if (fd < 0) return;
    path_ = pattern;
    size_t written = 0;
    while (written < bitcode.size()) {
      const ssize_t n = ::write(fd, bitcode.data() + written, bitcode.size() - written);
      if (n <= 0) break;
      written += size_t(n);
    }
    ::close(fd);
    if (written != bitcode.size()) path_.clear();
  }
  ~TemporaryBitcode() {
    std::error_code ignored;
    if (!path_.empty()) fs::remove(path_, ignored);
  }
  const fs::path &path() const { return path_; }

 private:
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

/// The pipelines to compile the unit with, the one to fall back on first:
/// its tuned list; or the recorded level and the predictor's first lists; or
/// the recorded level alone ("" is the recorded level).
std::vector<std::string> candidatePipelines(const Application &application, const CorpusModule &module) {
  auto tuned = application.passLists.find(module.name);
  if (tuned != application.passLists.end()) return {tuned->second};
  std::vector<std::string> pipelines{""};
  if (!application.prediction) return pipelines;
  const Prediction &prediction = *application.prediction;
  const std::vector<size_t> ranking =
      prediction.predictor->rank(autotune::moduleFeatures(module), isCxxModule(module));
  for (size_t k = 0; k < ranking.size() && k < prediction.count; ++k)
    pipelines.push_back(prediction.pipelines.at(ranking[k]));
  return pipelines;
}

/// One compile of the unit: its result and object.
struct Candidate {
  CompileResult result;
  std::string object;
};

Candidate compileCandidate(const CompilerDriver &driver, const CorpusModule &module, const std::string &pipeline,
                           const Application &application) {
  auto capture = std::make_shared<ObjectCapture>();
  CompileRequest request{&module, pipeline, {}};
  if (application.policyHooks) request.hooks.push_back(application.policyHooks());
  request.hooks.push_back(capture);
  Candidate candidate{driver.compile(request), capture->object()};
  if (candidate.result.ok() && candidate.object.empty()) {
    candidate.result.failure = FailureKind::CompileError;
    candidate.result.message = "code generation wrote no object";
  }
  return candidate;
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

  FrontendResult frontend = runFrontend(plan.cc1);
  outcome.diagnostics = std::move(frontend.diagnostics);
  if (!frontend.ok) return finish("clang's frontend reported errors");
  const TemporaryBitcode bitcode(frontend.bitcode);
  if (bitcode.path().empty()) return finish("cannot write a temporary file in $TMPDIR");

  Corpus single;
  single.directory = buildDirectory;
  single.modules.push_back({outcome.module, bitcode.path(), recordedCommandLine(plan), {}, {}});
  const CorpusModule &module = single.modules.front();
  std::vector<std::string> pipelines;
  try {
    applyCorpusBackendOptions(single);
    pipelines = candidatePipelines(application, module);
  } catch (const std::exception &e) {
    return finish(firstLine(e.what()));
  }
  DriverOptions options;
  options.threads = 1;
  options.timeout = application.timeout;
  const CompilerDriver driver(options);
  // The first pipeline is the one to stand by; a predicted list that fails
  // is simply not chosen.
  Candidate best = compileCandidate(driver, module, pipelines.front(), application);
  if (!best.result.ok()) return finish(std::string(failureKindName(best.result.failure)) + ": " +
                                       firstLine(best.result.message));
  outcome.passList = pipelines.front();
  outcome.candidates = pipelines.size();
  for (size_t p = 1; p < pipelines.size(); ++p) {
    Candidate candidate = compileCandidate(driver, module, pipelines[p], application);
    if (candidate.result.ok() && candidate.result.sizes.textPlusData() < best.result.sizes.textPlusData()) {
      best = std::move(candidate);
      outcome.passList = pipelines[p];
    }
  }
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
