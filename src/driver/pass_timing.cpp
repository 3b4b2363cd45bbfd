#include "mlgo/driver/pass_timing.h"

#include <algorithm>
#include <cmath>
#include <ctime>
#include <optional>
#include <vector>

#include <llvm/ADT/Any.h>
#include <llvm/IR/PassInstrumentation.h>
#include <llvm/Passes/PassBuilder.h>

#include "charged_functions.h"

namespace mlgo {

namespace {

/// CPU time of the calling thread: the compile's, whatever else the
/// machine runs.
uint64_t threadNanoseconds() {
  timespec now{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  return uint64_t(now.tv_sec) * 1000000000u + uint64_t(now.tv_nsec);
}

}  // namespace

void CostObservations::add(double functions, double instructions, double squares, double t, uint64_t largest) {
  const double features[kTerms] = {functions, instructions, squares};
  ++count;
  largestFunction = std::max(largestFunction, largest);
  nanoseconds += t;
  for (int i = 0; i < kTerms; ++i) {
    withTime[i] += features[i] * t;
    for (int j = 0; j < kTerms; ++j) products[i][j] += features[i] * features[j];
  }
}

void CostObservations::merge(const CostObservations &other) {
  count += other.count;
  nanoseconds += other.nanoseconds;
  largestFunction = std::max(largestFunction, other.largestFunction);
  for (int i = 0; i < kTerms; ++i) {
    withTime[i] += other.withTime[i];
    for (int j = 0; j < kTerms; ++j) products[i][j] += other.products[i][j];
  }
}

namespace {

/// Solves the normal equations of the terms in `subset` (a bit mask) by
/// Gaussian elimination; the other terms are 0. Nullopt when singular.
std::optional<std::array<double, CostObservations::kTerms>> solveTerms(const CostObservations &sums, unsigned subset) {
  constexpr int n = CostObservations::kTerms;
  std::vector<int> terms;
  for (int i = 0; i < n; ++i)
    if (subset & (1u << i)) terms.push_back(i);
  const size_t size = terms.size();
  std::vector<std::vector<double>> matrix(size, std::vector<double>(size + 1));
  for (size_t r = 0; r < size; ++r) {
    for (size_t c = 0; c < size; ++c) matrix[r][c] = sums.products[terms[r]][terms[c]];
    matrix[r][size] = sums.withTime[terms[r]];
  }
  for (size_t column = 0; column < size; ++column) {
    size_t pivot = column;
    for (size_t r = column + 1; r < size; ++r)
      if (std::abs(matrix[r][column]) > std::abs(matrix[pivot][column])) pivot = r;
    if (std::abs(matrix[pivot][column]) <= 1e-12 * std::abs(matrix[column][column]) || matrix[pivot][column] == 0)
      return std::nullopt;
    std::swap(matrix[pivot], matrix[column]);
    for (size_t r = 0; r < size; ++r) {
      if (r == column) continue;
      const double factor = matrix[r][column] / matrix[column][column];
      for (size_t c = column; c <= size; ++c) matrix[r][c] -= factor * matrix[column][c];
    }
  }
  std::array<double, n> solution{};
  for (size_t r = 0; r < size; ++r) solution[terms[r]] = matrix[r][size] / matrix[r][r];
  return solution;
}

}  // namespace

std::array<double, CostObservations::kTerms> CostObservations::fit() const {
  // Squared error of a solution, up to the constant sum of t^2.
  auto error = [this](const std::array<double, kTerms> &terms) {
    double total = 0;
    for (int i = 0; i < kTerms; ++i) {
      total -= 2 * terms[i] * withTime[i];
      for (int j = 0; j < kTerms; ++j) total += terms[i] * terms[j] * products[i][j];
    }
    return total;
  };
  std::array<double, kTerms> best{};
  double bestError = 0;  // all terms 0
  for (unsigned subset = 1; subset < (1u << kTerms); ++subset) {
    const auto solution = solveTerms(*this, subset);
    if (!solution || std::any_of(solution->begin(), solution->end(), [](double term) { return term < 0; })) continue;
    const double candidate = error(*solution);
    if (candidate < bestError) best = *solution, bestError = candidate;
  }
  return best;
}

void PassTimes::merge(const PassTimes &other) {
  for (const auto &[pass, observations] : other.passes) passes[pass].merge(observations);
  codeGeneration.merge(other.codeGeneration);
  largestFunction = std::max(largestFunction, other.largestFunction);
}

void PassTiming::beginCompile() {
  running_.clear();
  optimizationEnd_ = codeGenerationNanoseconds_ = 0;
}

void PassTiming::registerCallbacks(llvm::PassBuilder &builder) {
  llvm::PassInstrumentationCallbacks *instrumentation = builder.getPassInstrumentationCallbacks();
  if (!instrumentation) return;
  instrumentation->registerBeforeNonSkippedPassCallback([this](llvm::StringRef pass, llvm::Any unit) {
    Running running{pass.str()};
    if (!isPassWrapper(pass))
      forEachChargedFunction(unit, [&](uint64_t instructions) {
        running.functions += 1;
        running.charged += double(instructions);
        running.squared += double(instructions) * double(instructions);
        running.largest = std::max(running.largest, instructions);
        times_.largestFunction = std::max(times_.largestFunction, instructions);
      });
    running.startNanoseconds = threadNanoseconds();
    running_.push_back(std::move(running));
  });
  instrumentation->registerAfterPassCallback(
      [this](llvm::StringRef, llvm::Any, const llvm::PreservedAnalyses &) { finishPass(); });
  instrumentation->registerAfterPassInvalidatedCallback(
      [this](llvm::StringRef, const llvm::PreservedAnalyses &) { finishPass(); });
}

/// A pass's own time is what it took less the passes it ran (a pass
/// manager's, an adaptor's, the inliner's nested simplification): the model
/// charges each of those for itself.
void PassTiming::finishPass() {
  if (running_.empty()) return;
  const uint64_t now = threadNanoseconds();
  const Running finished = std::move(running_.back());
  running_.pop_back();
  const uint64_t took = now - finished.startNanoseconds;
  if (!isPassWrapper(finished.pass))
    times_.passes[finished.pass].add(finished.functions, finished.charged, finished.squared,
                                     double(took - std::min(took, finished.nestedNanoseconds)), finished.largest);
  if (running_.empty())
    optimizationEnd_ = now;
  else
    running_.back().nestedNanoseconds += took;
}

void PassTiming::objectEmitted(std::string_view) {
  if (optimizationEnd_ != 0) codeGenerationNanoseconds_ = threadNanoseconds() - optimizationEnd_;
}

void PassTiming::recordCodeGeneration(uint64_t optimizedInstructions) {
  if (codeGenerationNanoseconds_ != 0 && optimizedInstructions > 0)
    times_.codeGeneration.add(1, double(optimizedInstructions), 0, double(codeGenerationNanoseconds_));
  codeGenerationNanoseconds_ = 0;
}

}  // namespace mlgo
