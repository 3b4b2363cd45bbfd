#include "mlgo/autotune/correctness_gate.h"

#include <algorithm>

#include "mlgo/corpus/embedded_sections.h"
#include "mlgo/driver/compile_memo.h"
#include "mlgo/driver/compile_worker.h"
#include "mlgo/driver/isolated_compiler.h"
#include "mlgo/support/atomic_file.h"
#include "mlgo/support/data_paths.h"
#include "mlgo/support/errors.h"
#include "mlgo/support/text_input.h"
#include "mlgo/support/file_lock.h"
#include "mlgo/support/parallel_for.h"
#include "mlgo/support/subprocess.h"

namespace mlgo::autotune {

namespace fs = std::filesystem;

namespace {

/// `text` without `directory` in it, cut to 300 characters (so the same
/// failure reads the same wherever the work directory is).
std::string withoutDirectory(std::string text, const std::string &directory) {
  if (!directory.empty())
    for (size_t at; (at = text.find(directory)) != std::string::npos;) text.erase(at, directory.size());
  return text.substr(0, 300);
}

/// What went wrong in one step that ran a program.
std::string describeFailure(const std::string &step, const ProcessOutcome &outcome, const std::string &directory = "") {
  if (!outcome.started) return step + " did not start: " + outcome.error;
  if (outcome.timedOut) return step + " ran past the timeout";
  if (outcome.signal) return step + " died with signal " + std::to_string(outcome.signal);
  std::string text = step + " exited with status " + std::to_string(outcome.exitCode);
  const std::string details = withoutDirectory(outcome.stderrText, directory);
  if (!details.empty()) text += ": " + details;
  return text;
}

/// What went wrong in a compile by mlgo's driver.
std::string describeFailure(const CompileResult &result, const std::string &directory) {
  if (result.failure == FailureKind::Timeout) return "compiling ran past the timeout";
  return std::string("compiling failed (") + failureKindName(result.failure) +
         "): " + withoutDirectory(result.message, directory);
}

}  // namespace

namespace {

/// Changes when a verdict's meaning does: 2 is the driver's compile in place
/// of opt-19 and clang's code generation.
constexpr int kGateFormat = 2;

/// What `tool --version` prints (written to `scratch`): part of a
/// remembered verdict's key.
std::string toolVersion(const std::string &tool, const fs::path &scratch) {
  runProcess({tool, "--version"}, std::chrono::seconds(30), scratch.string());
  std::error_code ignored;
  const std::string text = fs::exists(scratch, ignored) ? readFile(scratch) : "";
  fs::remove(scratch, ignored);
  return tool + ": " + text;
}

}  // namespace

fs::path defaultGatePrograms() { return dataPath(fs::path("configs") / "autotune" / "gate-programs"); }

CorrectnessGate::CorrectnessGate(GateOptions options) : options_(std::move(options)) {
  if (!fs::is_directory(options_.programs))
    throw InputError(describeInputProblem(options_.programs.string(), "", "not a directory of gate programs"));
  for (const auto &entry : fs::directory_iterator(options_.programs)) {
    const std::string extension = entry.path().extension().string();
    if (extension != ".c" && extension != ".cpp") continue;
    programs_.push_back({entry.path().stem().string(), extension == ".cpp"});
  }
  std::sort(programs_.begin(), programs_.end(), [](const Program &a, const Program &b) { return a.name < b.name; });
  if (programs_.empty())
    throw InputError(describeInputProblem(options_.programs.string(), "", "holds no .c or .cpp program"));
  buildCorpus();
  DriverOptions driver;
  driver.threads = options_.threads;
  driver.timeout = options_.timeout;
  driver.faults = options_.faults;
  driver_ = std::make_unique<CompilerDriver>(driver);
  if (options_.workerCommand)
    workers_ = std::make_unique<IsolatedCompiler>(options_.workerCommand(corpus_.directory),
                                                  options_.timeout + std::chrono::seconds(30));
  if (!options_.verdictCache.empty()) {
    const fs::path scratch = options_.workDirectory / "version.txt";
    cacheKeyBase_ = CompileMemo::versionTag() + "\ngate " + std::to_string(kGateFormat) + "\n" +
                    toolVersion(options_.clang, scratch);
    for (const Program &program : programs_)
      cacheKeyBase_ += program.name + "\n" +
                       CompileMemo::hash(readFile(options_.programs / (program.name + (program.cxx ? ".cpp" : ".c")))) +
                       "\n";
  }
}

CorrectnessGate::~CorrectnessGate() = default;

void CorrectnessGate::buildCorpus() {
  if (options_.sharedCorpus.empty()) return buildCorpusIn(options_.workDirectory / "corpus");
  // Built once for every process that gates with these programs and this
  // clang: the first builds it under the lock, the others load it.
  fs::create_directories(options_.sharedCorpus);
  const FileLock lock(options_.sharedCorpus / ".lock");
  std::string key = toolVersion(options_.clang, options_.workDirectory / "version.txt");
  for (const Program &program : programs_)
    key += program.name + "\n" + CompileMemo::hash(readFile(options_.programs / (program.name + (program.cxx ? ".cpp" : ".c")))) + "\n";
  key = CompileMemo::hash(key);
  const fs::path corpus = options_.sharedCorpus / key;
  if (fs::exists(corpus / kCorpusDescriptionFile)) {
    corpus_ = Corpus::load(corpus);
    return;
  }
  buildCorpusIn(corpus);
}

void CorrectnessGate::buildCorpusIn(const fs::path &corpus) {
  // clang's -Oz front end, its module kept before optimization with the cc1
  // command (as the demo corpus is built), so that the candidate list is the
  // only optimization the program sees and code generation is -Oz's.
  fs::create_directories(corpus);
  std::vector<std::string> errors(programs_.size()), names;
  parallelFor(programs_.size(), options_.threads, [&](size_t i) {
    const Program &program = programs_[i];
    const fs::path source = options_.programs / (program.name + (program.cxx ? ".cpp" : ".c"));
    const fs::path object = options_.workDirectory / (program.name + ".embedded.o");
    std::vector<std::string> args{options_.clang};
    if (program.cxx) args.insert(args.end(), {"--driver-mode=g++", "-std=c++17"});
    else args.push_back("-std=c11");
    args.insert(args.end(),
                {"-Oz", "-Xclang", "-fembed-bitcode=all", "-c", source.string(), "-o", object.string()});
    const ProcessOutcome outcome = runProcess(args, options_.timeout * 6, "", TimeoutClock::Cpu);
    if (!outcome.succeeded()) {
      errors[i] = describeFailure("clang", outcome);
      return;
    }
    const EmbeddedModule embedded = readEmbeddedModule(object);
    std::error_code ignored;
    fs::remove(object, ignored);
    if (embedded.status != EmbeddedModule::Status::Ok) {
      errors[i] = std::string("clang's object: ") + embeddedStatusName(embedded.status) + " " + embedded.detail;
      return;
    }
    writeFileAtomically(corpus / (program.name + ".bc"), embedded.bitcode);
    writeFileAtomically(corpus / (program.name + ".cmd"), embedded.commandLine);
  });
  for (size_t i = 0; i < programs_.size(); ++i) {
    if (!errors[i].empty())
      throw InputError(describeInputProblem(options_.programs.string(), programs_[i].name, errors[i]));
    names.push_back(programs_[i].name);
  }
  writeCorpusDescription(corpus, names, false);
  corpus_ = Corpus::load(corpus);
}

fs::path CorrectnessGate::cachedVerdictPath(const std::string &pipeline) const {
  return options_.verdictCache / (CompileMemo::hash(cacheKeyBase_ + pipeline) + ".json");
}

std::optional<GateVerdict> CorrectnessGate::rememberedVerdict(const std::string &pipeline) const {
  if (options_.verdictCache.empty()) return std::nullopt;
  std::error_code error;
  const fs::path path = cachedVerdictPath(pipeline);
  if (!fs::is_regular_file(path, error)) return std::nullopt;
  try {
    const nlohmann::json entry = parseJsonText(readFile(path), path.string());
    // The full pipeline is stored: a hash collision is never taken for a hit.
    if (entry.at("pipeline").get<std::string>() != pipeline) return std::nullopt;
    return GateVerdict{entry.at("passed").get<bool>(), entry.at("failure").get<std::string>(),
                       entry.at("program").get<std::string>(), entry.at("cxx_link_only").get<bool>()};
  } catch (const std::exception &) {
    return std::nullopt;  // a damaged entry is asked again, and rewritten
  }
}

void CorrectnessGate::rememberVerdict(const std::string &pipeline, const GateVerdict &verdict) const {
  if (options_.verdictCache.empty()) return;
  const nlohmann::json entry{{"pipeline", pipeline},
                             {"passed", verdict.passed},
                             {"failure", verdict.failure},
                             {"program", verdict.program},
                             {"cxx_link_only", verdict.cxxLinkOnly}};
  try {
    writeFileAtomically(cachedVerdictPath(pipeline), entry.dump() + "\n");
  } catch (const std::exception &) {
    // A cache that cannot be written costs time, never the verdict.
  }
}

CompileResult CorrectnessGate::compile(size_t program, const std::string &pipeline, const fs::path &object) const {
  const CorpusModule &module = corpus_.modules.at(program);
  if (workers_) return workers_->compile(module, pipeline, object);
  return compileToObject(*driver_, module, pipeline, object);
}

CorrectnessGate::ProgramRun CorrectnessGate::runOne(size_t index, const std::string &pipeline, size_t slot) const {
  ++programRuns_;
  const Program &program = programs_[index];
  const std::string base = (options_.workDirectory / (program.name + "." + std::to_string(slot))).string();
  const std::string object = base + ".o", binary = base + ".exe";
  auto cleanup = [&] {
    std::error_code ignored;
    for (const std::string &file : {object, binary}) fs::remove(file, ignored);
  };
  // Verdicts name files relative to the work directory, so the same list
  // gives the same message in every run.
  const std::string directory = options_.workDirectory.string() + "/";
  const CompileResult compiled = compile(index, pipeline, object);
  if (!compiled.ok()) {
    cleanup();
    return {describeFailure(compiled, directory), false};
  }
  auto failure = [&](const std::string &step, const ProcessOutcome &outcome) -> ProgramRun {
    cleanup();
    return {describeFailure(step, outcome, directory), step == "linking"};
  };
  std::vector<std::string> link{options_.clang};
  if (program.cxx) link.push_back("--driver-mode=g++");
  link.insert(link.end(), {object, "-o", binary, "-lm"});
  ProcessOutcome outcome = runProcess(link, options_.timeout, "", TimeoutClock::Cpu);
  if (!outcome.succeeded()) return failure("linking", outcome);
  outcome = runProcess({binary}, options_.runTimeout, "", TimeoutClock::Cpu);
  if (!outcome.succeeded()) return failure("the program", outcome);
  cleanup();
  return {};
}

GateVerdict CorrectnessGate::check(const std::string &pipeline) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto found = verdicts_.find(pipeline);
    if (found != verdicts_.end()) return found->second;
  }
  if (const std::optional<GateVerdict> remembered = rememberedVerdict(pipeline)) {
    std::lock_guard<std::mutex> lock(mutex_);
    ++remembered_;
    return verdicts_.emplace(pipeline, *remembered).first->second;
  }
  const size_t slot = nextSlot_++;
  std::vector<ProgramRun> runs(programs_.size());
  // The first miscompile in name order names the verdict: once one is known,
  // the programs after it need not run (a list that breaks everything would
  // otherwise wait out every hung program's timeout). Programs start in name
  // order, so every one before it has run.
  std::atomic<size_t> firstMiscompile{programs_.size()};
  parallelFor(programs_.size(), options_.threads, [&](size_t i) {
    if (i > firstMiscompile) return;
    runs[i] = runOne(i, pipeline, slot);
    if (runs[i].failure.empty() || (programs_[i].cxx && runs[i].linkFailed)) return;
    for (size_t known = firstMiscompile; i < known && !firstMiscompile.compare_exchange_weak(known, i);) {
    }
  });
  GateVerdict verdict{true, "", "", false};
  // The first miscompile names the verdict; a C++ link failure only when there is none.
  for (bool linkFailures : {false, true})
    for (size_t i = 0; i < programs_.size() && verdict.passed; ++i) {
      const ProgramRun &run = runs[i];
      const bool cxxLink = programs_[i].cxx && run.linkFailed;
      if (run.failure.empty() || cxxLink != linkFailures) continue;
      verdict = {false, programs_[i].name + ": " + run.failure, programs_[i].name, cxxLink};
    }
  // Timeouts depend on the machine's load: such a verdict is not kept for later runs.
  if (verdict.failure.find("ran past the timeout") == std::string::npos) rememberVerdict(pipeline, verdict);
  std::lock_guard<std::mutex> lock(mutex_);
  ++runs_;
  return verdicts_.emplace(pipeline, verdict).first->second;
}

bool CorrectnessGate::breaks(const std::string &pipeline, const std::string &program, bool linkFailuresCount) {
  for (size_t i = 0; i < programs_.size(); ++i) {
    if (programs_[i].name != program) continue;
    const ProgramRun run = runOne(i, pipeline, nextSlot_++);
    return !run.failure.empty() && (linkFailuresCount || !programs_[i].cxx || !run.linkFailed);
  }
  return false;
}

size_t CorrectnessGate::listsChecked() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return runs_;
}

size_t CorrectnessGate::verdictsRemembered() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return remembered_;
}

}  // namespace mlgo::autotune
