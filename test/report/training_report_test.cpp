// `mlgo report` from real (short) train-ppo and train-es runs and real evaluations made
// by the mlgo binary on the test corpus.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "mlgo/report/training_report.h"
#include "mlgo/support/atomic_file.h"
#include "mlgo/support/errors.h"
#include "mlgo/support/exit_codes.h"
#include "support/test_environment.h"

using namespace mlgo;
using Catch::Matchers::Contains;
namespace fs = std::filesystem;

namespace {

/// A 3-iteration train-ppo run and two evaluations of the test corpus.
struct TrainedRun : test::TracedTestCorpus {
  TrainedRun() {
    auto run = test::runProgram(
        test::mlgoBinary(),
        {"train-ppo", "--corpus", (scratch / "corpus").string(), "--vocab", (scratch / "vocab").string(),
         "--baselines", (scratch / "trace").string(), "--output", (scratch / "ppo").string(), "--threads", "2",
         "--set", "num_policy_iterations=3", "--set", "num_modules=5", "--set", "num_iterations=20", "--set",
         "batch_size=8", "--set", "train_sequence_length=4"});
    INFO(run.err);
    REQUIRE(run.exitCode == exit_code::kSuccess);
    for (auto [name, how] :
         {std::pair<std::string, std::vector<std::string>>{"policy", {"--policy", (scratch / "ppo/policy").string()}},
          {"never", {"--inline", "never"}}}) {
      std::vector<std::string> args{"eval", "--corpus", (scratch / "corpus").string(), "--threads", "2", "--json",
                                    (scratch / ("eval-" + name + ".json")).string()};
      args.insert(args.end(), how.begin(), how.end());
      auto eval = test::runProgram(test::mlgoBinary(), args);
      INFO(eval.err);
      REQUIRE(eval.exitCode == exit_code::kSuccess);
    }
  }
};

/// Totals recomputed from an eval JSON, independently of the report code.
std::pair<double, double> totals(const fs::path &evalJson) {
  const auto report = nlohmann::json::parse(readFile(evalJson));
  double baseline = 0, candidate = 0;
  for (const auto &module : report["modules"]) {
    baseline += module["baseline"]["text"].get<double>();
    candidate += module["candidate"]["text"].get<double>();
  }
  return {baseline, candidate};
}

size_t occurrences(const std::string &text, const std::string &part) {
  size_t count = 0;
  for (size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + part.size())) ++count;
  return count;
}

}  // namespace

TEST_CASE("report: a training run and its evaluations become PNG plots and one HTML page", "[report][rl]") {
  TrainedRun run;
  ReportOptions options;
  options.run = run / "ppo";
  options.evaluations = {{"policy", run / "eval-policy.json"}, {"never inlining", run / "eval-never.json"}};
  options.output = run / "report";
  const ReportSummary summary = writeTrainingReport(options);

  CHECK(summary.iterations == 3);
  REQUIRE(summary.plots.size() == 6);
  for (const fs::path &plot : summary.plots) {
    const std::string png = readFile(plot);
    INFO(plot);
    CHECK(png.substr(0, 8) == "\x89PNG\r\n\x1a\n");
    CHECK(png.size() > 2000);
  }

  REQUIRE(summary.rows.size() == 2);
  for (size_t i = 0; i < 2; ++i) {
    const auto [baseline, candidate] = totals(options.evaluations[i].second);
    CHECK(summary.rows[i].modules == 7);
    CHECK(summary.rows[i].baselineTotal == baseline);
    CHECK(summary.rows[i].candidateTotal == candidate);
    CHECK(summary.rows[i].moduleChanges.size() == 7);
  }
  // Never inlining makes the test corpus larger than -Oz.
  CHECK(summary.rows[1].change() > 0);
  CHECK(summary.rows[1].larger > 0);

  const std::string html = readFile(summary.html);
  CHECK(occurrences(html, "data:image/png;base64,") == 6);  // self-contained: every plot inline
  CHECK_THAT(html, Contains("<td>never inlining</td>") && Contains("<td>policy</td>"));
  CHECK_THAT(html, Contains("<td>" + std::to_string(static_cast<long>(summary.rows[1].baselineTotal)) + "</td>"));
  CHECK_THAT(html, Contains("3 policy iterations"));

  // The plotted data is the run's metrics, iteration by iteration.
  std::ifstream metrics(run / "ppo/metrics.jsonl"), data(run / "report/data/training.tsv");
  std::string header, line, record;
  std::getline(data, header);
  size_t rows = 0;
  while (std::getline(data, line) && std::getline(metrics, record)) {
    const auto m = nlohmann::json::parse(record);
    CHECK(std::stod(line.substr(0, line.find('\t'))) == m["iteration"].get<double>());
    const std::string afterIteration = line.substr(line.find('\t') + 1);
    CHECK(std::stod(afterIteration) == Approx(m["reward_distribution"]["mean"].get<double>()).margin(1e-6));
    ++rows;
  }
  CHECK(rows == 3);
}

TEST_CASE("report: a train-es run on regalloc plots its fitness, and evaluations compare the regalloc score",
          "[report][es][regalloc]") {
  test::ScratchDirectory scratch;
  test::regallocTracedCorpus(scratch / "corpus", scratch / "trace");
  test::regallocPolicyScoringBy("liverange_size").save(scratch / "start");
  auto es = test::runProgram(test::mlgoBinary(),
                             {"train-es", "--problem", "regalloc", "--corpus", (scratch / "corpus").string(),
                              "--warmstart", (scratch / "start").string(), "--baselines", (scratch / "trace").string(),
                              "--output", (scratch / "es").string(), "--set", "iterations=3", "--set",
                              "perturbations=2", "--set", "modules_per_iteration=2", "--set", "sigma=0.2"});
  INFO(es.err);
  REQUIRE(es.exitCode == exit_code::kSuccess);
  auto eval = test::runProgram(test::mlgoBinary(),
                               {"eval", "--problem", "regalloc", "--corpus", (scratch / "corpus").string(), "--policy",
                                (scratch / "es/policy").string(), "--json", (scratch / "eval.json").string()});
  INFO(eval.err);
  REQUIRE(eval.exitCode == exit_code::kSuccess);

  ReportOptions options;
  options.run = scratch / "es";
  options.evaluations = {{"es", scratch / "eval.json"}};
  options.metric = "regalloc_score";
  options.output = scratch / "report";
  const ReportSummary summary = writeTrainingReport(options);
  CHECK(summary.trainer == "train-es");
  CHECK(summary.iterations == 3);
  std::vector<std::string> plots;
  for (const fs::path &plot : summary.plots) {
    plots.push_back(plot.filename().string());
    CHECK(readFile(plot).substr(0, 8) == "\x89PNG\r\n\x1a\n");
  }
  CHECK(plots == std::vector<std::string>{"fitness.png", "measure.png", "compiles.png", "size-change-histogram.png",
                                          "size-change-sorted.png"});

  // The table is the score the evaluation measured, summed independently here.
  const auto report = nlohmann::json::parse(readFile(scratch / "eval.json"));
  double baseline = 0, candidate = 0;
  for (const auto &module : report["modules"]) {
    baseline += module["measures"]["baseline"]["regalloc_score"].get<double>();
    candidate += module["measures"]["candidate"]["regalloc_score"].get<double>();
  }
  REQUIRE(summary.rows.size() == 1);
  CHECK(summary.rows[0].baselineTotal == Approx(baseline));
  CHECK(summary.rows[0].candidateTotal == Approx(candidate));
  CHECK(baseline > 0);
  const std::string html = readFile(summary.html);
  CHECK_THAT(html, Contains("regalloc_score vs the baseline") && Contains("train-es, 3 iterations"));

  // The plotted rows are the run's records: fitness and the score's change.
  std::ifstream metrics(scratch / "es/metrics.jsonl"), data(scratch / "report/data/training.tsv");
  std::string line, record;
  std::getline(data, line);
  CHECK_THAT(line, Contains("fitness_best"));
  size_t rows = 0;
  while (std::getline(data, line) && std::getline(metrics, record)) {
    const auto m = nlohmann::json::parse(record);
    std::istringstream columns(line);
    double iteration = 0, mean = 0, best = 0, worst = 0, policy = 0, change = 0;
    columns >> iteration >> mean >> best >> worst >> policy >> change;
    CHECK(iteration == m["iteration"].get<double>());
    CHECK(best == Approx(m["fitness"]["best"].get<double>()).margin(1e-6));
    CHECK(worst == Approx(m["fitness"]["worst"].get<double>()).margin(1e-6));
    CHECK(change == Approx(100 * m["size"]["change"].get<double>()).margin(1e-4));
    ++rows;
  }
  CHECK(rows == 3);

  // Size evaluations lack the measure: named with the file and the module.
  options.run.reset();
  options.evaluations = {{"sizes", scratch / "eval.json"}};
  options.metric = "spill_count";
  CHECK_THROWS_WITH(writeTrainingReport(options), Contains("eval.json") && Contains("modules[0]") &&
                                                      Contains("no measure \"spill_count\""));
}

TEST_CASE("report: bad runs and evaluations are input errors naming the file and the entry", "[report][errors]") {
  test::ScratchDirectory scratch;
  ReportOptions options;
  options.output = scratch / "report";
  CHECK_THROWS_AS(writeTrainingReport(options), UsageError);  // nothing to report

  fs::create_directories(scratch / "run");
  options.run = scratch / "run";
  CHECK_THROWS_WITH(writeTrainingReport(options), Contains("metrics.jsonl") && Contains("cannot open"));
  writeFileAtomically(scratch / "run/metrics.jsonl", "\n{\"iteration\": 1}\n");
  CHECK_THROWS_AS(writeTrainingReport(options), InputError);
  CHECK_THROWS_WITH(writeTrainingReport(options), Contains("metrics.jsonl") && Contains("line 2"));
  writeFileAtomically(scratch / "run/metrics.jsonl",
                      "{\"iteration\": 1, \"fitness\": {\"mean\": 0, \"best\": 0, \"worst\": 0}, "
                      "\"policy_reward\": 0, \"size\": {\"change\": 0}, \"compiles\": 4, \"replayed\": 0, "
                      "\"seconds\": {\"collect\": 1}}\n");
  CHECK_THROWS_WITH(writeTrainingReport(options), Contains("line 1") && Contains("missing number \"failed\""));
  writeFileAtomically(scratch / "run/metrics.jsonl", "not json\n");
  CHECK_THROWS_WITH(writeTrainingReport(options), Contains("line 1") && Contains("not a JSON object"));

  options.run.reset();
  writeFileAtomically(scratch / "eval.json",
                      R"({"modules": [{"name": "a.o", "status": "ok", "baseline": {"text": 10}}]})");
  options.evaluations = {{"x", scratch / "eval.json"}};
  CHECK_THROWS_WITH(writeTrainingReport(options), Contains("eval.json") && Contains("modules[0] (a.o)") &&
                                                      Contains("no candidate sizes"));
  writeFileAtomically(scratch / "eval.json",
                      R"({"modules": [{"name": "a.o", "status": "ok", "baseline": {"text": 10}, "candidate": {}}]})");
  CHECK_THROWS_WITH(writeTrainingReport(options), Contains("modules[0] (a.o) candidate") && Contains("\"text\""));

  options.gnuplot = (scratch / "no-gnuplot").string();
  CHECK_THROWS_AS(writeTrainingReport(options), UsageError);
  CHECK_FALSE(fs::exists(scratch / "report/index.html"));
}

TEST_CASE("report: train-ppo writes TensorBoard events that decode against the schema", "[report][rl]") {
  TrainedRun run;
  std::vector<fs::path> files;
  for (const fs::directory_entry &entry : fs::directory_iterator(run / "ppo"))
    if (entry.path().filename().string().rfind("events.out.tfevents.", 0) == 0) files.push_back(entry.path());
  REQUIRE(files.size() == 1);
  const std::vector<std::string> events = test::decodeTensorBoardEvents(files.front(), run / "decoded");

  std::ifstream metricsFile(run / "ppo/metrics.jsonl");
  std::vector<nlohmann::json> metrics;
  for (std::string line; std::getline(metricsFile, line);) metrics.push_back(nlohmann::json::parse(line));
  REQUIRE(metrics.size() == 3);

  std::map<std::string, std::vector<std::pair<double, double>>> scalars;  // tag -> (step, value)
  std::vector<double> histogramSteps;
  for (const std::string &event : events) {
    const std::vector<double> steps = test::protoNumbers(event, "step");
    const size_t tagAt = event.find("tag: \"");
    if (tagAt == std::string::npos) continue;  // the file_version record
    const std::string tag = event.substr(tagAt + 6, event.find('"', tagAt + 6) - tagAt - 6);
    if (event.find("histo {") != std::string::npos) {
      CHECK(tag == "reward_distribution");
      CHECK(test::protoNumbers(event, "num") == std::vector<double>{double(metrics[size_t(steps.at(0)) - 1]
                                                                         ["reward_distribution"]["count"]
                                                                             .get<size_t>())});
      histogramSteps.push_back(steps.at(0));
    } else {
      scalars[tag].emplace_back(steps.at(0), test::protoNumbers(event, "simple_value").at(0));
    }
  }
  CHECK(histogramSteps == std::vector<double>{1, 2, 3});
  for (const char *tag : {"reward_distribution/mean", "reward_distribution/p10", "reward_distribution/p90",
                          "size/change", "entropy", "kl", "loss/total", "loss/policy_gradient"}) {
    INFO(tag);
    REQUIRE(scalars[tag].size() == 3);
  }
  for (size_t i = 0; i < 3; ++i) {
    CHECK(scalars["reward_distribution/mean"][i].first == double(i + 1));
    CHECK(scalars["reward_distribution/mean"][i].second ==
          Approx(metrics[i]["reward_distribution"]["mean"].get<double>()).margin(1e-6));
    CHECK(scalars["entropy"][i].second == Approx(metrics[i]["entropy"].get<double>()).epsilon(1e-5));
  }
}

TEST_CASE("report: labels and measure names stay data in the gnuplot script (no shell command runs)",
          "[report][errors]") {
  test::ScratchDirectory scratch;
  writeFileAtomically(scratch / "eval.json", R"({"modules": [{"name": "a.o", "status": "ok", "baseline": {"text": 10},
                                                  "candidate": {"text": 9}}]})");
  const fs::path planted = scratch / "planted";
  ReportOptions options;
  options.output = scratch / "report";
  options.evaluations = {{"x'\n!touch " + planted.string() + "\n'", scratch / "eval.json"}};
  writeTrainingReport(options);  // gnuplot runs the script
  CHECK_FALSE(fs::exists(planted));
  const std::string script = readFile(scratch / "report/plots.gnuplot");
  CHECK(script.find("\n!") == std::string::npos);
  CHECK_THAT(script, Contains("!touch " + planted.string()));  // still in the title, as text

  // A measure's name in a run's metrics reaches the titles too: only a name is accepted.
  fs::create_directories(scratch / "run");
  writeFileAtomically(scratch / "run/metrics.jsonl",
                      "{\"iteration\": 1, \"fitness\": {\"mean\": 0, \"best\": 0, \"worst\": 0}, "
                      "\"policy_reward\": 0, \"size\": {\"change\": 0, \"metric\": \"x'\\n!touch " +
                          planted.string() + "\"}, \"compiles\": 4, \"replayed\": 0, \"failed\": 0, "
                                             "\"seconds\": {\"collect\": 1}}\n");
  options.run = scratch / "run";
  options.evaluations.clear();
  CHECK_THROWS_WITH(writeTrainingReport(options), Contains("metrics.jsonl") && Contains("line 1") &&
                                                      Contains("not a measure's name"));
  CHECK_FALSE(fs::exists(planted));
}
