#include "mlgo/trace/default_trace.h"

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <regex>

#include "mlgo/problems/problem.h"
#include "mlgo/support/errors.h"
#include "mlgo/support/parallel_for.h"
#include "mlgo/support/text_input.h"
#include "mlgo/trace/sampling.h"
#include "mlgo/trace/trace_format.h"
#include "mlgo/trace/trace_writer.h"

namespace mlgo {

using nlohmann::json;

namespace {

/// Keeps workers from running too far ahead of the oldest unfinished module,
/// which bounds what the shard writers hold in their reorder buffers.
class CompletionWindow {
 public:
  CompletionWindow(size_t count, size_t width) : done_(count, false), width_(width) {}
  void waitForTurn(size_t slot) {
    std::unique_lock<std::mutex> lock(mutex_);
    changed_.wait(lock, [&] { return slot < oldestPending_ + width_; });
  }
  void complete(size_t slot) {
    std::lock_guard<std::mutex> lock(mutex_);
    done_[slot] = true;
    while (oldestPending_ < done_.size() && done_[oldestPending_]) ++oldestPending_;
    changed_.notify_all();
  }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<bool> done_;
  size_t width_;
  size_t oldestPending_ = 0;
};

}  // namespace

DefaultTraceSummary runDefaultTrace(const Corpus &corpus, const CompilerDriver &driver, const Problem &problem,
                                    const DefaultTraceOptions &options, const CompilerDriver::Progress &progress) {
  if (!(options.samplingRate > 0 && options.samplingRate <= 1))
    throw UsageError("--sampling-rate must be in (0, 1]");
  if (options.shards == 0) throw UsageError("--shards must be at least 1");
  std::optional<std::regex> filter;
  if (options.moduleFilter) filter = compileUserRegex("--module-filter", *options.moduleFilter);
  const auto start = std::chrono::steady_clock::now();
  DefaultTraceSummary summary;
  summary.corpusModules = corpus.modules.size();
  std::vector<size_t> sampled;
  for (size_t i = 0; i < corpus.modules.size(); ++i) {
    const std::string &name = corpus.modules[i].name;
    if (filter && !std::regex_search(name, *filter)) continue;
    if (isSampled(name, options.samplingRate, options.seed)) sampled.push_back(i);
  }
  summary.sampled = sampled.size();

  json header{{"format", trace::kFormatName},
              {"version", trace::kFormatVersion},
              {"problem", problem.name()},
              {"feature_names", problem.featureNames()}};
  trace::TraceWriter writer(options.output, problem.name(), header, options.shards);

  const unsigned threads = resolveThreadCount(driver.options().threads);
  CompletionWindow window(sampled.size(), 4 * size_t(threads) + options.shards);
  std::vector<CompileResult> results(sampled.size());
  std::vector<uint64_t> decisionCounts(sampled.size(), 0);
  std::mutex progressMutex;
  size_t done = 0;
  parallelFor(sampled.size(), threads, [&](size_t slot) {
    window.waitForTurn(slot);
    const CorpusModule &module = corpus.modules[sampled[slot]];
    trace::ModuleTrace moduleTrace;
    moduleTrace.position = sampled[slot];
    moduleTrace.name = module.name;
    results[slot] = driver.compile({&module, "", {problem.defaultTracingHook(moduleTrace)}});
    if (results[slot].ok()) {
      moduleTrace.nativeSize = results[slot].sizes.text;
      decisionCounts[slot] = moduleTrace.decisions();
      writer.submit(slot, trace::encodeModule(moduleTrace));
    } else {
      writer.submit(slot, std::nullopt);
    }
    window.complete(slot);
    if (progress) {
      std::lock_guard<std::mutex> lock(progressMutex);
      progress(++done, sampled.size());
    }
  });

  json sizes = json::object();
  json failures = json::array();
  for (size_t slot = 0; slot < sampled.size(); ++slot) {
    const CorpusModule &module = corpus.modules[sampled[slot]];
    const CompileResult &result = results[slot];
    summary.compileSeconds += result.seconds;
    if (result.ok()) {
      ++summary.traced;
      summary.decisions += decisionCounts[slot];
      sizes[module.name] = result.sizes.text;
    } else {
      summary.failures.push_back({module.name, result.failure, result.message});
      failures.push_back({{"name", module.name}, {"failure", failureKindName(result.failure)},
                          {"message", result.message}});
    }
  }
  summary.recordBytes = writer.recordBytes();
  json description{{"format", trace::kFormatName},
                   {"version", trace::kFormatVersion},
                   {"problem", problem.name()},
                   {"feature_names", problem.featureNames()},
                   {"policy", "default"},
                   {"corpus", corpus.directory.string()},
                   {"corpus_modules", corpus.modules.size()},
                   {"sampling_rate", options.samplingRate},
                   {"seed", options.seed},
                   {"module_filter", options.moduleFilter.value_or("")},
                   {"modules_sampled", summary.sampled},
                   {"modules_traced", summary.traced},
                   {"modules_failed", failures},
                   {"decisions", summary.decisions},
                   {"record_bytes", summary.recordBytes},
                   {"mlgo_version", MLGO_VERSION}};
  summary.traceBytes = writer.finish(description, json{{"metric", "text"}, {"policy", "default"}, {"sizes", sizes}});
  summary.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return summary;
}

}  // namespace mlgo
