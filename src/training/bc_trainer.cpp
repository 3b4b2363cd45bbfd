// Behavioral cloning in LibTorch. The only translation unit of train-bc that
// includes torch: the policy it produces is the framework-free PolicyModel.
#include "mlgo/training/bc_trainer.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>

#include <torch/torch.h>

#include "mlgo/policy/policy_model.h"
#include "mlgo/problems/problem.h"
#include "mlgo/report/event_file_writer.h"
#include "mlgo/support/atomic_file.h"
#include "mlgo/support/errors.h"
#include "mlgo/trace/sampling.h"
#include "mlgo/trace/trace_reader.h"
#include "mlgo/training/torch_network.h"

namespace mlgo {

namespace fs = std::filesystem;
using nlohmann::json;

ConfigSchema behavioralCloningSchema() {
  using T = ConfigSchema::Type;
  ConfigSchema schema;
  schema.add("hidden_layers", T::IntegerList, {40, 40, 20}, "hidden layer sizes of the MLP").within(1, 4096)
      .add("activation", T::String, "relu", "relu or tanh")
      .add("dropout", T::Number, 0.2, "dropout after each hidden layer while training").within(0, 0.99)
      .add("learning_rate", T::Number, 1e-3, "Adam learning rate").positive(1)
      .add("adam_epsilon", T::Number, 3.125e-4, "Adam epsilon").positive(1)
      .add("batch_size", T::Integer, 64, "decisions per gradient step").within(1, 1e7)
      .add("iterations", T::Integer, 100000, "gradient steps").within(0, 1e10)
      .add("holdout_fraction", T::Number, 0.1, "share of modules held out for evaluation").within(0, 0.9)
      .add("report_every", T::Integer, 1000, "steps between metrics records").within(1, 1e10)
      .add("checkpoint_every", T::Integer, 10000, "steps between checkpoints (0: none)").within(0, 1e10)
      .add("with_sqrt", T::Boolean, false, "add sqrt(x) per feature")
      .add("with_z_score", T::Boolean, false, "add a z-score term per feature")
      .add("passthrough_features", T::StringList, json::array(), "features that skip normalization")
      .add("gain_weight", T::Number, 0.0,
           "imitation: a module's decisions weigh 1 + gain_weight x (its trace's % .text gain over the default "
           "heuristic, from baselines.json); 0: every decision weighs the same")
      .within(0, 1e6)
      .add("flip_weight", T::Number, 0.0,
           "imitation: a decision whose action differs from the default heuristic's (what the search changed) "
           "weighs 1 + flip_weight times more")
      .within(0, 1e6);
  return schema;
}

namespace {

struct Dataset {
  torch::Tensor inputs;   ///< decisions x preprocessed inputs, float
  torch::Tensor labels;   ///< decisions, int64
  torch::Tensor weights;  ///< decisions, float; undefined when all weigh the same
  size_t modules = 0;
  size_t size() const { return inputs.defined() ? static_cast<size_t>(inputs.size(0)) : 0; }
};

struct RawDecisions {
  std::vector<int64_t> features;  ///< flat, decisions x features
  std::vector<int64_t> labels;
  std::vector<float> weights;
  size_t modules = 0;
};

Dataset preprocess(const RawDecisions &raw, const FeaturePreprocessor &preprocessor) {
  Dataset data;
  data.modules = raw.modules;
  const size_t count = raw.labels.size();
  const size_t width = preprocessor.outputCount();
  data.inputs = torch::empty({static_cast<int64_t>(count), static_cast<int64_t>(width)}, torch::kFloat32);
  float *out = data.inputs.data_ptr<float>();
  for (size_t d = 0; d < count; ++d)
    preprocessor.transform(raw.features.data() + d * preprocessor.inputCount(), out + d * width);
  data.labels = torch::tensor(raw.labels, torch::kInt64);
  if (std::any_of(raw.weights.begin(), raw.weights.end(), [](float w) { return w != 1.0f; }))
    data.weights = torch::tensor(raw.weights, torch::kFloat32);
  return data;
}

/// Share of decisions where the greedy policy equals the label, and the mean
/// loss, without dropout.
std::pair<double, double> evaluate(TorchMlp &network, const Dataset &data) {
  if (data.size() == 0) return {0.0, 0.0};
  torch::NoGradGuard noGrad;
  network->eval();
  torch::Tensor logits = network->forward(data.inputs);
  const double loss = torch::nn::functional::cross_entropy(logits, data.labels).item<double>();
  const double agreement = logits.argmax(1).eq(data.labels).to(torch::kFloat64).mean().item<double>();
  network->train();
  return {agreement, loss};
}

/// Cross entropy over a batch, each decision weighted when the data has
/// weights (a weighted mean; the plain mean otherwise, as before weights).
torch::Tensor batchLoss(const torch::Tensor &logits, const Dataset &data, const torch::Tensor &batch) {
  const torch::Tensor labels = data.labels.index_select(0, batch);
  if (!data.weights.defined()) return torch::nn::functional::cross_entropy(logits, labels);
  const torch::Tensor weights = data.weights.index_select(0, batch);
  const torch::Tensor each = torch::nn::functional::cross_entropy(
      logits, labels, torch::nn::functional::CrossEntropyFuncOptions().reduction(torch::kNone));
  return (each * weights).sum() / weights.sum();
}

/// How much a module's decisions weigh: 1 + gainWeight x its % .text gain
/// over the default heuristic (an explored trace's best trajectory against
/// baselines.json; a default trace gains nothing). Modules that got larger
/// weigh 1: exploration keeps the default where it found nothing better.
float moduleWeight(const trace::ModuleTrace &module, const std::map<std::string, uint64_t> &baselines,
                   double gainWeight) {
  if (gainWeight == 0) return 1.0f;
  auto found = baselines.find(module.name);
  if (found == baselines.end() || found->second == 0 || module.nativeSize >= found->second) return 1.0f;
  const double gainPercent = 100.0 * double(found->second - module.nativeSize) / double(found->second);
  return float(1.0 + gainWeight * gainPercent);
}

}  // namespace

BCSummary trainBehavioralCloning(const BCOptions &options) {
  const auto start = std::chrono::steady_clock::now();
  const json &config = options.config;
  const auto hidden = config.at("hidden_layers").get<std::vector<int64_t>>();
  const double dropout = config.at("dropout").get<double>();
  const int64_t batchSize = config.at("batch_size").get<int64_t>();
  const int64_t iterations = config.at("iterations").get<int64_t>();
  const int64_t reportEvery = config.at("report_every").get<int64_t>();
  const int64_t checkpointEvery = config.at("checkpoint_every").get<int64_t>();
  const double holdout = config.at("holdout_fraction").get<double>();
  const double gainWeight = config.at("gain_weight").get<double>();
  const double flipWeight = config.at("flip_weight").get<double>();
  const Activation activation = parseActivation(config.at("activation").get<std::string>());
  if (batchSize <= 0 || iterations <= 0 || reportEvery <= 0 || checkpointEvery < 0)
    throw UsageError("batch_size, iterations and report_every must be positive, checkpoint_every not negative");
  if (!(dropout >= 0 && dropout < 1)) throw UsageError("dropout must be in [0, 1)");
  if (!(holdout >= 0 && holdout < 1)) throw UsageError("holdout_fraction must be in [0, 1)");
  for (int64_t size : hidden)
    if (size <= 0) throw UsageError("hidden_layers must be positive sizes");

  trace::TraceReader reader(options.trace);
  const Problem &problem = findProblem(reader.problem());
  requireScalarBinaryDecisions(problem, "train-bc");
  if (reader.featureNames() != problem.featureNames())
    throw InputError(describeInputProblem(options.trace.string(), "feature_names",
                                          "the trace's features differ from this compiler's " + problem.name() +
                                              " features"));
  PreprocessingConfig preprocessing;
  preprocessing.withSqrt = config.at("with_sqrt").get<bool>();
  preprocessing.withZScore = config.at("with_z_score").get<bool>();
  preprocessing.passthrough = config.at("passthrough_features").get<std::vector<std::string>>();
  FeaturePreprocessor preprocessor = preprocessorFromVocab(problem.featureNames(), options.vocab, preprocessing);

  // Modules are held out whole, chosen by a hash of their name and the seed.
  RawDecisions trainRaw, heldoutRaw;
  const size_t featureCount = problem.featureNames().size();
  const std::map<std::string, uint64_t> baselines =
      gainWeight > 0 ? reader.baselines() : std::map<std::string, uint64_t>{};
  reader.forEachModule([&](const trace::ModuleTrace &module) {
    RawDecisions &target =
        uniformFromKey(hashName(module.name), options.seed ^ 0x6d6c676f686f6c64ull) < holdout ? heldoutRaw : trainRaw;
    ++target.modules;
    target.features.insert(target.features.end(), module.features.begin(), module.features.end());
    const float weight = moduleWeight(module, baselines, gainWeight);
    for (size_t d = 0; d < module.decisions(); ++d) {
      target.labels.push_back(module.actions[d]);
      const bool flipped = module.defaultDecisions[d] >= 0 && module.actions[d] != module.defaultDecisions[d];
      target.weights.push_back(flipped ? weight * float(1 + flipWeight) : weight);
    }
  });
  if (trainRaw.labels.empty())
    throw InputError(describeInputProblem(options.trace.string(), "", "no training decisions (all modules held out?)"));
  if (preprocessing.withZScore) {
    std::vector<double> means(featureCount, 0), stddevs(featureCount, 0);
    const size_t n = trainRaw.labels.size();
    for (size_t d = 0; d < n; ++d)
      for (size_t f = 0; f < featureCount; ++f) means[f] += double(trainRaw.features[d * featureCount + f]) / n;
    for (size_t d = 0; d < n; ++d)
      for (size_t f = 0; f < featureCount; ++f) {
        const double delta = double(trainRaw.features[d * featureCount + f]) - means[f];
        stddevs[f] += delta * delta / n;
      }
    for (double &s : stddevs) s = std::sqrt(s);
    preprocessor.setZScoreStatistics(means, stddevs);
  }
  const Dataset train = preprocess(trainRaw, preprocessor);
  const Dataset heldout = preprocess(heldoutRaw, preprocessor);

  // One intra-op thread: results then never depend on the machine's cores
  // (and this network is far too small to gain from more).
  torch::set_num_threads(1);
  torch::manual_seed(options.seed);
  TorchMlp network(static_cast<int64_t>(preprocessor.outputCount()), hidden, activation, dropout);
  torch::optim::Adam optimizer(network->parameters(), torch::optim::AdamOptions(config.at("learning_rate").get<double>())
                                                           .eps(config.at("adam_epsilon").get<double>()));

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
  auto policyAt = [&](int64_t iteration) {
    PolicyModel model = toPolicyModel(network, problem.name(), preprocessor, activation);
    model.training = {{"trainer", "behavioral-cloning"},
                      {"trace", options.trace.string()},
                      {"vocab", options.vocab.string()},
                      {"seed", options.seed},
                      {"iterations", iteration},
                      {"config", config}};
    return model;
  };

  // Batches walk seeded permutations of the training set, epoch by epoch.
  torch::Generator generator = torch::make_generator<torch::CPUGeneratorImpl>(options.seed);
  torch::Tensor order = torch::randperm(static_cast<int64_t>(train.size()), generator);
  int64_t cursor = 0;
  double runningLoss = 0;
  int64_t runningCount = 0;
  BCSummary summary;
  for (int64_t step = 1; step <= iterations; ++step) {
    if (cursor + batchSize > order.size(0)) {
      order = torch::randperm(static_cast<int64_t>(train.size()), generator);
      cursor = 0;
    }
    const torch::Tensor batch = order.narrow(0, cursor, std::min<int64_t>(batchSize, order.size(0)));
    cursor += batch.size(0);
    optimizer.zero_grad();
    torch::Tensor loss = batchLoss(network->forward(train.inputs.index_select(0, batch)), train, batch);
    loss.backward();
    optimizer.step();
    runningLoss += loss.item<double>();
    ++runningCount;
    if (step % reportEvery == 0 || step == iterations) {
      auto [trainAgreement, trainLoss] = evaluate(network, train);
      auto [heldoutAgreement, heldoutLoss] = evaluate(network, heldout);
      json metrics{{"iteration", step},
                   {"loss", runningLoss / runningCount},
                   {"train_loss", trainLoss},
                   {"train_agreement", trainAgreement},
                   {"seconds", std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count()}};
      if (heldout.size()) {
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
      policyAt(step).save(options.output / "checkpoints" / ("iteration-" + std::to_string(step)));
  }
  std::fclose(metricsFile);
  policyAt(iterations).save(options.output / "policy");

  summary.trainModules = train.modules;
  summary.heldoutModules = heldout.modules;
  summary.trainDecisions = train.size();
  summary.heldoutDecisions = heldout.size();
  summary.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return summary;
}

}  // namespace mlgo
