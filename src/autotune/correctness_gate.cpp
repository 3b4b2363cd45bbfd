#include "mlgo/autotune/correctness_gate.h"

#include <algorithm>

#include "mlgo/driver/compile_memo.h"
#include "mlgo/support/atomic_file.h"
#include "mlgo/support/data_paths.h"
#include "mlgo/support/errors.h"
#include "mlgo/support/parallel_for.h"
#include "mlgo/support/subprocess.h"

namespace mlgo::autotune {

namespace fs = std::filesystem;

namespace {

/// What went wrong in one step, its stderr cut to 300 characters after
/// `directory` is removed from it (so the same failure reads the same
/// wherever the work directory is).
std::string describeFailure(const std::string &step, const ProcessOutcome &outcome, const std::string &directory = "") {
  if (!outcome.started) return step + " did not start: " + outcome.error;
  if (outcome.timedOut) return step + " ran past the timeout";
  if (outcome.signal) return step + " died with signal " + std::to_string(outcome.signal);
  std::string text = step + " exited with status " + std::to_string(outcome.exitCode);
  std::string details = outcome.stderrText;
  if (!directory.empty())
    for (size_t at; (at = details.find(directory)) != std::string::npos;) details.erase(at, directory.size());
  if (!details.empty()) text += ": " + details.substr(0, 300);
  return text;
}

}  // namespace

namespace {

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

std::string findOpt() {
  for (const char *candidate : {"/usr/lib/llvm-19/bin/opt", "/usr/bin/opt-19"})
    if (fs::exists(candidate)) return candidate;
  return "";
}

fs::path defaultGatePrograms() { return dataPath(fs::path("passlisteval") / "programs"); }

CorrectnessGate::CorrectnessGate(GateOptions options) : options_(std::move(options)) {
  if (!fs::is_directory(options_.programs))
    throw InputError(describeInputProblem(options_.programs.string(), "", "not a directory of gate programs"));
  for (const auto &entry : fs::directory_iterator(options_.programs)) {
    const std::string extension = entry.path().extension().string();
    if (extension != ".c" && extension != ".cpp") continue;
    programs_.push_back({entry.path().stem().string(), extension == ".cpp", {}});
  }
  std::sort(programs_.begin(), programs_.end(), [](const Program &a, const Program &b) { return a.name < b.name; });
  if (programs_.empty())
    throw InputError(describeInputProblem(options_.programs.string(), "", "holds no .c or .cpp program"));
  fs::create_directories(options_.workDirectory);
  std::vector<std::string> errors(programs_.size());
  parallelFor(programs_.size(), options_.threads, [&](size_t i) {
    Program &program = programs_[i];
    program.bitcode = options_.workDirectory / (program.name + ".bc");
    const fs::path source = options_.programs / (program.name + (program.cxx ? ".cpp" : ".c"));
    // The gate's path: clang's -Oz front end without its optimizations, so
    // the candidate list is the only optimization the program sees.
    std::vector<std::string> args{options_.clang};
    if (program.cxx) args.insert(args.end(), {"--driver-mode=g++", "-std=c++17"});
    else args.push_back("-std=c11");
    args.insert(args.end(), {"-Oz", "-Xclang", "-disable-llvm-optzns", "-emit-llvm", "-c", source.string(), "-o",
                             program.bitcode.string()});
    const ProcessOutcome outcome = runProcess(args, options_.timeout * 6);
    if (!outcome.succeeded()) errors[i] = describeFailure("clang", outcome);
  });
  for (size_t i = 0; i < programs_.size(); ++i)
    if (!errors[i].empty())
      throw InputError(describeInputProblem(options_.programs.string(), programs_[i].name, errors[i]));
  if (!options_.verdictCache.empty()) {
    const fs::path scratch = options_.workDirectory / "version.txt";
    cacheKeyBase_ = std::string("mlgo ") + MLGO_VERSION + "\n" + toolVersion(options_.clang, scratch) +
                    toolVersion(options_.opt, scratch);
    for (const Program &program : programs_)
      cacheKeyBase_ += program.name + "\n" +
                       CompileMemo::hash(readFile(options_.programs / (program.name + (program.cxx ? ".cpp" : ".c")))) +
                       "\n";
  }
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
    const nlohmann::json entry = nlohmann::json::parse(readFile(path));
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

CorrectnessGate::ProgramRun CorrectnessGate::runOne(const Program &program, const std::string &pipeline,
                                                    size_t slot) const {
  const std::string base = (options_.workDirectory / (program.name + "." + std::to_string(slot))).string();
  const std::string optimized = base + ".opt.bc", object = base + ".o", binary = base + ".exe";
  auto cleanup = [&] {
    std::error_code ignored;
    for (const std::string &file : {optimized, object, binary}) fs::remove(file, ignored);
  };
  // Verdicts name files relative to the work directory, and the object file
  // is named here rather than by clang (a random temporary name), so the
  // same list gives the same message in every run.
  auto failure = [&](const std::string &step, const ProcessOutcome &outcome) -> ProgramRun {
    cleanup();
    return {describeFailure(step, outcome, options_.workDirectory.string() + "/"), step == "linking"};
  };
  std::vector<std::string> clang{options_.clang};
  if (program.cxx) clang.push_back("--driver-mode=g++");
  ProcessOutcome outcome =
      runProcess({options_.opt, "-passes=" + pipeline, program.bitcode.string(), "-o", optimized}, options_.timeout);
  if (!outcome.succeeded()) return failure("opt", outcome);
  std::vector<std::string> generate = clang;
  generate.insert(generate.end(), {"-Oz", "-Xclang", "-disable-llvm-optzns", "-c", optimized, "-o", object});
  outcome = runProcess(generate, options_.timeout);
  if (!outcome.succeeded()) return failure("code generation", outcome);
  std::vector<std::string> link = clang;
  link.insert(link.end(), {object, "-o", binary, "-lm"});
  outcome = runProcess(link, options_.timeout);
  if (!outcome.succeeded()) return failure("linking", outcome);
  outcome = runProcess({binary}, options_.timeout);
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
  parallelFor(programs_.size(), options_.threads, [&](size_t i) { runs[i] = runOne(programs_[i], pipeline, slot); });
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
  for (const Program &candidate : programs_) {
    if (candidate.name != program) continue;
    const ProgramRun run = runOne(candidate, pipeline, nextSlot_++);
    return !run.failure.empty() && (linkFailuresCount || !candidate.cxx || !run.linkFailed);
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
