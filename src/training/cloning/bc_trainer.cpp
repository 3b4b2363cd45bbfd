// Behavioral cloning in LibTorch: the loop every kind of decision shares (the
// decisions, loss and policy come from a CloningTask, mlgo/training/cloning_task.h).
#include "mlgo/training/learning_kinds.h"
#include "mlgo/training/cloning/bc_trainer.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>

#include <torch/torch.h>

#include "mlgo/policy/yes_no_policy.h"
#include "mlgo/problems/problem.h"
#include "mlgo/metrics/event_file_writer.h"
#include "mlgo/support/atomic_file.h"
#include "mlgo/support/errors.h"
#include "mlgo/support/sampling.h"
#include "mlgo/trace/trace_reader.h"
#include "mlgo/training/cloning/cloning_task.h"
#include "mlgo/training/shared/deterministic_torch.h"

namespace mlgo {

namespace fs = std::filesystem;
using nlohmann::json;

ConfigSchema behavioralCloningSchema() { return bcSettingsSchema().keys(); }

torch::Tensor weightedCrossEntropy(const torch::Tensor &logits, const torch::Tensor &labels,
                                   const torch::Tensor &weights) {
  if (!weights.defined()) return torch::nn::functional::cross_entropy(logits, labels);
  const torch::Tensor each = torch::nn::functional::cross_entropy(
      logits, labels, torch::nn::functional::CrossEntropyFuncOptions().reduction(torch::kNone));
  return (each * weights).sum() / weights.sum();
}

float flipDecisionWeight(const trace::ModuleTrace &module, size_t decision, double flipWeight) {
  const int64_t byDefault = module.defaultDecisions[decision];
  return byDefault >= 0 && int64_t(module.actions[decision]) != byDefault ? float(1 + flipWeight) : 1.0f;
}

void refuseYesNoOnlyKeys(const BCSettings &settings, const std::string &problem) {
  if (settings.gainWeight != 0)
    throw UsageError("gain_weight weighs modules by their .text gain, which is not what " + problem +
                     " is measured by (flip_weight applies)");
  if (settings.withSqrt || settings.withZScore || !settings.passthroughFeatures.empty())
    throw UsageError("with_sqrt, with_z_score and passthrough_features apply to vocab-bucketized features, not to " +
                     problem + "'s (always signed log1p and z-score)");
}

bool isHeldOutModule(const std::string &name, uint64_t seed, double fraction) {
  return uniformFromKey(hashName(name), seed ^ 0x6d6c676f686f6c64ull) < fraction;
}

std::unique_ptr<CloningTask> makeCloningTask(const BCOptions &options, const BCSettings &settings,
                                             const trace::TraceReader &reader, const Problem &problem) {
  return learningKindBundle(problem.decisionSpec().kind()).cloningTask(options, settings, reader, problem);
}

namespace {

/// Agreement and loss on a split, in evaluation mode (no dropout, no gradients).
std::pair<double, double> evaluateWithoutDropout(const CloningTask &task, TorchMlp &network, Split split) {
  torch::NoGradGuard noGrad;
  network->eval();
  const auto result = task.evaluate(network, split);
  network->train();
  return result;
}

}  // namespace

BCSummary trainBehavioralCloning(const BCOptions &options) {
  const auto start = std::chrono::steady_clock::now();
  const json &config = options.config;
  const BCSettings settings = readBCSettings(config);
  const int64_t batchSize = settings.batchSize, iterations = settings.iterations;
  const int64_t reportEvery = settings.reportEvery, checkpointEvery = settings.checkpointEvery;
  const Activation activation = settings.activation;

  trace::TraceReader reader(options.trace);
  const Problem &problem = findProblem(reader.problem());
  if (reader.decisionSpec() != problem.decisionSpec())
    throw InputError(describeInputProblem(options.trace.string(), "decision_spec",
                                          "the trace's decisions differ from this compiler's " + problem.name() +
                                              " decisions"));
  const std::unique_ptr<CloningTask> task = makeCloningTask(options, settings, reader, problem);

  startDeterministicTorch(options.seed);
  TorchMlp network(task->networkInputs(), settings.hiddenLayers, activation, settings.dropout, task->networkOutputs());
  if (const std::vector<DenseLayer> *start = task->startingLayers()) loadWeights(network, *start);
  torch::optim::Adam optimizer(network->parameters(),
                               torch::optim::AdamOptions(settings.learningRate).eps(settings.adamEpsilon));

  fs::create_directories(options.output);
  writeFileAtomically(options.output / "config.json", config.dump(2) + "\n");
  const fs::path metricsPath = options.output / "metrics.jsonl";
  std::FILE *metricsFile = std::fopen(metricsPath.c_str(), "w");
  if (!metricsFile) throw std::runtime_error("cannot write " + metricsPath.string());
  EventFileWriter events(options.output);
  auto record = [&](const json &metrics) {
    std::fprintf(metricsFile, "%s\n", metrics.dump().c_str());
    std::fflush(metricsFile);
    json scalars = metrics;
    scalars.erase("iteration");
    events.addScalars(scalars, metrics["iteration"].get<int64_t>());
    events.flush();
    if (options.onMetrics) options.onMetrics(metrics);
  };
  auto savePolicyAt = [&](int64_t iteration, const fs::path &directory) {
    const json training{{"trainer", "behavioral-cloning"},
                        {"trace", options.trace.string()},
                        {"vocab", options.vocab.string()},
                        {"warmstart", options.warmstart ? options.warmstart->string() : ""},
                        {"seed", options.seed},
                        {"iterations", iteration},
                        {"config", config}};
    task->savePolicy(network, activation, training, directory);
  };

  // Batches walk seeded permutations of the training set, epoch by epoch.
  torch::Generator generator = torch::make_generator<torch::CPUGeneratorImpl>(options.seed);
  const auto trainSize = static_cast<int64_t>(task->decisions(Split::Train));
  torch::Tensor order = torch::randperm(trainSize, generator);
  int64_t cursor = 0;
  double runningLoss = 0;
  int64_t runningCount = 0;
  BCSummary summary;
  for (int64_t step = 1; step <= iterations; ++step) {
    if (cursor + batchSize > order.size(0)) {
      order = torch::randperm(trainSize, generator);
      cursor = 0;
    }
    const torch::Tensor batch = order.narrow(0, cursor, std::min<int64_t>(batchSize, order.size(0)));
    cursor += batch.size(0);
    optimizer.zero_grad();
    torch::Tensor loss = task->batchLoss(network, batch);
    loss.backward();
    optimizer.step();
    runningLoss += loss.item<double>();
    ++runningCount;
    if (step % reportEvery == 0 || step == iterations) {
      auto [trainAgreement, trainLoss] = evaluateWithoutDropout(*task, network, Split::Train);
      auto [heldoutAgreement, heldoutLoss] = evaluateWithoutDropout(*task, network, Split::Heldout);
      json metrics{{"iteration", step},
                   {"loss", runningLoss / runningCount},
                   {"train_loss", trainLoss},
                   {"train_agreement", trainAgreement},
                   {"seconds", std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count()}};
      if (task->decisions(Split::Heldout)) {
        metrics["heldout_loss"] = heldoutLoss;
        metrics["heldout_agreement"] = heldoutAgreement;
      }
      record(metrics);
      summary.loss = runningLoss / runningCount;
      summary.trainAgreement = trainAgreement;
      summary.heldoutAgreement = heldoutAgreement;
      runningLoss = 0;
      runningCount = 0;
    }
    if (checkpointEvery > 0 && step % checkpointEvery == 0 && step != iterations)
      savePolicyAt(step, options.output / "checkpoints" / ("iteration-" + std::to_string(step)));
  }
  std::fclose(metricsFile);
  savePolicyAt(iterations, options.output / "policy");

  summary.trainModules = task->modules(Split::Train);
  summary.heldoutModules = task->modules(Split::Heldout);
  summary.trainDecisions = task->decisions(Split::Train);
  summary.heldoutDecisions = task->decisions(Split::Heldout);
  summary.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return summary;
}

}  // namespace mlgo
