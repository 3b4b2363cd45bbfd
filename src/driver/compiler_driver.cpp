#include "mlgo/driver/compiler_driver.h"
#include "mlgo/driver/name_counter.h"

#include <cstdlib>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <map>
#include <mutex>

#include <clang/Basic/TargetInfo.h>
#include <clang/CodeGen/BackendUtil.h>
#include <llvm/Analysis/TargetLibraryInfo.h>
#include <llvm/Bitcode/BitcodeReader.h>
#include <llvm/Bitcode/BitcodeWriter.h>
#include <llvm/IR/DiagnosticInfo.h>
#include <llvm/IR/DiagnosticPrinter.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Verifier.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/VirtualFileSystem.h>
#include <llvm/Target/TargetMachine.h>

#include "mlgo/driver/backend_options.h"
#include "mlgo/driver/crash_guard.h"
#include "mlgo/driver/llvm_runtime.h"
#include "mlgo/driver/object_sizes.h"
#include "mlgo/support/atomic_file.h"
#include "mlgo/support/errors.h"
#include "mlgo/support/parallel_for.h"
#include "analysis_managers.h"
#include "recorded_command.h"
#include "thinlto_backend.h"

namespace mlgo {

namespace {

/// Set while a memoized result is verified: that compile must not take
/// anything from the memo itself.
thread_local bool tlsBypassMemo = false;

/// Collects LLVM's error diagnostics instead of letting LLVMContext's default
/// handler print them and exit the process.
class CapturingDiagnosticHandler final : public llvm::DiagnosticHandler {
 public:
  explicit CapturingDiagnosticHandler(std::string &errors) : errors_(errors) {}
  bool handleDiagnostics(const llvm::DiagnosticInfo &info) override {
    if (info.getSeverity() != llvm::DS_Error) return true;
    llvm::raw_string_ostream stream(errors_);
    if (!errors_.empty()) stream << "; ";
    llvm::DiagnosticPrinterRawOStream printer(stream);
    info.print(printer);
    return true;
  }

 private:
  std::string &errors_;
};

/// Hooks see beginCompile inside the contained run and endCompile after it,
/// also when the run was unwound by the crash guard (which skips destructors,
/// so this cannot be RAII inside the run).
void beginHooks(const PipelineHooks &hooks) {
  for (const auto &hook : processWideHooks()) hook->beginCompile();
  for (const auto &hook : hooks) hook->beginCompile();
}
void endHooks(const PipelineHooks &hooks) {
  for (auto it = hooks.rbegin(); it != hooks.rend(); ++it) (*it)->endCompile();
  for (const auto &hook : processWideHooks()) hook->endCompile();
}

std::vector<std::string> backendOptionsOf(const std::vector<std::string> &args) {
  std::vector<std::string> options;
  for (size_t i = 0; i + 1 < args.size(); ++i)
    if (args[i] == "-mllvm") options.push_back(args[++i]);
  return options;
}

std::string joinFeatures(const std::vector<std::string> &features) {
  std::string joined;
  for (const std::string &feature : features) joined += (joined.empty() ? "" : ",") + feature;
  return joined;
}

uint64_t countInstructions(const llvm::Module &module) {
  uint64_t count = 0;
  for (const llvm::Function &function : module)
    for (const llvm::BasicBlock &block : function) count += block.size();
  return count;
}

/// Everything a compile needs that it can get without optimizing: kept apart
/// so the contained part of the compile stays readable.
struct CompileState {
  std::unique_ptr<RecordedCommand> command;
  llvm::LLVMContext context;
  std::string llvmErrors;
  std::unique_ptr<llvm::Module> module;
  /// A ThinLTO module's index; null for other modules.
  std::unique_ptr<llvm::ModuleSummaryIndex> thinltoIndex;
};

void registerHooks(llvm::PassBuilder &builder, const PipelineHooks &hooks) {
  for (const auto &hook : processWideHooks()) hook->registerCallbacks(builder);
  for (const auto &hook : hooks) hook->registerCallbacks(builder);
  // Between passes is a safe place to end a compile that ran out of time.
  if (auto *instrumentation = builder.getPassInstrumentationCallbacks())
    instrumentation->registerBeforeNonSkippedPassCallback(
        [](llvm::StringRef, llvm::Any) { checkContainedDeadline(); });
}

/// A target machine built from the recorded triple, CPU, features,
/// relocation model and optimization level, for the optimization pipelines
/// mlgo runs itself. Null with `result` failed when there is no such target.
std::unique_ptr<llvm::TargetMachine> recordedTargetMachine(CompileState &state, CompileResult &result) {
  clang::CompilerInstance &instance = state.command->instance();
  const clang::TargetOptions &targetOptions = instance.getTargetOpts();
  const clang::CodeGenOptions &codegen = instance.getCodeGenOpts();
  std::string error;
  const llvm::Target *target = llvm::TargetRegistry::lookupTarget(targetOptions.Triple, error);
  if (!target) {
    result.failure = FailureKind::CompileError;
    result.message = "no target for " + targetOptions.Triple + ": " + error;
    return nullptr;
  }
  const auto level = llvm::CodeGenOpt::getLevel(static_cast<int>(codegen.OptimizationLevel));
  return std::unique_ptr<llvm::TargetMachine>(target->createTargetMachine(
      targetOptions.Triple, targetOptions.CPU, joinFeatures(targetOptions.Features), llvm::TargetOptions(),
      codegen.RelocationModel, std::nullopt, level.value_or(llvm::CodeGenOptLevel::Default)));
}

/// Runs an opt-style pipeline the way `opt -passes=` does, after the
/// always-inliner that clang never leaves out (kPassListPrologue).
void runCustomPipeline(CompileState &state, const std::string &pipeline, const PipelineHooks &hooks,
                       CompileResult &result) {
  std::unique_ptr<llvm::TargetMachine> machine = recordedTargetMachine(state, result);
  if (!machine) return;
  const clang::CodeGenOptions &codegen = state.command->instance().getCodeGenOpts();
  AnalysisManagers analyses;
  llvm::PassInstrumentationCallbacks instrumentation;
  llvm::PassBuilder builder(machine.get(), llvm::PipelineTuningOptions(), std::nullopt, &instrumentation);
  registerHooks(builder, hooks);
  llvm::TargetLibraryInfoImpl libraryInfo(llvm::Triple(machine->getTargetTriple()));
  if (!codegen.SimplifyLibCalls) libraryInfo.disableAllFunctions();
  analyses.registerWith(builder, libraryInfo);
  llvm::ModulePassManager passes;
  llvm::Error parseError = builder.parsePassPipeline(passes, kPassListPrologue);
  if (!parseError) parseError = builder.parsePassPipeline(passes, pipeline);
  if (parseError) {
    result.failure = FailureKind::InvalidInput;
    result.message = "invalid pass pipeline: " + llvm::toString(std::move(parseError));
    return;
  }
  passes.run(*state.module, analyses.modules);
}

/// The optimization phase: clang's own backend for the recorded level, the
/// ThinLTO backend's pipeline for a ThinLTO module, or a requested pipeline.
void optimize(const CompileRequest &request, CompileState &state, CompileResult &result) {
  clang::CompilerInstance &instance = state.command->instance();
  if (!request.passPipeline.empty()) return runCustomPipeline(state, request.passPipeline, request.hooks, result);
  if (state.thinltoIndex) {
    std::unique_ptr<llvm::TargetMachine> machine = recordedTargetMachine(state, result);
    if (!machine) return;
    return runThinLTOBackendPipeline(*state.module, *state.thinltoIndex, *machine, instance.getCodeGenOpts(),
                                     [&request](llvm::PassBuilder &builder) { registerHooks(builder, request.hooks); });
  }
  clang::CodeGenOptions optimize = instance.getCodeGenOpts();
  optimize.PassBuilderCallbacks.push_back(
      [&request](llvm::PassBuilder &builder) { registerHooks(builder, request.hooks); });
  clang::EmitBackendOutput(instance.getDiagnostics(), instance.getHeaderSearchOpts(), optimize,
                           instance.getTargetOpts(), instance.getLangOpts(), instance.getTarget().getDataLayoutString(),
                           state.module.get(), clang::Backend_EmitNothing, llvm::vfs::getRealFileSystem(), nullptr);
}

std::string joinedCommandLine(const std::vector<std::string> &args) {
  std::string joined;
  for (const std::string &arg : args) joined.append(arg).push_back('\0');
  return joined;
}

/// The code-generation memo key: the optimized IR (as bitcode, which LLVM
/// writes deterministically), the command line that sets the target and
/// code-generation options, and the versions.
std::string codegenMemoKey(const llvm::Module &module, const std::vector<std::string> &commandLine) {
  llvm::SmallString<0> bitcode;
  llvm::raw_svector_ostream stream(bitcode);
  llvm::WriteBitcodeToFile(module, stream);
  return "codegen\n" + CompileMemo::versionTag() + "\n" +
         CompileMemo::hash(std::string_view(bitcode.data(), bitcode.size())) + "\n" +
         CompileMemo::hash(joinedCommandLine(commandLine));
}


bool hooksAffectCodeGeneration(const PipelineHooks &hooks) {
  for (const auto &hook : hooks)
    if (hook->affectsCodeGeneration()) return true;
  return false;
}

bool hooksAffectOptimization(const PipelineHooks &hooks) {
  for (const auto &hook : hooks)
    if (hook->affectsOptimization()) return true;
  return false;
}

/// What a compile's input is, for memo keys: the versions, the bitcode (and
/// ThinLTO index), the recorded command line, the -mllvm options applied to
/// the process (they decide whether the module compiles) and the requested
/// pipeline. Empty when the module cannot be read (never memoized).
/// The module's bitcode (and index) hash, then its command line's: what
/// every key that depends on the module starts with. Empty when a file
/// cannot be read.
std::string moduleInputKey(const CorpusModule &module) {
  if (!module.loadError.empty() || !regularFileProblem(module.bitcodePath).empty()) return {};
  if (!module.thinltoIndexPath.empty() && !regularFileProblem(module.thinltoIndexPath).empty()) return {};
  auto buffer = llvm::MemoryBuffer::getFile(module.bitcodePath.string(), /*IsText=*/false,
                                            /*RequiresNullTerminator=*/false);
  if (!buffer) return {};
  std::string indexHash;
  if (!module.thinltoIndexPath.empty()) {
    auto index = llvm::MemoryBuffer::getFile(module.thinltoIndexPath.string(), /*IsText=*/false,
                                             /*RequiresNullTerminator=*/false);
    if (!index) return {};
    indexHash = CompileMemo::hash((*index)->getBuffer());
  }
  return CompileMemo::hash((*buffer)->getBuffer()) + indexHash + "\n" +
         CompileMemo::hash(joinedCommandLine(module.commandLine)) +
         (module.nameCounter ? "\nnames " + std::to_string(module.nameCounter) : "");
}

std::string inputMemoKey(const CompileRequest &request) {
  const std::string module = moduleInputKey(*request.module);
  if (module.empty()) return {};
  return CompileMemo::versionTag() + "\n" + module + "\n" +
         CompileMemo::hash(joinedCommandLine(appliedBackendOptions())) + "\n" + request.passPipeline + "\n";
}

/// The module as bitcode with its use-list order, so that code generation
/// from the parsed copy is code generation from the module itself.
std::shared_ptr<const std::string> bitcodeOf(const llvm::Module &module) {
  auto bitcode = std::make_shared<std::string>();
  llvm::raw_string_ostream stream(*bitcode);
  llvm::WriteBitcodeToFile(module, stream, /*ShouldPreserveUseListOrder=*/true);
  stream.flush();
  return bitcode;
}

/// The optimization phase, or the optimized IR a compile of the same input
/// left in the memo when no hook takes part in optimization (register
/// allocation's policies): only code generation runs then. The first
/// `verify` hits are optimized anyway and compared with the memo's IR.
void optimizeThroughMemo(const CompileRequest &request, CompileMemo *memo, CompileState &state,
                         CompileResult &result) {
  std::string key;
  if (memo && !tlsBypassMemo && !hooksAffectOptimization(request.hooks)) {
    const std::string input = inputMemoKey(request);
    if (!input.empty()) key = "optimized\n" + input;
  }
  const std::optional<OptimizedModule> known = key.empty() ? std::nullopt : memo->findOptimized(key);
  const bool verify = known && memo->shouldVerify();
  if (known && !verify) {
    auto parsed = llvm::parseBitcodeFile(llvm::MemoryBufferRef(*known->bitcode, request.module->name), state.context);
    if (parsed) {
      state.module = std::move(*parsed);
      result.irInstructions = known->irInstructions;
      return;
    }
    llvm::consumeError(parsed.takeError());  // cannot happen to bitcode LLVM wrote; optimize instead
  }
  const auto start = std::chrono::steady_clock::now();
  optimize(request, state, result);
  if (!result.ok()) return;
  if (state.command->hasErrors() || !state.llvmErrors.empty()) {
    result.failure = FailureKind::CompileError;
    result.message = state.command->diagnostics() + state.llvmErrors;
    return;
  }
  result.irInstructions = countInstructions(*state.module);
  if (key.empty()) return;
  OptimizedModule optimized{bitcodeOf(*state.module), result.irInstructions,
                            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count()};
  if (verify && *optimized.bitcode != *known->bitcode)
    throw MemoMismatch("--verify-cache: optimization of " + request.module->name +
                       ": the memoized optimized IR differs from a fresh optimization; report this");
  memo->storeOptimized(key, std::move(optimized));
}

/// The body of a compile, run inside the crash guard.
void compileContained(const CompileRequest &request, const FaultInjection &faults, CompileMemo *memo,
                      CompileState &state, CompileResult &result) {
  const CorpusModule &module = *request.module;
  auto fail = [&](FailureKind kind, std::string message) {
    result.failure = kind;
    result.message = std::move(message);
  };
  std::string error;
  const bool thinltoModule = !module.thinltoIndexPath.empty();
  state.command = RecordedCommand::parse(module.commandLine, module.bitcodePath.string(), thinltoModule, error);
  if (!state.command) return fail(FailureKind::InvalidInput, error);
  if (backendOptionsOf(module.commandLine) != appliedBackendOptions())
    return fail(FailureKind::InvalidInput,
                "its -mllvm options differ from the set applied to this process (LLVM keeps them process-wide)");

  for (const std::filesystem::path &input : {module.bitcodePath, module.thinltoIndexPath})
    if (!input.empty())
      if (const std::string problem = regularFileProblem(input); !problem.empty())
        return fail(FailureKind::InvalidInput, input.string() + ": " + problem);
  auto buffer = llvm::MemoryBuffer::getFile(module.bitcodePath.string(), /*IsText=*/false,
                                            /*RequiresNullTerminator=*/false);
  if (!buffer) return fail(FailureKind::InvalidInput, "cannot read " + module.bitcodePath.string() + ": " +
                                                          buffer.getError().message());
  state.context.setDiagnosticHandler(std::make_unique<CapturingDiagnosticHandler>(state.llvmErrors));
  auto parsed = llvm::parseBitcodeFile((*buffer)->getMemBufferRef(), state.context);
  if (!parsed) return fail(FailureKind::InvalidInput, "invalid bitcode: " + llvm::toString(parsed.takeError()));
  state.module = std::move(*parsed);
  continueNameCounter(*state.module, module.nameCounter);
  std::string verifierMessage;
  llvm::raw_string_ostream verifierStream(verifierMessage);
  if (!module.fromOwnFrontend && llvm::verifyModule(*state.module, &verifierStream))
    return fail(FailureKind::VerifierError, "module fails the IR verifier: " + verifierStream.str());
  if (thinltoModule) {
    state.thinltoIndex = loadThinLTOIndex(module.thinltoIndexPath, *state.module, error);
    if (!state.thinltoIndex) return fail(FailureKind::InvalidInput, error);
  }

  // Set by the poisoned module's compile: every later compile of the process crashes.
  static std::atomic<bool> poisoned{false};
  if ((!faults.crashModule.empty() && module.name == faults.crashModule) || poisoned) {
    volatile int *null = nullptr;
    *null = 1;
  }
  if (!faults.poisonModule.empty() && module.name == faults.poisonModule) poisoned = true;
  if (!faults.hangModule.empty() && module.name == faults.hangModule) {
    for (volatile bool spin = true; spin;) {
    }
  }
  if (!faults.heapCorruptionModule.empty() && module.name == faults.heapCorruptionModule) {
    // Large enough to skip glibc's tcache and fast bins: the second free is
    // caught in _int_free with the arena locked, and glibc aborts.
    char *volatile first = static_cast<char *>(std::malloc(4096));
    char *volatile second = static_cast<char *>(std::malloc(4096));
    std::free(first);
    std::free(first);
    std::free(second);
  }

  // What clang's CodeGenAction does to an IR input before its backend runs.
  clang::CompilerInstance &instance = state.command->instance();
  const clang::TargetOptions &targetOptions = instance.getTargetOpts();
  if (state.module->getTargetTriple() != targetOptions.Triple)
    state.module->setTargetTriple(targetOptions.Triple);
  state.context.setDiscardValueNames(false);
  state.context.setDefaultTargetCPU(targetOptions.CPU);
  state.context.setDefaultTargetFeatures(joinFeatures(targetOptions.Features));

  beginHooks(request.hooks);

  // Phase 1, optimization only, so the IR can be measured between the two.
  // Running clang's backend twice (once without codegen, once codegen only)
  // gives the same object as one run: the module is all that passes between.
  optimizeThroughMemo(request, memo, state, result);
  if (!result.ok()) return;

  // Optimized IR seen before: its object is known.
  std::string codegenKey;
  std::optional<CompileResult> knownCode;
  if (memo && !tlsBypassMemo && !hooksAffectCodeGeneration(request.hooks) && memo->codegenWorthLooking()) {
    codegenKey = codegenMemoKey(*state.module, module.commandLine);
    knownCode = memo->find(CompileMemo::Kind::Codegen, codegenKey);
    if (knownCode && !memo->shouldVerify()) {
      result.sizes = knownCode->sizes;
      result.codegenFromMemo = true;
      return;
    }
  }

  // Phase 2, code generation into memory.
  const auto codegenStart = std::chrono::steady_clock::now();
  clang::CodeGenOptions generate = instance.getCodeGenOpts();
  generate.DisableLLVMPasses = true;
  generate.PassBuilderCallbacks.push_back([](llvm::PassBuilder &builder) { registerHooks(builder, {}); });
  llvm::SmallString<0> object;
  clang::EmitBackendOutput(instance.getDiagnostics(), instance.getHeaderSearchOpts(), generate, targetOptions,
                           instance.getLangOpts(), instance.getTarget().getDataLayoutString(), state.module.get(),
                           clang::Backend_EmitObj, llvm::vfs::getRealFileSystem(),
                           std::make_unique<llvm::raw_svector_ostream>(object));
  if (state.command->hasErrors() || !state.llvmErrors.empty())
    return fail(FailureKind::CompileError, state.command->diagnostics() + state.llvmErrors);
  std::string sizeError;
  if (!measureObjectSizes(std::string_view(object.data(), object.size()), result.sizes, sizeError))
    return fail(FailureKind::CompileError, "cannot read the object produced: " + sizeError);
  for (const auto &hook : request.hooks) hook->objectEmitted(std::string_view(object.data(), object.size()));
  if (codegenKey.empty()) return;
  CompileResult generated;
  generated.sizes = result.sizes;
  generated.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - codegenStart).count();
  if (knownCode) memo->verifyHit("code generation of " + module.name, *knownCode, generated);
  memo->store(CompileMemo::Kind::Codegen, codegenKey, generated);
}

}  // namespace

CompilerDriver::CompilerDriver(DriverOptions options) : options_(std::move(options)) {
  initializeLLVMTargets();
}

CompileResult CompilerDriver::compile(const CompileRequest &request) const {
  // Injected faults (tests) must happen, not be remembered away.
  if (options_.faults.any()) return compileFresh(request);
  return throughMemo(options_.memo.get(), request, [&] { return compileFresh(request); });
}

CompileResult CompilerDriver::throughMemo(CompileMemo *memo, const CompileRequest &request,
                                          const std::function<CompileResult()> &compile) {
  const std::string key = memo ? requestMemoKey(request) : std::string();
  if (key.empty()) return compile();
  const auto start = std::chrono::steady_clock::now();
  if (std::optional<CompileResult> known = memo->find(CompileMemo::Kind::Request, key)) {
    if (memo->shouldVerify()) {
      tlsBypassMemo = true;
      const CompileResult fresh = compile();
      tlsBypassMemo = false;
      memo->verifyHit(request.module->name, *known, fresh);
    }
    known->seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return *known;
  }
  CompileResult result = compile();
  memo->store(CompileMemo::Kind::Request, key, result);
  return result;
}

std::string CompilerDriver::requestMemoKey(const CompileRequest &request) {
  std::string hookKeys;
  for (const auto &hook : request.hooks) {
    const std::string hookKey = hook->memoKey();
    if (hookKey.empty()) return {};
    hookKeys += hookKey + "\n";
  }
  const std::string input = inputMemoKey(request);
  return input.empty() ? std::string() : "request\n" + input + hookKeys;
}

std::string CompilerDriver::moduleFingerprint(const CorpusModule &module) {
  const std::string key = moduleInputKey(module);
  return key.empty() ? std::string() : CompileMemo::hash(key);
}

static uint64_t decisionsTaken(const PipelineHooks &hooks) {
  uint64_t total = 0;
  for (const auto &hook : hooks) total += hook->decisionsTaken();
  return total;
}

CompileResult CompilerDriver::compileFresh(const CompileRequest &request) const {
  CompileResult result;
  const uint64_t decisionsBefore = decisionsTaken(request.hooks);
  const auto start = std::chrono::steady_clock::now();
  const CorpusModule &module = *request.module;
  if (!module.loadError.empty()) {
    result.failure = FailureKind::InvalidInput;
    result.message = module.loadError;
    return result;
  }
  // After a contained failure the state is abandoned, not destroyed: LLVM
  // objects left half-way through a pass are not safe to tear down.
  auto *state = new CompileState();
  ContainedOutcome outcome = runContained(
      [&] { compileContained(request, options_.faults, options_.memo.get(), *state, result); }, options_.timeout);
  endHooks(request.hooks);
  if (outcome.failure == FailureKind::None) {
    delete state;
  } else {
    result.failure = outcome.failure;
    result.message = outcome.message;
  }
  result.decisions = decisionsTaken(request.hooks) - decisionsBefore;
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

std::vector<CompileResult> CompilerDriver::compileAll(const std::vector<CompileRequest> &requests,
                                                      const Progress &progress) const {
  std::vector<CompileResult> results(requests.size());
  std::mutex progressMutex;
  size_t done = 0;
  parallelFor(requests.size(), options_.threads, [&](size_t i) {
    results[i] = compile(requests[i]);
    if (progress) {
      std::lock_guard<std::mutex> lock(progressMutex);
      progress(++done, requests.size());
    }
  });
  return results;
}

void CompilerDriver::validatePassPipeline(const std::string &pipeline) {
  initializeLLVMTargets();
  llvm::PassBuilder builder;
  llvm::ModulePassManager passes;
  if (llvm::Error error = builder.parsePassPipeline(passes, pipeline))
    throw UsageError("invalid pass pipeline \"" + pipeline + "\": " + llvm::toString(std::move(error)));
}

std::vector<std::string> applyCorpusBackendOptions(const Corpus &corpus) {
  std::map<std::vector<std::string>, size_t> counts;
  for (const CorpusModule &module : corpus.modules) {
    const std::vector<std::string> options = backendOptionsOf(module.commandLine);
    // A module recording a refused option fails alone, naming it.
    if (std::none_of(options.begin(), options.end(),
                     [](const std::string &option) { return !refusedBackendOption(option).empty(); }))
      ++counts[options];
  }
  std::vector<std::string> chosen;
  size_t best = 0;
  for (const auto &[options, count] : counts)
    if (count > best) {
      best = count;
      chosen = options;
    }
  applyBackendOptions(chosen);
  return chosen;
}

}  // namespace mlgo
