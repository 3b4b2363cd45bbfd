#include <catch2/catch.hpp>

#include <llvm/Bitcode/BitcodeWriter.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/Support/CommandLine.h>
#include <llvm/Support/raw_ostream.h>
#include <sys/stat.h>

#include "mlgo/driver/compiler_driver.h"
#include "mlgo/driver/object_capture.h"
#include "mlgo/eval/clang_subprocess.h"
#include "mlgo/problems/inlining/fixed_policies.h"
#include "mlgo/problems/inlining/inlining_hook.h"
#include "mlgo/support/atomic_file.h"
#include "mlgo/support/errors.h"
#include "support/test_environment.h"

using namespace mlgo;
using namespace std::chrono_literals;
using Catch::Matchers::Contains;
namespace fs = std::filesystem;

namespace {

std::vector<CompileRequest> requestsFor(const Corpus &corpus) {
  std::vector<CompileRequest> requests;
  for (const CorpusModule &module : corpus.modules) requests.push_back({&module, "", {}});
  return requests;
}

CompileResult compileWithPolicy(const CompilerDriver &driver, const CorpusModule &module,
                                inlining::FixedChoice choice) {
  CompileRequest request{&module, "", {}};
  request.hooks.push_back(std::make_shared<inlining::InliningHook>(inlining::makeFixedPolicy(choice)));
  return driver.compile(request);
}

/// Bitcode of a module that parses but fails the verifier (void function
/// returning an i32), written with LLVM's own writer.
std::string invalidModuleBitcode() {
  llvm::LLVMContext context;
  llvm::Module module("broken", context);
  auto *function = llvm::Function::Create(llvm::FunctionType::get(llvm::Type::getVoidTy(context), false),
                                          llvm::Function::ExternalLinkage, "broken", module);
  llvm::IRBuilder<> builder(llvm::BasicBlock::Create(context, "entry", function));
  builder.CreateRet(builder.getInt32(0));
  std::string bytes;
  llvm::raw_string_ostream stream(bytes);
  llvm::WriteBitcodeToFile(module, stream);
  return stream.str();
}

}  // namespace

TEST_CASE("driver: .text equals clang-19 -cc1 on every test module", "[driver][fidelity]") {
  test::ScratchDirectory scratch;
  Corpus corpus = test::extractTestCorpus(scratch / "corpus");
  CompilerDriver driver({});
  for (const CorpusModule &module : corpus.modules) {
    INFO(module.name);
    CompileResult ours = driver.compile({&module, "", {}});
    REQUIRE(ours.ok());
    CompileResult clang = compileWithClangSubprocess(test::clangPath(), module, scratch.path(), 60s);
    REQUIRE(clang.ok());
    CHECK(ours.sizes.text == clang.sizes.text);
    CHECK(ours.sizes.textPlusData() == clang.sizes.textPlusData());
    CHECK((ours.irInstructions > 0) == (module.name != "tables.o"));
  }
}

TEST_CASE("driver: results do not depend on the thread count", "[driver][determinism]") {
  test::ScratchDirectory scratch;
  Corpus corpus = test::extractTestCorpus(scratch / "corpus");
  DriverOptions one, four;
  one.threads = 1;
  four.threads = 4;
  auto a = CompilerDriver(one).compileAll(requestsFor(corpus));
  auto b = CompilerDriver(four).compileAll(requestsFor(corpus));
  REQUIRE(a.size() == b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    CHECK(a[i].sizes.text == b[i].sizes.text);
    CHECK(a[i].sizes.textPlusData() == b[i].sizes.textPlusData());
    CHECK(a[i].irInstructions == b[i].irInstructions);
  }
}

TEST_CASE("driver: never and always inlining are larger than the default where expected", "[driver][inlining]") {
  test::ScratchDirectory scratch;
  Corpus corpus = test::extractTestCorpus(scratch / "corpus");
  CompilerDriver driver({});
  // helpers.c: small helpers the heuristic inlines; not inlining them costs.
  const CorpusModule &helpers = test::moduleNamed(corpus, "helpers.o");
  const uint64_t helpersDefault = driver.compile({&helpers, "", {}}).sizes.text;
  CHECK(compileWithPolicy(driver, helpers, inlining::FixedChoice::Never).sizes.text > helpersDefault);
  // big_callee.c: one big function with six callers; copying it costs.
  const CorpusModule &big = test::moduleNamed(corpus, "big_callee.o");
  const uint64_t bigDefault = driver.compile({&big, "", {}}).sizes.text;
  CHECK(compileWithPolicy(driver, big, inlining::FixedChoice::Always).sizes.text > bigDefault);
  // Over the corpus, the default beats both extremes.
  uint64_t never = 0, always = 0, heuristic = 0;
  for (const CorpusModule &module : corpus.modules) {
    heuristic += driver.compile({&module, "", {}}).sizes.text;
    never += compileWithPolicy(driver, module, inlining::FixedChoice::Never).sizes.text;
    always += compileWithPolicy(driver, module, inlining::FixedChoice::Always).sizes.text;
  }
  CHECK(never > heuristic);
  CHECK(always > heuristic);
}

TEST_CASE("driver: the default heuristic through the hook reproduces -Oz", "[driver][inlining]") {
  test::ScratchDirectory scratch;
  Corpus corpus = test::extractTestCorpus(scratch / "corpus");
  CompilerDriver driver({});
  for (const CorpusModule &module : corpus.modules) {
    INFO(module.name);
    CompileResult plain = driver.compile({&module, "", {}});
    CompileRequest hooked{&module, "", {}};
    auto hook = std::make_shared<inlining::InliningHook>(inlining::makeFixedPolicy(inlining::FixedChoice::Default));
    hooked.hooks.push_back(hook);
    CompileResult viaHook = driver.compile(hooked);
    CHECK(viaHook.sizes.text == plain.sizes.text);
    CHECK(viaHook.irInstructions == plain.irInstructions);
    if (module.name == "helpers.o" || module.name == "shapes.o") CHECK(hook->decisions() > 0);
  }
}

TEST_CASE("driver: a crash and a hang in one module never end the run", "[driver][containment]") {
  test::ScratchDirectory scratch;
  Corpus corpus = test::extractTestCorpus(scratch / "corpus");
  const auto clean = CompilerDriver({}).compileAll(requestsFor(corpus));
  DriverOptions options;
  options.threads = 2;
  // Long enough that the healthy modules finish even on a loaded machine
  // (this is no timing assertion: only the hang may reach it).
  options.timeout = 5000ms;
  options.faults.crashModule = "helpers.o";
  options.faults.hangModule = "sub/list.o";
  const auto faulty = CompilerDriver(options).compileAll(requestsFor(corpus));
  for (size_t i = 0; i < corpus.modules.size(); ++i) {
    const std::string &name = corpus.modules[i].name;
    INFO(name);
    if (name == "helpers.o") {
      CHECK(faulty[i].failure == FailureKind::Crash);
      CHECK_THAT(faulty[i].message, Contains("SIGSEGV"));
    } else if (name == "sub/list.o") {
      CHECK(faulty[i].failure == FailureKind::Timeout);
    } else {
      REQUIRE(faulty[i].ok());
      CHECK(faulty[i].sizes.text == clean[i].sizes.text);
    }
  }
}

TEST_CASE("driver: a pipeline running past --timeout is stopped between passes", "[driver][containment]") {
  test::ScratchDirectory scratch;
  Corpus corpus = test::extractTestCorpus(scratch / "corpus");
  DriverOptions options;
  options.timeout = 1ms;
  // The timeout counts CPU time: fifty -O2 pipelines take far more than 1 ms of it.
  std::string pipeline = "default<O2>";
  for (int i = 1; i < 50; ++i) pipeline += ",default<O2>";
  CompileResult result = CompilerDriver(options).compile({&test::moduleNamed(corpus, "shapes.o"), pipeline, {}});
  CHECK(result.failure == FailureKind::Timeout);
  CHECK_THAT(result.message, Contains("of CPU time"));
}

TEST_CASE("driver: bad modules fail alone with a reason", "[driver][errors]") {
  test::ScratchDirectory scratch;
  Corpus extracted = test::extractTestCorpus(scratch / "corpus");
  const std::vector<std::string> commandLine = test::moduleNamed(extracted, "helpers.o").commandLine;
  const fs::path dir = scratch / "bad";
  test::writeModule(dir, "garbage.o", "not bitcode at all", commandLine);
  test::writeModule(dir, "unverified.o", invalidModuleBitcode(), commandLine);
  test::writeModule(dir, "bad_asm.o", readFile(test::testProject() / "bad_asm.bc"), commandLine);
  test::writeModule(dir, "unknown_flag.o", readFile(test::testProject() / "bad_asm.bc"),
                    {"-cc1", "-triple", "x86_64-pc-linux-gnu", "-no-such-flag-for-clang", "-Oz"});
  writeCorpusDescription(dir, {"garbage.o", "unverified.o", "bad_asm.o", "unknown_flag.o", "missing.o"}, false);
  Corpus corpus = Corpus::load(dir);
  CompilerDriver driver({});
  auto results = driver.compileAll(requestsFor(corpus));
  CHECK(results[0].failure == FailureKind::InvalidInput);
  CHECK_THAT(results[0].message, Contains("invalid bitcode"));
  CHECK(results[1].failure == FailureKind::VerifierError);
  CHECK_THAT(results[1].message, Contains("verifier"));
  CHECK(results[2].failure == FailureKind::CompileError);
  CHECK_THAT(results[2].message, Contains("not_an_instruction"));
  CHECK(results[3].failure == FailureKind::InvalidInput);
  CHECK_THAT(results[3].message, Contains("-no-such-flag-for-clang"));
  CHECK(results[4].failure == FailureKind::InvalidInput);
  CHECK_THAT(results[4].message, Contains("missing.o.cmd"));
}

TEST_CASE("driver: recorded command lines that load code or touch files are refused", "[driver][security]") {
  test::ScratchDirectory scratch;
  Corpus extracted = test::extractTestCorpus(scratch / "corpus");
  const CorpusModule &helpers = test::moduleNamed(extracted, "helpers.o");
  const std::string bitcode = readFile(helpers.bitcodePath);
  const std::vector<std::pair<std::string, std::vector<std::string>>> cases = {
      {"-load", {"-load", "/tmp/evil.so"}},
      {"-fpass-plugin", {"-fpass-plugin=/tmp/evil.so"}},
      {"-mllvm -load", {"-mllvm", "-load=/tmp/evil.so"}},
      {"-mllvm -load-pass-plugin", {"-mllvm", "--load-pass-plugin=/tmp/evil.so"}},
      {"-add-plugin", {"-add-plugin", "evil"}},
      {"-fprofile-instrument-use-path", {"-fprofile-instrument-use-path=/etc/passwd"}},
      {"-split-dwarf-output", {"-split-dwarf-output", "/tmp/out.dwo"}},
      {"-fembed-offload-object", {"-fembed-offload-object=/etc/passwd"}},
      {"-fcuda-include-gpubinary", {"-fcuda-include-gpubinary", "/etc/passwd"}},
      {"-fsanitize-ignorelist", {"-fsanitize-ignorelist=/etc/passwd"}},
      {"-fsanitize-system-ignorelist", {"-fsanitize-system-ignorelist=/etc/passwd"}},
      {"-fsanitize-coverage-allowlist", {"-fsanitize-coverage-allowlist=/etc/passwd"}},
      {"-fsanitize-coverage-ignorelist", {"-fsanitize-coverage-ignorelist=/etc/passwd"}},
      {"-fxray-always-instrument", {"-fxray-always-instrument=/etc/passwd"}},
      {"-fxray-never-instrument", {"-fxray-never-instrument=/etc/passwd"}},
      {"-fxray-attr-list", {"-fxray-attr-list=/etc/passwd"}},
  };
  const fs::path dir = scratch / "hostile";
  std::vector<std::string> names;
  for (size_t i = 0; i < cases.size(); ++i) {
    std::vector<std::string> commandLine = helpers.commandLine;
    commandLine.insert(commandLine.end(), cases[i].second.begin(), cases[i].second.end());
    names.push_back("m" + std::to_string(i) + ".o");
    test::writeModule(dir, names.back(), bitcode, commandLine);
  }
  writeCorpusDescription(dir, names, false);
  Corpus corpus = Corpus::load(dir);
  CompilerDriver driver({});
  for (size_t i = 0; i < cases.size(); ++i) {
    INFO(cases[i].first);
    CompileResult result = driver.compile({&corpus.modules[i], "", {}});
    CHECK(result.failure == FailureKind::InvalidInput);
    CHECK_THAT(result.message, Contains("refused"));
  }
  CHECK_FALSE(fs::exists("/tmp/out.dwo"));
}

TEST_CASE("driver: a module whose command line is empty or not clang's cc1 command fails", "[driver][errors]") {
  test::ScratchDirectory scratch;
  Corpus extracted = test::extractTestCorpus(scratch / "corpus");
  const CorpusModule &tables = test::moduleNamed(extracted, "tables.o");
  const std::string bitcode = readFile(tables.bitcodePath);
  const std::vector<std::vector<std::string>> commandLines = {
      {}, {"hello", "world"}, {"-cc1", "-Oz"}, {"-Oz", "-triple", "x86_64-pc-linux-gnu"}};
  const fs::path dir = scratch / "bad-commands";
  std::vector<std::string> names;
  for (size_t i = 0; i < commandLines.size(); ++i) {
    names.push_back("m" + std::to_string(i) + ".o");
    test::writeModule(dir, names.back(), bitcode, commandLines[i]);
  }
  writeCorpusDescription(dir, names, false);
  Corpus corpus = Corpus::load(dir);
  CompilerDriver driver({});
  for (size_t i = 0; i < commandLines.size(); ++i) {
    INFO(i);
    const CompileResult result = driver.compile({&corpus.modules[i], "", {}});
    CHECK(result.failure == FailureKind::InvalidInput);
    CHECK_THAT(result.message, Contains("not clang's cc1 command"));
  }
  // Its own command line compiles it.
  CHECK(driver.compile({&tables, "", {}}).ok());
}

TEST_CASE("driver: a profile path is refused before anything opens it", "[driver][security]") {
  test::ScratchDirectory scratch;
  Corpus extracted = test::extractTestCorpus(scratch / "corpus");
  const CorpusModule &helpers = test::moduleNamed(extracted, "helpers.o");
  const std::string bitcode = readFile(helpers.bitcodePath);
  // A FIFO blocks whoever opens it for reading: clang's parser used to open
  // the profile to learn its kind, so this compile would hang until the
  // timeout instead of being refused.
  const fs::path fifo = scratch / "profile.fifo";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  writeFileAtomically(scratch / "exists.profdata", "not a profile");
  const std::vector<std::string> paths = {(scratch / "exists.profdata").string(),
                                          (scratch / "missing.profdata").string(), fifo.string()};
  const fs::path dir = scratch / "hostile";
  std::vector<std::string> names;
  for (size_t i = 0; i < paths.size(); ++i) {
    for (const char *spelling : {"-fprofile-instrument-use-path=", "-fprofile-sample-use="}) {
      std::vector<std::string> commandLine = helpers.commandLine;
      commandLine.push_back(spelling + paths[i]);
      names.push_back("m" + std::to_string(names.size()) + ".o");
      test::writeModule(dir, names.back(), bitcode, commandLine);
    }
  }
  writeCorpusDescription(dir, names, false);
  Corpus corpus = Corpus::load(dir);
  DriverOptions options;
  options.timeout = 20s;
  CompilerDriver driver(options);
  std::vector<std::string> messages;
  for (const CorpusModule &module : corpus.modules) {
    CompileResult result = driver.compile({&module, "", {}});
    INFO(module.name << ": " << result.message);
    CHECK(result.failure == FailureKind::InvalidInput);
    CHECK_THAT(result.message, Contains("refused") && Contains("outside the corpus"));
    std::string message = result.message;
    message.erase(message.find(scratch.path().string()));  // the path differs, nothing else may
    messages.push_back(message);
  }
  // Whether the file exists, is missing or is a FIFO: the same answer.
  for (size_t i = 2; i < messages.size(); ++i) CHECK(messages[i] == messages[i % 2]);
}

TEST_CASE("driver: -mllvm options off the allow-list fail their module and write nothing", "[driver][security]") {
  test::ScratchDirectory scratch;
  Corpus extracted = test::extractTestCorpus(scratch / "corpus");
  const CorpusModule &helpers = test::moduleNamed(extracted, "helpers.o");
  const std::string bitcode = readFile(helpers.bitcodePath);
  const fs::path dumps = scratch / "dumps";
  const fs::path info = scratch / "info.txt";
  fs::create_directories(dumps);
  writeFileAtomically(info, "kept\n");
  const fs::path dir = scratch / "hostile";
  std::vector<std::string> dumping = helpers.commandLine;
  dumping.insert(dumping.end(), {"-mllvm", "-print-after-all", "-mllvm", "-ir-dump-directory=" + dumps.string()});
  std::vector<std::string> timing = helpers.commandLine;
  timing.insert(timing.end(), {"-mllvm", "-time-passes", "-mllvm", "-info-output-file=" + info.string()});
  test::writeModule(dir, "plain.o", bitcode, helpers.commandLine);
  test::writeModule(dir, "plain2.o", bitcode, helpers.commandLine);
  test::writeModule(dir, "dumping.o", bitcode, dumping);
  test::writeModule(dir, "timing.o", bitcode, timing);
  writeCorpusDescription(dir, {"plain.o", "plain2.o", "dumping.o", "timing.o"}, false);
  Corpus corpus = Corpus::load(dir);
  // The set most modules share is applied (none here); the hostile ones are
  // not applied to the process, and fail alone.
  CHECK(applyCorpusBackendOptions(corpus).empty());
  CompilerDriver driver({});
  auto results = driver.compileAll(requestsFor(corpus));
  CHECK(results[0].ok());
  CHECK(results[1].ok());
  CHECK(results[2].failure == FailureKind::InvalidInput);
  CHECK_THAT(results[2].message, Contains("-print-after-all"));
  CHECK(results[3].failure == FailureKind::InvalidInput);
  CHECK_THAT(results[3].message, Contains("-time-passes"));
  CHECK(fs::is_empty(dumps));
  CHECK(readFile(info) == "kept\n");
}

TEST_CASE("driver: the hook answering the default equals -Oz where LLVM's advisor would stop inlining",
          "[driver][inlining][fidelity]") {
  test::ScratchDirectory scratch;
  Corpus corpus = test::singleSourceCorpus(scratch / "advisor", test::testData() / "advisor" / "stack_machine.c");
  CompilerDriver driver({});
  const CompileResult oz = driver.compile({&corpus.modules[0], "", {}});
  REQUIRE(oz.ok());
  auto hookDefault = [&] { return compileWithPolicy(driver, corpus.modules[0], inlining::FixedChoice::Default); };
  inlining::installInliningAdvisor();
  auto &threshold = *static_cast<llvm::cl::opt<float> *>(
      llvm::cl::getRegisteredOptions()[inlining::kAdvisorSizeOptionName]);
  CHECK(threshold.getValue() == std::stof(inlining::kAdvisorSizeOptionValue));
  const CompileResult withMlgosSetting = hookDefault();
  REQUIRE(withMlgosSetting.ok());
  CHECK(withMlgosSetting.sizes.text == oz.sizes.text);
  // LLVM's default: the module is one that makes the advisor stop, so the
  // same answers give a larger module.
  const float mlgoValue = threshold.getValue();
  threshold.setValue(2.0f);
  const CompileResult withLLVMDefault = hookDefault();
  threshold.setValue(mlgoValue);
  REQUIRE(withLLVMDefault.ok());
  CHECK(withLLVMDefault.sizes.text > oz.sizes.text);
}

TEST_CASE("driver: an opt pipeline replaces the recorded level", "[driver][pipeline]") {
  test::ScratchDirectory scratch;
  Corpus corpus = test::extractTestCorpus(scratch / "corpus");
  CompilerDriver driver({});
  const CorpusModule &helpers = test::moduleNamed(corpus, "helpers.o");
  CompileResult recorded = driver.compile({&helpers, "", {}});
  CompileResult none = driver.compile({&helpers, "function(no-op-function)", {}});
  CompileResult oz = driver.compile({&helpers, "default<Oz>", {}});
  REQUIRE(none.ok());
  REQUIRE(oz.ok());
  // Without optimization the IR keeps every call and load: far more of it.
  CHECK(none.irInstructions > recorded.irInstructions);
  CHECK(oz.irInstructions < none.irInstructions);
  CHECK_THROWS_AS(CompilerDriver::validatePassPipeline("no-such-pass"), UsageError);
  CHECK_NOTHROW(CompilerDriver::validatePassPipeline("module(constmerge),function(instcombine<no-verify-fixpoint>)"));
  CompileResult invalid = driver.compile({&helpers, "no-such-pass", {}});
  CHECK(invalid.failure == FailureKind::InvalidInput);
}

TEST_CASE("driver: a pass list with no inliner still inlines every always_inline function", "[driver][pipeline]") {
  test::ScratchDirectory scratch;
  const Corpus corpus = test::singleSourceCorpus(scratch / "corpus", test::testData() / "always_inline.c");
  CompilerDriver driver({});
  auto definedSymbols = [&](const std::string &pipeline) {
    auto capture = std::make_shared<ObjectCapture>();
    CompileRequest request{&corpus.modules.front(), pipeline, {capture}};
    const CompileResult result = driver.compile(request);
    REQUIRE(result.ok());
    const fs::path object = scratch / "unit.o";
    writeFileAtomically(object, capture->object());
    const test::CommandOutcome nm = test::runIn(scratch.path(), {"llvm-nm-19", "--defined-only", object.string()});
    REQUIRE(nm.exitCode == 0);
    return nm.out;
  };
  for (const std::string pipeline : {"function(sroa)", "function(instcombine<no-verify-fixpoint>)", "globaldce"}) {
    INFO(pipeline);
    const std::string symbols = definedSymbols(pipeline);
    CHECK_THAT(symbols, Contains(" T hash_all"));
    CHECK_THAT(symbols, Contains(" T hash_pair"));
    // Inlined everywhere and then dropped, as clang's own pipelines leave them.
    CHECK_THAT(symbols, !Contains(" mix"));
    CHECK_THAT(symbols, !Contains(" fold"));
  }
}
