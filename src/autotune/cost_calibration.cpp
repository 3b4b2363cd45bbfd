#include "mlgo/autotune/cost_calibration.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <map>
#include <memory>
#include <numeric>
#include <random>

#include "mlgo/driver/optimization_work.h"
#include "mlgo/support/errors.h"

namespace mlgo::autotune {

namespace {

struct ModuleSize {
  const CorpusModule *module;
  uint64_t largest = 0, total = 0;
};

/// Picks up to `count` of `candidates` not yet chosen, first by `before`.
template <typename Order>
void chooseBy(std::vector<ModuleSize> candidates, Order before, size_t count, std::vector<const CorpusModule *> &chosen) {
  std::stable_sort(candidates.begin(), candidates.end(), before);
  for (const ModuleSize &candidate : candidates) {
    if (count == 0) return;
    if (std::find(chosen.begin(), chosen.end(), candidate.module) != chosen.end()) continue;
    chosen.push_back(candidate.module);
    --count;
  }
}

constexpr size_t kLeastObservations = 3;

}  // namespace

std::vector<const CorpusModule *> calibrationModules(const Corpus &corpus, size_t count) {
  std::vector<ModuleSize> sizes;
  for (const CorpusModule &module : corpus.modules) {
    if (!module.loadError.empty()) continue;
    try {
      const std::vector<uint64_t> functions = functionInstructionCounts(module.bitcodePath);
      if (functions.empty()) continue;
      sizes.push_back({&module, *std::max_element(functions.begin(), functions.end()),
                       std::accumulate(functions.begin(), functions.end(), uint64_t(0))});
    } catch (const InputError &) {
      // Not bitcode: its compiles would fail and time nothing.
    }
  }
  std::vector<const CorpusModule *> chosen;
  chooseBy(sizes, [](const ModuleSize &a, const ModuleSize &b) { return a.largest > b.largest; }, count / 3, chosen);
  chooseBy(sizes, [](const ModuleSize &a, const ModuleSize &b) { return a.total > b.total; }, count / 3, chosen);
  // The rest evenly over the remaining modules, smallest to largest.
  std::vector<ModuleSize> rest;
  for (const ModuleSize &size : sizes)
    if (std::find(chosen.begin(), chosen.end(), size.module) == chosen.end()) rest.push_back(size);
  std::stable_sort(rest.begin(), rest.end(), [](const ModuleSize &a, const ModuleSize &b) { return a.total < b.total; });
  const size_t wanted = std::min(count - chosen.size(), rest.size());
  for (size_t i = 0; i < wanted; ++i) chosen.push_back(rest[(2 * i + 1) * rest.size() / (2 * wanted)].module);
  std::vector<const CorpusModule *> inCorpusOrder;
  for (const CorpusModule &module : corpus.modules)
    if (std::find(chosen.begin(), chosen.end(), &module) != chosen.end()) inCorpusOrder.push_back(&module);
  return inCorpusOrder;
}

std::vector<std::string> calibrationPipelines(const SearchSpace &space, const CostCalibrationOptions &options,
                                              const std::string &source) {
  std::vector<std::string> pipelines{""};
  if (!options.pipelines.empty()) {
    for (size_t line = 0; line < options.pipelines.size(); ++line)
      pipelines.push_back(space.pipeline(
          space.listOfPipeline(options.pipelines[line], source, "line " + std::to_string(line + 1))));
    return pipelines;
  }
  std::vector<int> elements(space.passes().size());
  std::iota(elements.begin(), elements.end(), 0);
  std::mt19937_64 random(options.seed);
  const size_t length = std::max<size_t>(1, options.listLength);
  for (size_t round = 0; round < options.rounds; ++round) {
    std::shuffle(elements.begin(), elements.end(), random);
    for (size_t start = 0; start < elements.size(); start += length)
      pipelines.push_back(space.pipeline(std::vector<int>(
          elements.begin() + long(start), elements.begin() + long(std::min(elements.size(), start + length)))));
  }
  return pipelines;
}

CostCalibration calibrateCosts(const Corpus &corpus, const CompilerDriver &driver, const SearchSpace &space,
                               const CostCalibrationOptions &options) {
  CostCalibration calibration;
  const std::vector<const CorpusModule *> modules = calibrationModules(corpus, options.modules);
  const std::vector<std::string> pipelines = calibrationPipelines(space, options);
  std::vector<CompileRequest> requests;
  std::vector<std::shared_ptr<PassTiming>> timings;
  std::vector<std::shared_ptr<OptimizationWork>> estimates;
  for (const CorpusModule *module : modules) {
    calibration.modules.push_back(module->name);
    for (const std::string &pipeline : pipelines) {
      timings.push_back(std::make_shared<PassTiming>());
      estimates.push_back(std::make_shared<OptimizationWork>());
      // The estimate's hook first: its work happens before a pass's timer starts.
      requests.push_back({module, pipeline, {estimates.back(), timings.back()}});
    }
  }
  const std::vector<CompileResult> results = driver.compileAll(requests, options.progress);
  for (size_t i = 0; i < requests.size(); ++i) {
    CalibrationCompile compile{requests[i].module->name, requests[i].passPipeline, results[i].ok()};
    if (compile.ok) {
      timings[i]->recordCodeGeneration(results[i].irInstructions);
      calibration.times.merge(timings[i]->times());
      for (const auto &[pass, observed] : timings[i]->times().passes) compile.measuredNanoseconds += observed.nanoseconds;
      compile.measuredNanoseconds += timings[i]->times().codeGeneration.nanoseconds;
      compile.estimatedNanoseconds = double(estimates[i]->estimatedNanoseconds()) +
                                     double(estimatedCodeGenerationNanoseconds(results[i].irInstructions));
    }
    calibration.compiles.push_back(std::move(compile));
  }
  return calibration;
}

std::vector<double> ratioErrors(const CostCalibration &calibration) {
  std::map<std::string, const CalibrationCompile *> recorded;
  for (const CalibrationCompile &compile : calibration.compiles)
    if (compile.pipeline.empty() && compile.ok) recorded[compile.module] = &compile;
  std::vector<double> errors;
  for (const CalibrationCompile &compile : calibration.compiles) {
    auto base = recorded.find(compile.module);
    if (compile.pipeline.empty() || !compile.ok || base == recorded.end()) continue;
    const CalibrationCompile &level = *base->second;
    if (level.measuredNanoseconds <= 0 || level.estimatedNanoseconds <= 0 || compile.measuredNanoseconds <= 0)
      continue;
    errors.push_back((compile.estimatedNanoseconds / level.estimatedNanoseconds) /
                     (compile.measuredNanoseconds / level.measuredNanoseconds));
  }
  return errors;
}

std::string costModelSource(const PassTimes &times) {
  std::string text =
      "// Generated by `mlgo calibrate-costs`; do not edit.\n"
      "// Included by src/driver/optimization_work.cpp (see optimization_work.h).\n"
      "// {pass class, ns per function, ns per instruction, ns per squared instruction,\n"
      "//  the largest function it was timed on}\n"
      "constexpr PassCost kPassCosts[] = {\n";
  std::vector<double> perFunction, perInstruction;
  char line[512];
  for (const auto &[pass, observations] : times.passes) {
    if (observations.count < kLeastObservations) continue;
    const auto [c, a, q] = observations.fit();
    perFunction.push_back(c);
    perInstruction.push_back(a);
    std::snprintf(line, sizeof line, "    {\"%s\", %.1f, %.1f, %.5f, %" PRIu64 "},  // %" PRIu64 " runs, %.3f s\n",
                  pass.c_str(), c, a, q, std::max<uint64_t>(1, observations.largestFunction), observations.count,
                  observations.nanoseconds / 1e9);
    text += line;
  }
  text += "};\n";
  auto median = [](std::vector<double> values) {
    std::sort(values.begin(), values.end());
    return values.empty() ? 0.0 : values[values.size() / 2];
  };
  const auto codeGeneration = times.codeGeneration.fit();
  std::snprintf(line, sizeof line,
                "constexpr double kUncalibratedNsPerFunction = %.1f;\n"
                "constexpr double kUncalibratedNsPerInstruction = %.1f;\n"
                "constexpr double kCodeGenerationNsPerModule = %.1f;\n"
                "constexpr double kCodeGenerationNsPerInstruction = %.1f;\n"
                "constexpr double kLargestCalibratedFunction = %" PRIu64 ";\n",
                median(perFunction), median(perInstruction), codeGeneration[0], codeGeneration[1],
                std::max<uint64_t>(1, times.largestFunction));
  text += line;
  return text;
}

}  // namespace mlgo::autotune
