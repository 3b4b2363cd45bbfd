// The pass-list predictor's training in LibTorch; the predictor it writes is
// evaluated in plain C++ (mlgo/autotune/pass_predictor.h).
#include "mlgo/training/pass_predictor_trainer.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>
#include <set>

#include <torch/torch.h>

#include "mlgo/autotune/module_features.h"
#include "mlgo/support/errors.h"
#include "mlgo/support/portable_math.h"
#include "mlgo/training/deterministic_torch.h"
#include "mlgo/support/crc32c.h"

namespace mlgo {

using nlohmann::json;
using autotune::Coreset;
using autotune::PassPredictor;
using autotune::SweepTable;

ConfigSchema passPredictorSchema() {
  using T = ConfigSchema::Type;
  ConfigSchema schema;
  // A few hundred modules and ~80 features: one hidden layer and a firm L2
  // penalty generalize best on a planted rule among noise features (an
  // unregularized 64x64 network memorizes the noise; BENCHMARKS.md).
  schema.add("hidden_layers", T::IntegerList, {64}, "hidden layer sizes of the MLP (ReLU)").within(1, 4096)
      .add("learning_rate", T::Number, 3e-3, "Adam learning rate").positive(1)
      .add("weight_decay", T::Number, 1e-2, "L2 penalty on the weights (Adam's weight_decay)").within(0, 1)
      .add("epochs", T::Integer, 300, "full-batch gradient steps").within(1, 1e7)
      .add("temperature", T::Number, 0.01,
           "softmax temperature of the target over log gains (0.01: a list 1% smaller weighs e times more)")
      .positive(10)
      .add("holdout_fraction", T::Number, 0.2,
           "share of projects (a module name's first component) held out to validate the model against the "
           "coreset's order; at least one")
      .positive(0.9)
      .add("retrain_on_all", T::Boolean, true,
           "after validation, train the predictor that is written on every module (validation decided its ranking)")
      .add("report_every", T::Integer, 50, "epochs between metrics records").within(1, 1e7);
  return schema;
}

namespace {

struct Split {
  std::vector<size_t> train, validation;
  size_t validationProjects = 0;
};

/// A module's project: the first component of its name (a combined corpus's
/// project directory; the whole name in a corpus of one project's files).
std::string projectOf(const std::string &moduleName) { return moduleName.substr(0, moduleName.find('/')); }

/// Holds out round(holdout x projects) projects, at least one and never all,
/// those first under a hash of name and seed: whole projects, so validation
/// asks what a user's own project asks (modules of one project look alike),
/// and a module's side never depends on the sweep's order.
Split splitByProject(const SweepTable &table, double holdout, uint64_t seed) {
  std::map<std::string, uint32_t> draws;
  for (const autotune::SweptModule &module : table.modules) {
    const std::string project = projectOf(module.name);
    draws.emplace(project, crc32c(std::to_string(seed) + ":" + project));
  }
  if (draws.size() < 2)
    throw UsageError("the sweep's modules are of " + std::to_string(draws.size()) +
                     " project; validation needs projects that training never saw (a combined corpus names each "
                     "module PROJECT/...)");
  std::vector<std::pair<uint32_t, std::string>> order;
  for (const auto &[project, draw] : draws) order.push_back({draw, project});
  std::sort(order.begin(), order.end());
  const size_t held = std::clamp<size_t>(size_t(std::lround(holdout * double(order.size()))), 1, order.size() - 1);
  std::set<std::string> validation;
  for (size_t i = 0; i < held; ++i) validation.insert(order[i].second);
  Split split;
  split.validationProjects = held;
  for (size_t m = 0; m < table.modules.size(); ++m)
    (validation.count(projectOf(table.modules[m].name)) ? split.validation : split.train).push_back(m);
  return split;
}

torch::Tensor inputTensor(const PassPredictor &shape, const SweepTable &table, const std::vector<size_t> &modules) {
  const int64_t width = int64_t(table.featureNames.size());
  torch::Tensor inputs = torch::empty({int64_t(modules.size()), width}, torch::kFloat32);
  for (size_t r = 0; r < modules.size(); ++r) {
    const std::vector<float> x = shape.inputs(table.modules[modules[r]].features);
    std::copy(x.begin(), x.end(), inputs[int64_t(r)].data_ptr<float>());
  }
  return inputs;
}

/// Targets (softmax of gain / temperature over usable lists) and the mask of usable lists.
std::pair<torch::Tensor, torch::Tensor> targets(const std::vector<std::vector<double>> &gains,
                                                const std::vector<size_t> &modules, double temperature) {
  const int64_t lists = gains.empty() ? 0 : int64_t(gains.front().size());
  torch::Tensor target = torch::zeros({int64_t(modules.size()), lists}, torch::kFloat32);
  torch::Tensor usable = torch::zeros({int64_t(modules.size()), lists}, torch::kBool);
  for (size_t r = 0; r < modules.size(); ++r) {
    const std::vector<double> &row = gains[modules[r]];
    double best = -std::numeric_limits<double>::infinity();
    for (double g : row) best = std::max(best, g);
    if (!std::isfinite(best)) continue;  // no usable list: the module teaches nothing
    double total = 0;
    std::vector<double> weight(row.size(), 0);
    for (size_t k = 0; k < row.size(); ++k)
      if (std::isfinite(row[k])) total += weight[k] = portable::exp((row[k] - best) / temperature);
    for (size_t k = 0; k < row.size(); ++k) {
      target[int64_t(r)][int64_t(k)] = float(weight[k] / total);
      usable[int64_t(r)][int64_t(k)] = std::isfinite(row[k]);
    }
  }
  return {target, usable};
}

RankingFigures rankingFigures(const PassPredictor &predictor, const SweepTable &table,
                              const std::vector<std::vector<double>> &gains, const std::vector<size_t> &modules) {
  RankingFigures figures;
  figures.modules = modules.size();
  if (modules.empty()) return figures;
  double top1 = 0, top5 = 0, all = 0;
  for (size_t m : modules) {
    const std::vector<size_t> ranking = predictor.rank(table.modules[m].features, table.modules[m].cxx);
    top1 += autotune::bestOfFirst(gains[m], ranking, 1);
    top5 += autotune::bestOfFirst(gains[m], ranking, 5);
    all += autotune::bestOfFirst(gains[m], ranking, ranking.size());
  }
  const double n = double(modules.size());
  figures.top1 = portable::exp(-top1 / n) - 1;
  figures.top5 = portable::exp(-top5 / n) - 1;
  figures.topAll = portable::exp(-all / n) - 1;
  return figures;
}

class Network : public torch::nn::Module {
 public:
  Network(int64_t inputs, const std::vector<int64_t> &hidden, int64_t outputs) {
    int64_t width = inputs;
    for (size_t l = 0; l <= hidden.size(); ++l) {
      const int64_t next = l < hidden.size() ? hidden[l] : outputs;
      linears_.push_back(register_module("linear" + std::to_string(l), torch::nn::Linear(width, next)));
      width = next;
    }
  }
  torch::Tensor forward(torch::Tensor x) {
    for (size_t l = 0; l < linears_.size(); ++l) {
      x = linears_[l]->forward(x);
      if (l + 1 < linears_.size()) x = torch::relu(x);
    }
    return x;
  }
  std::vector<DenseLayer> dense() const {
    std::vector<DenseLayer> layers;
    for (const torch::nn::Linear &linear : linears_) {
      const torch::Tensor w = linear->weight.detach().contiguous(), b = linear->bias.detach().contiguous();
      layers.push_back({size_t(w.size(1)), size_t(w.size(0)),
                        std::vector<float>(w.data_ptr<float>(), w.data_ptr<float>() + w.numel()),
                        std::vector<float>(b.data_ptr<float>(), b.data_ptr<float>() + b.numel())});
    }
    return layers;
  }

 private:
  std::vector<torch::nn::Linear> linears_;
};

/// The shape (features, standardization over `modules`) of a predictor
/// without layers: what builds the network's inputs, in training as in use.
PassPredictor untrained(const PassPredictorOptions &options, const std::vector<size_t> &modules) {
  const SweepTable &table = *options.table;
  std::vector<std::vector<double>> features;
  for (size_t m : modules) features.push_back(table.modules[m].features);
  std::vector<float> mean, deviation;
  autotune::inputStatistics(features, mean, deviation);
  return PassPredictor(options.coreset, table.featureNames, mean, deviation, {});
}

/// Full-batch Adam on `split.train` from the seed's initialization; metrics
/// (with figures on `split.validation`) every report_every epochs when
/// there is a validation split.
PassPredictor fit(const PassPredictorOptions &options, const std::vector<std::vector<double>> &gains,
                  const Split &split, double &loss) {
  const SweepTable &table = *options.table;
  const json &config = options.config;
  startDeterministicTorch(options.seed);
  PassPredictor predictor = untrained(options, split.train);
  const torch::Tensor inputs = inputTensor(predictor, table, split.train);
  const auto [target, usable] = targets(gains, split.train, config["temperature"].get<double>());
  Network network(int64_t(table.featureNames.size()), config["hidden_layers"].get<std::vector<int64_t>>(),
                  int64_t(options.coreset.lists.size()));
  torch::optim::Adam optimizer(network.parameters(), torch::optim::AdamOptions(config["learning_rate"].get<double>())
                                                         .weight_decay(config["weight_decay"].get<double>()));
  const int64_t epochs = config["epochs"].get<int64_t>(), reportEvery = config["report_every"].get<int64_t>();
  for (int64_t epoch = 1; epoch <= epochs; ++epoch) {
    optimizer.zero_grad();
    const torch::Tensor scores = network.forward(inputs).masked_fill(usable.logical_not(), -1e9);
    const torch::Tensor batchLoss = -(target * torch::log_softmax(scores, 1)).sum(1).mean();
    batchLoss.backward();
    optimizer.step();
    loss = batchLoss.item<double>();
    if (options.onMetrics && !split.validation.empty() && (epoch % reportEvery == 0 || epoch == epochs)) {
      const PassPredictor current = predictor.withLayers(network.dense());
      const RankingFigures train = rankingFigures(current, table, gains, split.train);
      const RankingFigures validation = rankingFigures(current, table, gains, split.validation);
      options.onMetrics({{"epoch", epoch},
                         {"loss", loss},
                         {"train_top1_change", train.top1},
                         {"train_top5_change", train.top5},
                         {"validation_top1_change", validation.top1},
                         {"validation_top5_change", validation.top5}});
    }
  }
  return predictor.withLayers(network.dense());
}

/// The model earns its place when, on the validation projects, its first list
/// does better than the coreset's first and its first five no worse.
bool modelBeatsOrder(const RankingFigures &model, const RankingFigures &order) {
  return model.top1 < order.top1 && model.top5 <= order.top5;
}

}  // namespace

PassPredictorResult trainPassPredictor(const PassPredictorOptions &options) {
  const auto start = std::chrono::steady_clock::now();
  const SweepTable &table = *options.table;
  const json &config = options.config;
  if (table.featureNames != autotune::moduleFeatureNames())
    throw InputError("the sweep's modules have features other than this mlgo computes; sweep them again");
  const std::vector<std::vector<double>> gains = autotune::coresetGains(table, options.coreset, options.allowUngated);
  const Split split = splitByProject(table, config["holdout_fraction"].get<double>(), options.seed);

  double loss = 0;
  PassPredictorResult result{fit(options, gains, split, loss)};
  result.validation = rankingFigures(result.predictor, table, gains, split.validation);
  PassPredictor order = result.predictor;
  order.ranking = autotune::PredictorRanking::CoresetOrder;
  result.coresetOrder = rankingFigures(order, table, gains, split.validation);
  const autotune::PredictorRanking ranking = modelBeatsOrder(result.validation, result.coresetOrder)
                                                 ? autotune::PredictorRanking::Model
                                                 : autotune::PredictorRanking::CoresetOrder;
  std::vector<size_t> trained = split.train;  // the modules the written predictor learned from
  if (config["retrain_on_all"].get<bool>()) {
    Split all;
    all.train.resize(table.modules.size());
    std::iota(all.train.begin(), all.train.end(), size_t(0));
    result.predictor = fit(options, gains, all, loss);
    trained = all.train;
  }
  result.predictor.ranking = ranking;
  result.train = rankingFigures(result.predictor, table, gains, trained);
  result.validationProjects = split.validationProjects;
  result.loss = loss;
  result.predictor.training = {{"trainer", "train-pass-predictor"},
                               {"config", config},
                               {"seed", options.seed},
                               {"train_modules", trained.size()},
                               {"validation_modules", split.validation.size()},
                               {"validation_projects", split.validationProjects},
                               {"loss", result.loss},
                               {"train_top1_change", result.train.top1},
                               {"validation_top1_change", result.validation.top1},
                               {"validation_top5_change", result.validation.top5},
                               {"coreset_order_validation_top1_change", result.coresetOrder.top1},
                               {"coreset_order_validation_top5_change", result.coresetOrder.top5},
                               {"mlgo_version", MLGO_VERSION}};
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

}  // namespace mlgo
