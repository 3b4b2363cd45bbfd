#include "support/test_environment.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <random>
#include <regex>

#include <unistd.h>

#include <nlohmann/json.hpp>

#include "mlgo/corpus/extract_ir.h"
#include "mlgo/problems/inlining/inlining_policy.h"
#include "mlgo/problems/problem.h"
#include "mlgo/tracing/default_trace.h"
#include "mlgo/training/cloning/bc_trainer.h"
#include "mlgo/trace/trace_reader.h"
#include "mlgo/vocab/gen_vocab.h"
#include "mlgo/support/atomic_file.h"
#include "mlgo/support/record_io.h"
#include "mlgo/support/subprocess.h"

namespace mlgo::test {

namespace fs = std::filesystem;

fs::path testProject() { return MLGO_TEST_PROJECT; }
fs::path testData() { return MLGO_TEST_DATA; }
std::string clangPath() { return MLGO_CLANG; }
std::string mlgoBinary() { return MLGO_BINARY; }

void compileCxx(const std::vector<std::string> &arguments) {
  std::vector<std::string> args{"--driver-mode=g++", "-std=c++17", "-O2", "-Wall", "-Wextra", "-Werror"};
  args.insert(args.end(), arguments.begin(), arguments.end());
  const CommandOutcome outcome = runProgram(clangPath(), args);
  if (outcome.exitCode != 0) throw std::runtime_error("clang++ failed:\n" + outcome.out + outcome.err);
}

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

Corpus singleSourceCorpus(const fs::path &directory, const fs::path &source, const std::string &level) {
  return sourcesCorpus(directory, {source}, level);
}

Corpus sourcesCorpus(const fs::path &directory, const std::vector<fs::path> &sources, const std::string &level) {
  ScratchDirectory scratch;
  const Corpus project = extractTestCorpus(scratch / "corpus");
  std::vector<std::string> commandLine = moduleNamed(project, "helpers.o").commandLine;
  std::replace(commandLine.begin(), commandLine.end(), std::string("-Oz"), level);
  std::vector<std::string> names;
  for (const fs::path &source : sources) {
    const fs::path bitcode = scratch / "module.bc";
    const CommandOutcome clang = runProgram(clangPath(), {level, "-Xclang", "-disable-llvm-passes", "-emit-llvm", "-c",
                                                          source.string(), "-o", bitcode.string()});
    if (clang.exitCode != 0) throw std::runtime_error("clang-19 failed on " + source.string() + ": " + clang.err);
    names.push_back(source.stem().string() + ".o");
    writeModule(directory, names.back(), readFile(bitcode), commandLine);
  }
  writeCorpusDescription(directory, names, false);
  return Corpus::load(directory);
}

PositionPolicy regallocPolicyScoringBy(const std::string &input, float weight) {
  const trace::DecisionSpec &spec = findProblem("regalloc").decisionSpec();
  const PositionLayout layout(spec);
  DenseLayer layer;
  layer.inputs = layout.width();
  layer.outputs = 1;
  layer.weights.assign(layout.width(), 0.0f);
  layer.bias = {0.0f};
  for (size_t i = 0; i < layout.width(); ++i)
    if (layout.inputNames()[i] == input) layer.weights[i] = weight;
  return PositionPolicy("regalloc", spec, std::vector<float>(layout.width(), 0.0f),
                        std::vector<float>(layout.width(), 1.0f), DenseNetwork({layer}, Activation::Relu));
}

DenseNetwork randomNetwork(size_t inputs, std::mt19937 &random, Activation activation) {
  std::normal_distribution<float> normal(0.0f, 0.5f);
  std::vector<DenseLayer> layers;
  for (size_t outputs : {16, 8, 1}) {
    DenseLayer layer{inputs, outputs, std::vector<float>(inputs * outputs), std::vector<float>(outputs)};
    for (float &w : layer.weights) w = normal(random);
    for (float &b : layer.bias) b = normal(random);
    layers.push_back(std::move(layer));
    inputs = outputs;
  }
  return DenseNetwork(std::move(layers), activation);
}

ContinuousPolicy randomPriorityPolicy(unsigned seed, Activation activation) {
  const trace::DecisionSpec &spec = findProblem("regalloc-priority").decisionSpec();
  std::mt19937 random(seed);
  return ContinuousPolicy("regalloc-priority", spec, {3.0f, 0.7f, 1.5f}, {1.5f, 0.2f, 1.0f}, {28.0f, 6.0f},
                          randomNetwork(spec.features.size(), random, activation));
}

Corpus priorityTracedCorpus(const fs::path &directory, const fs::path &trace) {
  const Corpus corpus =
      sourcesCorpus(directory, {testData() / "regalloc/pressure.c", testData() / "regalloc/kernels.c"}, "-O2");
  DefaultTraceOptions options;
  options.output = trace;
  runDefaultTrace(corpus, CompilerDriver(driverThreads(1)), findProblem("regalloc-priority"), options);
  return corpus;
}

Corpus regallocTracedCorpus(const fs::path &directory, const fs::path &trace) {
  const Corpus corpus =
      sourcesCorpus(directory, {testData() / "regalloc/pressure.c", testData() / "regalloc/kernels.c"}, "-O2");
  DefaultTraceOptions options;
  options.output = trace;
  runDefaultTrace(corpus, CompilerDriver(driverThreads(1)), findProblem("regalloc"), options);
  return corpus;
}

RegallocWarmStart::RegallocWarmStart() : corpus(regallocTracedCorpus(scratch / "corpus", scratch / "trace")) {
  BCOptions bc;
  bc.trace = scratch / "trace";
  bc.output = scratch / "bc";
  bc.config = behavioralCloningSchema().resolve(std::nullopt, {"iterations=200", "holdout_fraction=0"});
  trainBehavioralCloning(bc);
}

namespace {

void runShell(const fs::path &directory, const std::string &script) {
  const CommandOutcome outcome = runProgram("/bin/sh", {"-c", "cd '" + directory.string() + "' && " + script});
  if (outcome.exitCode != 0) throw std::runtime_error("failed: " + script + "\n" + outcome.err);
}

}  // namespace

fs::path ThinLTOTestBuild::localBackendObject(const std::string &stem) const {
  return local / ("prog.lto." + stem + ".o");
}
fs::path ThinLTOTestBuild::distributedBackendObject(const std::string &stem) const {
  return distributed / (stem + ".native.o");
}

ThinLTOTestBuild buildThinLTOTestProgram(const fs::path &directory, const std::vector<std::string> &extraStems) {
  ThinLTOTestBuild build{directory / "local", directory / "distributed"};
  const std::string clang = clangPath();
  const std::string compileFlags = "-Oz -flto=thin -Xclang -fembed-bitcode=all";
  const std::string sources = (testData() / "thinlto").string();
  std::vector<std::string> stems{"main", "helper"};
  stems.insert(stems.end(), extraStems.begin(), extraStems.end());
  std::string objects;
  for (const std::string &stem : stems) objects += " " + stem + ".o";
  nlohmann::json commands = nlohmann::json::array();
  for (const fs::path &where : {build.local, build.distributed}) {
    fs::create_directories(where);
    for (const std::string &stem : stems) {
      const std::string compile = clang + " " + compileFlags + " -c " + sources + "/" + stem + ".c -o " + stem + ".o";
      runShell(where, compile);
      if (where == build.distributed)
        commands.push_back({{"directory", where.string()}, {"command", compile}, {"file", stem + ".c"}});
    }
  }
  runShell(build.local, clang + " -Oz -flto=thin -fuse-ld=lld -Wl,--save-temps -Wl,--thinlto-emit-index-files" +
                            objects + " -o prog");
  runShell(build.distributed,
           clang + " -Oz -flto=thin -fuse-ld=lld -Wl,--thinlto-index-only=index.rsp" + objects + " -o prog");
  for (const std::string &stem : stems) {
    const std::string backend = clang + " -O2 -c -x ir " + stem + ".o -fthinlto-index=" + stem +
                                ".o.thinlto.bc -mllvm -lto-embed-bitcode=post-merge-pre-opt -o " + stem + ".native.o";
    runShell(build.distributed, backend);
    commands.push_back({{"directory", build.distributed.string()}, {"command", backend}, {"file", stem + ".o"}});
  }
  writeFileAtomically(build.distributed / "compile_commands.json", commands.dump(2));
  return build;
}

const CorpusModule &moduleNamed(const Corpus &corpus, const std::string &name) {
  for (const CorpusModule &module : corpus.modules)
    if (module.name == name) return module;
  throw std::runtime_error("no module " + name + " in the test corpus");
}

CommandOutcome runMlgo(const std::vector<std::string> &args) { return runProgram(mlgoBinary(), args); }

CommandOutcome runMlgoWithEnvironment(const std::vector<std::string> &variables, const std::vector<std::string> &args) {
  std::vector<std::string> command = variables;
  command.push_back(mlgoBinary());
  command.insert(command.end(), args.begin(), args.end());
  return runProgram("/usr/bin/env", command);
}

CommandOutcome runIn(const fs::path &directory, const std::vector<std::string> &command,
                     const std::vector<std::string> &variables) {
  std::vector<std::string> args{"-c", "cd \"$0\" && exec env \"$@\"", directory.string()};
  args.insert(args.end(), variables.begin(), variables.end());
  args.insert(args.end(), command.begin(), command.end());
  return runProgram("/bin/sh", args);
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

std::vector<std::string> trainPPOArguments(const TracedTestCorpus &traced, const std::string &output, int iterations,
                                           unsigned threads) {
  return {"train-ppo", "--corpus", (traced / "corpus").string(), "--vocab", (traced / "vocab").string(),
          "--baselines", (traced / "trace").string(), "--output", (traced / output).string(), "--threads",
          std::to_string(threads), "--set", "num_policy_iterations=" + std::to_string(iterations), "--set",
          "num_modules=5", "--set", "num_iterations=40", "--set", "batch_size=8", "--set",
          "train_sequence_length=4", "--set", "learning_rate=0.01"};
}

YesNoPolicy randomInliningPolicy(const TracedTestCorpus &traced, unsigned seed, bool everyPreprocessing) {
  const std::vector<std::string> &names = inlining::featureNames();
  PreprocessingConfig config;
  if (everyPreprocessing) {
    config.withSqrt = true;
    config.withZScore = true;
    config.passthrough = {"callsite_height"};
  }
  FeaturePreprocessor preprocessor = preprocessorFromVocab(names, traced / "vocab", config);
  if (everyPreprocessing) {
    std::vector<double> means, stddevs;
    for (size_t f = 0; f < names.size(); ++f) {
      means.push_back(0.5 * double(f));
      stddevs.push_back(1.0 + double(f % 7));
    }
    preprocessor.setZScoreStatistics(means, stddevs);
  }
  std::mt19937 random(seed);
  std::vector<DenseLayer> layers;
  size_t inputs = preprocessor.outputCount();
  for (size_t outputs : {40, 40, 20, 2}) {
    std::normal_distribution<float> weight(0.0f, 1.5f / std::sqrt(float(inputs)));
    DenseLayer layer{inputs, outputs, {}, {}};
    for (size_t i = 0; i < inputs * outputs; ++i) layer.weights.push_back(weight(random));
    for (size_t o = 0; o < outputs; ++o) layer.bias.push_back(weight(random));
    layers.push_back(std::move(layer));
    inputs = outputs;
  }
  // Logit 1 minus logit 0 on every traced call site. Bias 1 moves to the
  // middle of the widest gap between margins in their middle third: about
  // half the decisions inline, and none is a near tie (exporters that sum in
  // another order than mlgo would flip those).
  const YesNoPolicy uncalibrated("inlining", preprocessor, layers, Activation::Relu);
  std::vector<float> margins;
  trace::TraceReader(traced / "trace").forEachModule([&](const trace::ModuleTrace &module) {
    for (size_t d = 0; d < module.decisions(); ++d) {
      float logits[2];
      uncalibrated.logits(module.featuresOf(d), logits);
      margins.push_back(logits[1] - logits[0]);
    }
  });
  std::sort(margins.begin(), margins.end());
  size_t widest = margins.size() / 3;
  for (size_t i = margins.size() / 3; i + 1 < 2 * margins.size() / 3; ++i)
    if (margins[i + 1] - margins[i] > margins[widest + 1] - margins[widest]) widest = i;
  layers.back().bias[1] -= (margins[widest] + margins[widest + 1]) / 2;
  return YesNoPolicy("inlining", std::move(preprocessor), std::move(layers), Activation::Relu);
}

YesNoPolicy fixedAnswerInliningPolicy(const TracedTestCorpus &traced, bool inlineEverything) {
  FeaturePreprocessor preprocessor = preprocessorFromVocab(inlining::featureNames(), traced / "vocab", {});
  const size_t inputs = preprocessor.outputCount();
  DenseLayer hidden{inputs, 4, std::vector<float>(inputs * 4, 0.0f), std::vector<float>(4, 0.0f)};
  DenseLayer decision{4, 2, std::vector<float>(8, 0.0f), {0.0f, inlineEverything ? 50.0f : -50.0f}};
  return YesNoPolicy("inlining", std::move(preprocessor), {hidden, decision}, Activation::Relu);
}

DriverOptions driverThreads(unsigned threads) {
  DriverOptions options;
  options.threads = threads;
  return options;
}

bool RecordingPolicy::decide(const inlining::DecisionInput &input) const {
  const bool inlined = inner_->decide(input);
  decisions.push_back(inlined);
  features.insert(features.end(), input.features, input.features + inlining::featureCount());
  return inlined;
}

TracedTestCorpus::TracedTestCorpus() {
  corpus = extractTestCorpus(scratch / "corpus");
  traceCorpus(corpus, scratch / "trace", scratch / "vocab");
}

std::vector<std::string> decodeTensorBoardEvents(const fs::path &file, const fs::path &scratch) {
  std::vector<std::string> decoded;
  RecordReader reader(file);
  while (std::optional<std::string> record = reader.next()) {
    const fs::path payload = scratch / ("event-record-" + std::to_string(decoded.size()));
    const fs::path text = payload.string() + ".txt";
    writeFileAtomically(payload, *record);
    const fs::path proto = MLGO_EVENT_PROTO;
    const ProcessOutcome outcome =
        runProcess({"/bin/sh", "-c", "exec \"$1\" --proto_path=\"$2\" --decode=tensorboard.Event \"$3\" < \"$4\"",
                    "sh", MLGO_PROTOC, proto.parent_path().string(), proto.filename().string(), payload.string()},
                   std::chrono::seconds(60), text.string());
    if (!outcome.succeeded())
      throw std::runtime_error("protoc could not decode record " + std::to_string(decoded.size()) + " of " +
                               file.string() + ": " + outcome.error + outcome.stderrText);
    decoded.push_back(readFile(text));
  }
  return decoded;
}

std::vector<double> protoNumbers(const std::string &text, const std::string &field) {
  std::vector<double> values;
  const std::regex pattern("(^|\\s)" + field + ": ([-0-9.e+]+)");
  for (auto it = std::sregex_iterator(text.begin(), text.end(), pattern); it != std::sregex_iterator(); ++it)
    values.push_back(std::stod((*it)[2]));
  return values;
}

}  // namespace mlgo::test
