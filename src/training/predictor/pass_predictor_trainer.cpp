// The pass-list predictor's training in LibTorch; the predictor it writes is
// evaluated in plain C++ (mlgo/autotune/pass_predictor.h).
#include "mlgo/training/predictor/pass_predictor_trainer.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>

#include <torch/torch.h>

#include "mlgo/autotune/module_features.h"
#include "mlgo/support/errors.h"
#include "mlgo/support/portable_math.h"
#include "mlgo/training/shared/deterministic_torch.h"
#include "mlgo/training/predictor/pass_predictor_settings.h"
#include "mlgo/support/crc32c.h"

namespace mlgo {

using nlohmann::json;
using autotune::Coreset;
using autotune::PassPredictor;
using autotune::SweepTable;

ConfigSchema passPredictorSchema() { return passPredictorSettingsSchema().keys(); }

namespace {

struct Split {
  std::vector<size_t> train, validation;
};

/// A module's project: the first component of its name (a combined corpus's
/// project directory; the whole name in a corpus of one project's files).
std::string projectOf(const std::string &moduleName) { return moduleName.substr(0, moduleName.find('/')); }

/// Whole projects dealt into min(`folds`, projects) folds in the order of a
/// hash of name and seed: validation asks what a user's own project asks
/// (modules of one project look alike), and a module's fold never depends
/// on the sweep's order. Every module is in the validation side of one split.
std::vector<Split> splitsByProject(const SweepTable &table, size_t folds, uint64_t seed, size_t &projects) {
  std::map<std::string, uint32_t> draws;
  for (const autotune::SweptModule &module : table.modules) {
    const std::string project = projectOf(module.name);
    draws.emplace(project, crc32c(std::to_string(seed) + ":" + project));
  }
  projects = draws.size();
  if (projects < 2)
    throw UsageError("the sweep's modules are of " + std::to_string(projects) +
                     " project; validation needs projects that training never saw (a combined corpus names each "
                     "module PROJECT/...)");
  std::vector<std::pair<uint32_t, std::string>> order;
  for (const auto &[project, draw] : draws) order.push_back({draw, project});
  std::sort(order.begin(), order.end());
  std::vector<Split> splits(std::min(folds, projects));
  std::map<std::string, size_t> foldOf;
  for (size_t i = 0; i < order.size(); ++i) foldOf[order[i].second] = i % splits.size();
  for (size_t m = 0; m < table.modules.size(); ++m) {
    const size_t fold = foldOf[projectOf(table.modules[m].name)];
    for (size_t f = 0; f < splits.size(); ++f) (f == fold ? splits[f].validation : splits[f].train).push_back(m);
  }
  return splits;
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

/// Sums of each module's log gain with its first 1, 5 and all ranked lists,
/// so that figures pool over the folds' predictors.
struct RankingTotals {
  double top1 = 0, top5 = 0, all = 0;
  size_t modules = 0;

  void add(const PassPredictor &predictor, const SweepTable &table, const std::vector<std::vector<double>> &gains,
           const std::vector<size_t> &rows) {
    for (size_t m : rows) {
      const std::vector<size_t> ranking = predictor.rank(table.modules[m].features, table.modules[m].cxx);
      top1 += autotune::bestOfFirst(gains[m], ranking, 1);
      top5 += autotune::bestOfFirst(gains[m], ranking, 5);
      all += autotune::bestOfFirst(gains[m], ranking, ranking.size());
    }
    modules += rows.size();
  }
  RankingFigures figures() const {
    const double n = double(std::max<size_t>(modules, 1));
    return {portable::exp(-top1 / n) - 1, portable::exp(-top5 / n) - 1, portable::exp(-all / n) - 1, modules};
  }
};

RankingFigures rankingFigures(const PassPredictor &predictor, const SweepTable &table,
                              const std::vector<std::vector<double>> &gains, const std::vector<size_t> &modules) {
  RankingTotals totals;
  totals.add(predictor, table, gains, modules);
  return totals.figures();
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
/// (with figures on `split.validation`, and `fold`) every report_every epochs
/// when there is a validation split.
PassPredictor fit(const PassPredictorOptions &options, const std::vector<std::vector<double>> &gains,
                  const Split &split, const json &fold, double &loss) {
  const SweepTable &table = *options.table;
  const PassPredictorSettings settings = readPassPredictorSettings(options.config);
  startDeterministicTorch(options.seed);
  PassPredictor predictor = untrained(options, split.train);
  const torch::Tensor inputs = inputTensor(predictor, table, split.train);
  const auto [target, usable] = targets(gains, split.train, settings.temperature);
  Network network(int64_t(table.featureNames.size()), settings.hiddenLayers, int64_t(options.coreset.lists.size()));
  torch::optim::Adam optimizer(network.parameters(),
                               torch::optim::AdamOptions(settings.learningRate).weight_decay(settings.weightDecay));
  const int64_t epochs = settings.epochs, reportEvery = settings.reportEvery;
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
      options.onMetrics({{"fold", fold},
                         {"epoch", epoch},
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
  const PassPredictorSettings settings = readPassPredictorSettings(options.config);
  if (table.featureNames != autotune::moduleFeatureNames())
    throw InputError("the sweep's modules have features other than this mlgo computes; sweep them again");
  const std::vector<std::vector<double>> gains = autotune::coresetGains(table, options.coreset, options.allowUngated);
  size_t projects = 0;
  const std::vector<Split> splits = splitsByProject(table, settings.validationFolds, options.seed, projects);

  double loss = 0;
  RankingTotals model;  // each module ranked by the model of the fold that never saw its project
  for (size_t f = 0; f < splits.size(); ++f) {
    const json fold = std::to_string(f + 1) + "/" + std::to_string(splits.size());
    model.add(fit(options, gains, splits[f], fold, loss), table, gains, splits[f].validation);
  }
  Split all;  // the written predictor learns from every module; validation only chose its ranking
  all.train.resize(table.modules.size());
  std::iota(all.train.begin(), all.train.end(), size_t(0));
  PassPredictorResult result{fit(options, gains, all, json(), loss)};
  result.validationProjects = projects;
  result.validationFolds = splits.size();
  PassPredictor inOrder = result.predictor;
  inOrder.ranking = autotune::PredictorRanking::CoresetOrder;
  RankingTotals order;
  order.add(inOrder, table, gains, all.train);
  result.validation = model.figures();
  result.coresetOrder = order.figures();
  result.predictor.ranking = modelBeatsOrder(result.validation, result.coresetOrder)
                                 ? autotune::PredictorRanking::Model
                                 : autotune::PredictorRanking::CoresetOrder;
  result.train = rankingFigures(result.predictor, table, gains, all.train);
  result.loss = loss;
  result.predictor.training = {{"trainer", "train-pass-predictor"},
                               {"config", options.config},
                               {"seed", options.seed},
                               {"train_modules", all.train.size()},
                               {"validation_modules", result.validation.modules},
                               {"validation_projects", result.validationProjects},
                               {"validation_folds", result.validationFolds},
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
