#include "mlgo/report/training_curves.h"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>
#include <spdlog/fmt/fmt.h>

#include "mlgo/metrics/metrics_keys.h"
#include "mlgo/support/atomic_file.h"
#include "mlgo/support/errors.h"
#include "mlgo/support/text_input.h"

namespace mlgo {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

/// Where a record came from, for messages.
struct RecordPlace {
  const fs::path &file;
  std::string entry;  ///< "line N"
  std::string describe(const std::string &problem) const {
    return describeInputProblem(file.string(), entry, problem);
  }
  double number(const json &object, const char *key, const std::string &within = "") const {
    if (!object.is_object() || !object.contains(key) || !object[key].is_number())
      throw InputError(describeInputProblem(file.string(), within.empty() ? entry : entry + " " + within,
                                            std::string("missing number \"") + key + "\""));
    return object[key].get<double>();
  }
};

/// A moving average over the last `window` values, for noisy per-iteration
/// figures (each iteration samples other modules).
class MovingAverage {
 public:
  explicit MovingAverage(size_t window) : window_(window) {}
  double add(double value) {
    values_.push_back(value);
    sum_ += value;
    if (values_.size() > window_) sum_ -= values_[values_.size() - 1 - window_];
    return sum_ / double(std::min(values_.size(), window_));
  }

 private:
  size_t window_;
  std::vector<double> values_;
  double sum_ = 0;
};

// --- train-ppo ---------------------------------------------------------------

struct PPORecord {
  double iteration = 0;
  double mean = 0, p10 = 0, p25 = 0, p50 = 0, p75 = 0, p90 = 0;
  double sizeChange = 0, entropy = 0, kl = 0;
  double lossTotal = 0, lossPolicyGradient = 0, lossEntropy = 0, lossKl = 0;
  double decisionsPerSecond = 0, collectSeconds = 0, trainSeconds = 0;
};

bool isPPORecord(const json &m) {
  using namespace metrics_keys;
  return m.contains(kRewardDistribution) && m.contains(kSize) && m.contains(kLoss) && m.contains(kSeconds);
}

/// What a record's `size` measures (text, text+data, a problem's measure),
/// into `measure` when the record says. The name goes into the plots'
/// titles (gnuplot commands), so only a name's characters are accepted.
void noteMeasure(const json &m, const RecordPlace &at, std::string &measure) {
  using namespace metrics_keys;
  if (!m[kSize].contains(kSizeMetric) || !m[kSize][kSizeMetric].is_string()) return;
  const std::string name = m[kSize][kSizeMetric].get<std::string>();
  const bool plain = !name.empty() && name.size() <= 64 && std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum((unsigned char)c) || c == '_' || c == '+' || c == '-' || c == '.';
  });
  if (!plain)
    throw InputError(at.describe(std::string(kSize) + "." + kSizeMetric + " is not a measure's name (letters, " +
                                 "digits, _ + - . only)"));
  measure = name;
}

PPORecord readPPORecord(const json &m, const RecordPlace &at, std::string &measure) {
  using namespace metrics_keys;
  PPORecord r;
  r.iteration = at.number(m, kIteration);
  const json &reward = m[kRewardDistribution];
  r.mean = at.number(reward, kMean, kRewardDistribution);
  r.p10 = at.number(reward, kP10, kRewardDistribution);
  r.p25 = at.number(reward, kP25, kRewardDistribution);
  r.p50 = at.number(reward, kP50, kRewardDistribution);
  r.p75 = at.number(reward, kP75, kRewardDistribution);
  r.p90 = at.number(reward, kP90, kRewardDistribution);
  r.sizeChange = 100 * at.number(m[kSize], kSizeChange, kSize);
  noteMeasure(m, at, measure);
  r.entropy = at.number(m, kEntropy);
  r.kl = at.number(m, kKl);
  r.lossTotal = at.number(m[kLoss], kLossTotal, kLoss);
  r.lossPolicyGradient = at.number(m[kLoss], kLossPolicyGradient, kLoss);
  r.lossEntropy = at.number(m[kLoss], kLossEntropy, kLoss);
  r.lossKl = at.number(m[kLoss], kLossKl, kLoss);
  r.decisionsPerSecond = at.number(m, kDecisionsPerSecond);
  r.collectSeconds = at.number(m[kSeconds], kCollectSeconds, kSeconds);
  r.trainSeconds = at.number(m[kSeconds], kTrainSeconds, kSeconds);
  return r;
}

TrainingCurves ppoCurves(const std::vector<PPORecord> &records, const std::string &measure) {
  TrainingCurves curves;
  curves.trainer = "train-ppo";
  curves.iterations = records.size();
  std::ostringstream out;
  out << "# iteration\tmean\tp10\tp25\tp50\tp75\tp90\tsize_change_pct\tsize_change_avg20\tentropy\tkl\t"
         "loss_total\tloss_policy_gradient\tloss_entropy\tloss_kl\tdecisions_per_second\tcollect_s\ttrain_s\n";
  MovingAverage sizeChange(20);
  double seconds = 0;
  for (const PPORecord &r : records) {
    seconds += r.collectSeconds + r.trainSeconds;
    out << fmt::format("{}\t{:.6g}\t{:.6g}\t{:.6g}\t{:.6g}\t{:.6g}\t{:.6g}\t{:.6g}\t{:.6g}\t{:.6g}\t{:.6g}\t{:.6g}\t"
                       "{:.6g}\t{:.6g}\t{:.6g}\t{:.6g}\t{:.6g}\t{:.6g}\n",
                       r.iteration, r.mean, r.p10, r.p25, r.p50, r.p75, r.p90, r.sizeChange,
                       sizeChange.add(r.sizeChange), r.entropy, r.kl, r.lossTotal, r.lossPolicyGradient,
                       r.lossEntropy, r.lossKl, r.decisionsPerSecond, r.collectSeconds, r.trainSeconds);
  }
  curves.table = out.str();
  curves.gnuplot =
      "set xlabel 'policy iteration'\n"
      "set output 'reward.png'\nset title 'Reward vs the default heuristic of the sampled modules (1 - " +
      measure + "/baseline)'\n"
      "set ylabel 'reward'\n"
      "plot 'data/training.tsv' using 1:4:6 with filledcurves lc rgb '#c6dbef' title 'p25-p75', \\\n"
      "     '' using 1:3 with lines lc rgb '#9ecae1' title 'p10', \\\n"
      "     '' using 1:5 with lines lc rgb '#3182bd' title 'p50', \\\n"
      "     '' using 1:7 with lines lc rgb '#08519c' title 'p90', \\\n"
      "     '' using 1:2 with lines lw 2 lc rgb '#d62728' title 'mean'\n"
      "set output 'size.png'\nset title 'Total " + measure + " of the sampled modules vs the default heuristic'\n"
      "set ylabel 'change (%)'\n"
      "plot 'data/training.tsv' using 1:8 with points pt 7 ps 0.4 lc rgb '#9ecae1' title 'iteration', \\\n"
      "     '' using 1:9 with lines lw 2 lc rgb '#08519c' title '20-iteration mean', 0 with lines lc rgb 'black' "
      "notitle\n"
      "set output 'policy.png'\nset title 'Policy entropy and KL divergence per update'\n"
      "set ylabel 'entropy (nats)'\nset y2label 'KL'\nset y2tics\nset ytics nomirror\n"
      "plot 'data/training.tsv' using 1:10 with lines lw 2 title 'entropy', \\\n"
      "     '' using 1:11 axes x1y2 with lines title 'KL'\n"
      "unset y2label\nunset y2tics\nset ytics mirror\n"
      "set output 'loss.png'\nset title 'PPO loss terms (mean over the gradient steps of an iteration)'\n"
      "set ylabel 'loss'\n"
      "plot 'data/training.tsv' using 1:12 with lines lw 2 title 'total', \\\n"
      "     '' using 1:13 with lines title 'policy gradient', '' using 1:14 with lines title 'entropy', \\\n"
      "     '' using 1:15 with lines title 'KL penalty'\n";
  curves.plots = {"reward.png", "size.png", "policy.png", "loss.png"};
  const PPORecord &last = records.back();
  curves.summary = fmt::format(
      "train-ppo, {} policy iterations, {:.0f} s of collection and training; last iteration {:.0f}: mean reward vs "
      "the default {:+.4f}, sampled modules {:+.2f}% {} vs the default, entropy {:.4f}",
      records.size(), seconds, last.iteration, last.mean, last.sizeChange, measure, last.entropy);
  return curves;
}

// --- train-es ----------------------------------------------------------------

struct ESRecord {
  double iteration = 0;
  double fitnessMean = 0, fitnessBest = 0, fitnessWorst = 0, policyReward = 0;
  double measureChange = 0;  ///< the unperturbed policy on the sampled modules vs the default, in %
  double compiles = 0, replayed = 0, failed = 0, collectSeconds = 0;
};

bool isESRecord(const json &m) {
  return m.contains(metrics_keys::kFitness) && m.contains(metrics_keys::kPolicyReward);
}

ESRecord readESRecord(const json &m, const RecordPlace &at, std::string &measure) {
  using namespace metrics_keys;
  ESRecord r;
  r.iteration = at.number(m, kIteration);
  r.fitnessMean = at.number(m[kFitness], kMean, kFitness);
  r.fitnessBest = at.number(m[kFitness], kFitnessBest, kFitness);
  r.fitnessWorst = at.number(m[kFitness], kFitnessWorst, kFitness);
  r.policyReward = at.number(m, kPolicyReward);
  r.measureChange = 100 * at.number(m[kSize], kSizeChange, kSize);
  noteMeasure(m, at, measure);
  r.compiles = at.number(m, kCompiles);
  r.replayed = at.number(m, kReplayed);
  r.failed = at.number(m, kFailed);
  r.collectSeconds = at.number(m[kSeconds], kCollectSeconds, kSeconds);
  return r;
}

TrainingCurves esCurves(const std::vector<ESRecord> &records, const std::string &measure) {
  TrainingCurves curves;
  curves.trainer = "train-es";
  curves.iterations = records.size();
  std::ostringstream out;
  out << "# iteration\tfitness_mean\tfitness_best\tfitness_worst\tpolicy_reward\tmeasure_change_pct\t"
         "measure_change_avg20\tcompiles\treplayed\tfailed\tcollect_s\n";
  MovingAverage measureChange(20);
  double seconds = 0;
  for (const ESRecord &r : records) {
    seconds += r.collectSeconds;
    out << fmt::format("{}\t{:.6g}\t{:.6g}\t{:.6g}\t{:.6g}\t{:.6g}\t{:.6g}\t{}\t{}\t{}\t{:.6g}\n", r.iteration,
                       r.fitnessMean, r.fitnessBest, r.fitnessWorst, r.policyReward, r.measureChange,
                       measureChange.add(r.measureChange), r.compiles, r.replayed, r.failed, r.collectSeconds);
  }
  curves.table = out.str();
  curves.gnuplot = fmt::format(
      "set xlabel 'ES iteration'\n"
      "set output 'fitness.png'\nset title 'Candidates'' fitness (mean reward vs the default on the sampled "
      "modules)'\n"
      "set ylabel 'reward'\n"
      "plot 'data/training.tsv' using 1:4:3 with filledcurves lc rgb '#c6dbef' title 'worst-best candidate', \\\n"
      "     '' using 1:2 with lines lc rgb '#3182bd' title 'candidates'' mean', \\\n"
      "     '' using 1:5 with lines lw 2 lc rgb '#d62728' title 'unperturbed policy'\n"
      "set output 'measure.png'\nset title 'The policy''s {} on the sampled modules vs the default'\n"
      "set ylabel 'change (%)'\n"
      "plot 'data/training.tsv' using 1:6 with points pt 7 ps 0.4 lc rgb '#9ecae1' title 'iteration', \\\n"
      "     '' using 1:7 with lines lw 2 lc rgb '#08519c' title '20-iteration mean', 0 with lines lc rgb 'black' "
      "notitle\n"
      "set output 'compiles.png'\nset title 'Compiles per iteration (replayed: taken from the trajectory memo)'\n"
      "set ylabel 'modules'\nset y2label 'collection (s)'\nset y2tics\nset ytics nomirror\n"
      "plot 'data/training.tsv' using 1:8 with lines lw 2 title 'compiled', '' using 1:9 with lines title "
      "'replayed', \\\n"
      "     '' using 1:10 with lines title 'failed', '' using 1:11 axes x1y2 with lines title 'seconds'\n"
      "unset y2label\nunset y2tics\nset ytics mirror\n",
      measure);
  curves.plots = {"fitness.png", "measure.png", "compiles.png"};
  const ESRecord &last = records.back();
  curves.summary = fmt::format(
      "train-es, {} iterations, {:.0f} s of compiles; last iteration {:.0f}: policy reward {:+.4f}, sampled modules "
      "{:+.2f}% {} vs the default",
      records.size(), seconds, last.iteration, last.policyReward, last.measureChange, measure);
  return curves;
}

}  // namespace

TrainingCurves readTrainingCurves(const fs::path &file) {
  if (fs::exists(file)) requireRegularFile(file);
  std::ifstream in(file);
  if (!in) throw InputError(file.string() + ": cannot open (is --run a train-ppo or train-es output directory?)");
  std::vector<PPORecord> ppo;
  std::vector<ESRecord> es;
  std::string measure = "size", line;
  for (size_t number = 1; std::getline(in, line); ++number) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    const RecordPlace at{file, "line " + std::to_string(number)};
    const json m = parseJsonOrDiscarded(line);
    if (!m.is_object()) throw InputError(at.describe("not a JSON object"));
    if (isPPORecord(m) && es.empty()) ppo.push_back(readPPORecord(m, at, measure));
    else if (isESRecord(m) && ppo.empty()) es.push_back(readESRecord(m, at, measure));
    else
      throw InputError(at.describe(
          "not a record of the run's trainer (train-ppo: reward_distribution, size, loss, seconds; train-es: "
          "fitness, policy_reward, size, seconds)"));
  }
  if (!ppo.empty()) return ppoCurves(ppo, measure);
  if (!es.empty()) return esCurves(es, measure);
  throw InputError(file.string() + ": no iterations recorded yet");
}

}  // namespace mlgo
