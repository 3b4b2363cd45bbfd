#include "support/test_environment.h"

#include <atomic>
#include <unistd.h>

#include "mlgo/corpus/extract_ir.h"
#include "mlgo/problems/problem.h"
#include "mlgo/trace/default_trace.h"
#include "mlgo/vocab/gen_vocab.h"
#include "mlgo/support/atomic_file.h"
#include "mlgo/support/subprocess.h"

namespace mlgo::test {

namespace fs = std::filesystem;

fs::path testProject() { return MLGO_TEST_PROJECT; }
fs::path testData() { return MLGO_TEST_DATA; }
std::string clangPath() { return MLGO_CLANG; }
std::string mlgoBinary() { return MLGO_BINARY; }

ScratchDirectory::ScratchDirectory() {
  static std::atomic<unsigned> counter{0};
  path_ = fs::temp_directory_path() /
          ("mlgo-test-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
  fs::remove_all(path_);
  fs::create_directories(path_);
}

ScratchDirectory::~ScratchDirectory() {
  std::error_code ignored;
  fs::remove_all(path_, ignored);
}

Corpus extractTestCorpus(const fs::path &directory) {
  ExtractOptions options;
  options.input = testProject() / "compile_commands.json";
  options.outputDirectory = directory;
  extractIR(options);
  return Corpus::load(directory);
}

void traceCorpus(const Corpus &corpus, const fs::path &trace, const fs::path &vocab) {
  DefaultTraceOptions options;
  options.output = trace;
  runDefaultTrace(corpus, CompilerDriver({}), findProblem("inlining"), options);
  if (vocab.empty()) return;
  GenVocabOptions vocabOptions;
  vocabOptions.trace = trace;
  vocabOptions.outputDirectory = vocab;
  generateVocab(vocabOptions);
}

void writeModule(const fs::path &corpus, const std::string &name, const std::string &bitcode,
                 const std::vector<std::string> &commandLine) {
  writeFileAtomically(corpus / (name + ".bc"), bitcode);
  writeFileAtomically(corpus / (name + ".cmd"), formatRecordedCommandLine(commandLine));
}

const CorpusModule &moduleNamed(const Corpus &corpus, const std::string &name) {
  for (const CorpusModule &module : corpus.modules)
    if (module.name == name) return module;
  throw std::runtime_error("no module " + name + " in the test corpus");
}

CommandOutcome runProgram(const std::string &program, const std::vector<std::string> &args) {
  ScratchDirectory scratch;
  const std::string out = (scratch / "stdout").string();
  std::vector<std::string> argv{program};
  argv.insert(argv.end(), args.begin(), args.end());
  const ProcessOutcome process = runProcess(argv, std::chrono::minutes(5), out);
  CommandOutcome outcome;
  outcome.exitCode = process.started && !process.timedOut && process.signal == 0 ? process.exitCode : -1;
  outcome.out = readFile(out);
  outcome.err = process.started ? process.stderrText : process.error;
  return outcome;
}

TracedTestCorpus::TracedTestCorpus() {
  corpus = extractTestCorpus(scratch / "corpus");
  traceCorpus(corpus, scratch / "trace", scratch / "vocab");
}

}  // namespace mlgo::test
