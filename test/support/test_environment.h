#pragma once
// What the tests share: the test project built by CMake with the real
// clang-19, a corpus extracted from it, scratch directories, and a way to run
// the real mlgo binary.
#include <filesystem>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "mlgo/corpus/corpus.h"
#include "mlgo/driver/compiler_driver.h"
#include "mlgo/policy/yes_no_policy.h"
#include "mlgo/policy/position_policy.h"
#include "mlgo/policy/continuous_policy.h"
#include "mlgo/problems/inlining/inlining_policy.h"

namespace mlgo::test {

std::filesystem::path testProject();          ///< objects + compile_commands.json
std::filesystem::path testData();             ///< the C/C++ sources
std::string clangPath();
/// Runs clang-19 as a C++17 compiler with warnings as errors (-O2 -Wall
/// -Wextra -Werror) on `arguments`; throws std::runtime_error with its
/// output when it fails (a test then fails showing why).
void compileCxx(const std::vector<std::string> &arguments);
std::string mlgoBinary();

/// A fresh directory removed at scope exit.
class ScratchDirectory {
 public:
  ScratchDirectory();
  ~ScratchDirectory();
  const std::filesystem::path &path() const { return path_; }
  std::filesystem::path operator/(const std::string &name) const { return path_ / name; }

 private:
  std::filesystem::path path_;
};

/// Extracts the test project into `directory` and loads it.
Corpus extractTestCorpus(const std::filesystem::path &directory);

/// Writes the default-heuristic trace of `corpus` to `trace` and, when
/// `vocab` is not empty, its vocab (1000 buckets) to `vocab`.
void traceCorpus(const Corpus &corpus, const std::filesystem::path &trace, const std::filesystem::path &vocab = {});

/// The test project extracted into scratch/corpus, with its default trace in
/// scratch/trace and its vocab in scratch/vocab: what training tests start from.
struct TracedTestCorpus {
  ScratchDirectory scratch;
  Corpus corpus;
  TracedTestCorpus();
  std::filesystem::path operator/(const std::string &name) const { return scratch / name; }
};

/// `mlgo train-ppo` arguments for a small, quick run on the traced test
/// corpus (5 modules per iteration, 40 gradient steps) into scratch/output.
std::vector<std::string> trainPPOArguments(const TracedTestCorpus &traced, const std::string &output, int iterations,
                                           unsigned threads);

/// Passes decisions through to another policy and records each (features and
/// decision) in order: compare two ways of deciding with one compile thread.
class RecordingPolicy final : public inlining::Policy {
 public:
  explicit RecordingPolicy(std::shared_ptr<const inlining::Policy> inner) : inner_(std::move(inner)) {}
  bool decide(const inlining::DecisionInput &input) const override;
  mutable std::vector<bool> decisions;
  mutable std::vector<int64_t> features;  ///< decision-major

 private:
  std::shared_ptr<const inlining::Policy> inner_;
};

/// An inlining policy over the traced corpus's vocab with random weights
/// (seeded), its last bias set so that it inlines about half of the traced
/// call sites: unlike any fixed rule, and not all one way. With
/// `everyPreprocessing`, it also uses sqrt and z-score inputs (statistics made
/// up) and passes one feature through raw, so exporters meet every kind of
/// input.
YesNoPolicy randomInliningPolicy(const TracedTestCorpus &traced, unsigned seed, bool everyPreprocessing = false);

/// An inlining policy over the traced corpus's vocab that answers
/// `inlineEverything` at every call site (weights zero, the biases decide):
/// inlining everything grows code where large callees have many callers
/// (big_callee.c).
YesNoPolicy fixedAnswerInliningPolicy(const TracedTestCorpus &traced, bool inlineEverything);

/// Driver options with `threads` compile threads and the other defaults.
DriverOptions driverThreads(unsigned threads);

/// Writes a module into a corpus directory (bitcode and command line).
void writeModule(const std::filesystem::path &corpus, const std::string &name, const std::string &bitcode,
                 const std::vector<std::string> &commandLine);

/// A corpus of one module in `directory`: `source` (a C file of the test
/// data) compiled by clang-19 as -fembed-bitcode=all keeps it (before
/// optimization), with the test project's command line at `level`.
Corpus singleSourceCorpus(const std::filesystem::path &directory, const std::filesystem::path &source,
                          const std::string &level = "-Oz");
/// The same with one module per source.
Corpus sourcesCorpus(const std::filesystem::path &directory, const std::vector<std::filesystem::path> &sources,
                     const std::string &level);
/// A regalloc policy whose score is `weight` times one of its inputs,
/// identity-normalized: it evicts the allowed position where `input` is
/// largest ("position": the last allowed one; 32, "evict nothing", where LLVM
/// allows that).
PositionPolicy regallocPolicyScoringBy(const std::string &input, float weight = 1.0f);

/// A network of `inputs` inputs, hidden layers of 16 and 8 and one output,
/// weights and biases drawn from N(0, 0.5).
DenseNetwork randomNetwork(size_t inputs, std::mt19937 &random, Activation activation);

/// A regalloc-priority policy with hidden layers (16, 8) drawn from `seed`,
/// its input statistics and output scale around LLVM's: values from about
/// 2^16 to past 2^32, unlike the default's, so that answers vary, need float
/// rounding and reach the clamp.
ContinuousPolicy randomPriorityPolicy(unsigned seed, Activation activation = Activation::Relu);

/// The register-allocation test programs (pressure.c, kernels.c) at -O2 in
/// `directory`, their default priority trace in `trace`.
Corpus priorityTracedCorpus(const std::filesystem::path &directory, const std::filesystem::path &trace);

/// The register-allocation test programs (test/data/regalloc: pressure.c,
/// kernels.c) at -O2 in `directory`, their default regalloc trace in `trace`.
Corpus regallocTracedCorpus(const std::filesystem::path &directory, const std::filesystem::path &trace);

/// The register-allocation test programs traced (scratch/corpus,
/// scratch/trace) and a train-bc policy of that trace in scratch/bc (200
/// steps): where regalloc training tests start.
struct RegallocWarmStart {
  ScratchDirectory scratch;
  Corpus corpus;
  RegallocWarmStart();
  std::filesystem::path operator/(const std::string &name) const { return scratch / name; }
};

/// The message of the `Error` that `run` throws ("" when it throws nothing;
/// another exception type propagates and fails the test).
template <class Error, class Run>
std::string messageOf(Run run) {
  try {
    run();
  } catch (const Error &error) {
    return error.what();
  }
  return "";
}

/// The corpus module of the test project named `name` ("helpers.o", ...).
const CorpusModule &moduleNamed(const Corpus &corpus, const std::string &name);

/// test/data/thinlto's two-file program built with -flto=thin the way each
/// ThinLTO flavour leaves it, below `directory`:
/// - local/: linked by lld with --save-temps and --thinlto-emit-index-files:
///   <object>.3.import.bc and <object>.thinlto.bc beside main.o and helper.o,
///   and lld's backend objects prog.lto.<stem>.o;
/// - distributed/: a thin link with --thinlto-index-only, then one backend
///   compile per object (clang -x ir -fthinlto-index=, with
///   -lto-embed-bitcode=post-merge-pre-opt) into <stem>.native.o, and a
///   compile_commands.json of the two compiles and the two backend compiles.
struct ThinLTOTestBuild {
  std::filesystem::path local, distributed;
  std::filesystem::path localBackendObject(const std::string &stem) const;
  std::filesystem::path distributedBackendObject(const std::string &stem) const;
};
/// `extraStems` (e.g. "unused": test/data/thinlto/unused.c) are compiled and
/// linked with the two files.
ThinLTOTestBuild buildThinLTOTestProgram(const std::filesystem::path &directory,
                                         const std::vector<std::string> &extraStems = {});

struct CommandOutcome {
  int exitCode = -1;
  std::string out, err;
};
/// Runs a program with arguments, capturing stdout and stderr.
CommandOutcome runProgram(const std::string &program, const std::vector<std::string> &args);
/// Runs the mlgo binary under test.
CommandOutcome runMlgo(const std::vector<std::string> &args);
/// Runs `command` (a program and its arguments, looked up in PATH) with
/// `directory` as its working directory, and `variables` ("NAME=value")
/// added to its environment.
CommandOutcome runIn(const std::filesystem::path &directory, const std::vector<std::string> &command,
                     const std::vector<std::string> &variables = {});
/// The same through env(1), with extra environment variables ("NAME=value").
CommandOutcome runMlgoWithEnvironment(const std::vector<std::string> &variables, const std::vector<std::string> &args);

/// `protoc --decode=tensorboard.Event` (against mlgo's schema) of each record
/// of a TensorBoard event file, read with the TFRecord reader (which checks
/// lengths and CRCs). `scratch` holds the intermediate files.
std::vector<std::string> decodeTensorBoardEvents(const std::filesystem::path &file,
                                                 const std::filesystem::path &scratch);
/// The numbers of every `field: value` line of protoc's text format.
std::vector<double> protoNumbers(const std::string &text, const std::string &field);

}  // namespace mlgo::test
