#include "mlgo/tracing/default_trace.h"

#include <chrono>
#include <cstring>
#include <map>
#include <condition_variable>
#include <mutex>

#include "mlgo/distributed/rank_share.h"
#include "mlgo/driver/compile_worker.h"
#include "mlgo/problems/problem.h"
#include "mlgo/support/errors.h"
#include "mlgo/support/parallel_for.h"
#include "mlgo/support/text_input.h"
#include "mlgo/support/user_regex.h"
#include "mlgo/support/sampling.h"
#include "mlgo/trace/trace_format.h"
#include "mlgo/trace/trace_writer.h"
#include "mlgo/support/varint.h"

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

/// What tracing one module gave: its compile, and its record when it worked.
struct SlotOutcome {
  CompileResult result;
  uint64_t decisions = 0;
  std::optional<std::string> record;
  std::map<std::string, double> measures;  ///< the problem's measures
};

std::string encodeSlotOutcome(const SlotOutcome &outcome) {
  std::string bytes;
  putBytes(bytes, encodeCompileReply(outcome.result));
  putVarint(bytes, outcome.decisions);
  putVarint(bytes, outcome.record.has_value());
  if (outcome.record) putBytes(bytes, *outcome.record);
  putVarint(bytes, outcome.measures.size());
  for (const auto &[name, value] : outcome.measures) {
    putBytes(bytes, name);
    putDouble(bytes, value);
  }
  return bytes;
}

SlotOutcome decodeSlotOutcome(std::string_view bytes) {
  ByteReader reader(bytes);
  SlotOutcome outcome;
  outcome.result = decodeCompileReply(std::string(reader.bytes()));
  outcome.decisions = reader.varint();
  if (reader.varint()) outcome.record = std::string(reader.bytes());
  for (uint64_t count = reader.varint(); count > 0; --count) {
    std::string name(reader.bytes());
    outcome.measures[name] = reader.float64();
  }
  return outcome;
}

/// The positions of the modules to trace. A filter or rate that leaves none
/// is a bad flag value: a trace of nothing is of no use to any later step.
std::vector<size_t> sampledModules(const Corpus &corpus, const std::optional<UserRegex> &filter,
                                   const DefaultTraceOptions &options) {
  std::vector<size_t> sampled;
  size_t matching = 0;
  for (size_t i = 0; i < corpus.modules.size(); ++i) {
    const std::string &name = corpus.modules[i].name;
    if (filter && !filter->search(name)) continue;
    ++matching;
    if (isSampled(name, options.samplingRate, options.seed)) sampled.push_back(i);
  }
  if (corpus.modules.empty() || !sampled.empty()) return sampled;
  if (matching == 0)
    throw UsageError("--module-filter " + *options.moduleFilter + " matches none of the " +
                     std::to_string(corpus.modules.size()) + " modules of " + corpus.directory.string());
  throw UsageError("--sampling-rate " + shareText(options.samplingRate) + " samples none of the " +
                   std::to_string(matching) + " modules (--seed " + std::to_string(options.seed) +
                   "); give a larger rate");
}

}  // namespace

DefaultTraceSummary runDefaultTrace(const Corpus &corpus, const CompilerDriver &driver, const Problem &problem,
                                    const DefaultTraceOptions &options, const CompilerDriver::Progress &progress,
                                    Cluster &cluster) {
  const bool leader = cluster.isLeader();
  checkSamplingShare("--sampling-rate", options.samplingRate);
  if (options.shards == 0) throw UsageError("--shards must be at least 1");
  std::optional<UserRegex> filter;
  if (options.moduleFilter) filter.emplace("--module-filter", *options.moduleFilter);
  const auto start = std::chrono::steady_clock::now();
  DefaultTraceSummary summary;
  summary.corpusModules = corpus.modules.size();
  const std::vector<size_t> sampled = sampledModules(corpus, filter, options);
  summary.sampled = sampled.size();

  const json header = trace::traceHeader(problem.name(), problem.decisionSpec());
  trace::TraceWriter *writer = nullptr;
  std::optional<trace::TraceWriter> ownWriter;
  if (leader) writer = &ownWriter.emplace(options.output, problem.name(), header, options.shards);

  const unsigned threads = resolveThreadCount(driver.options().threads);
  std::vector<CompileResult> results(sampled.size());
  std::vector<uint64_t> decisionCounts(sampled.size(), 0);
  std::vector<std::map<std::string, double>> measures(sampled.size());
  std::mutex progressMutex;
  size_t done = 0;
  auto traceSlot = [&](size_t slot, size_t total) {
    const CorpusModule &module = corpus.modules[sampled[slot]];
    trace::ModuleTrace moduleTrace;
    moduleTrace.position = sampled[slot];
    moduleTrace.name = module.name;
    SlotOutcome outcome;
    const std::shared_ptr<PipelineHook> hook = problem.defaultTracingHook(moduleTrace);
    outcome.result = driver.compile({&module, "", {hook}});
    if (outcome.result.ok()) {
      moduleTrace.nativeSize = outcome.result.sizes.text;
      outcome.decisions = moduleTrace.decisions();
      outcome.record = trace::encodeModule(moduleTrace);
      outcome.measures = problem.measures(*hook);
    }
    if (progress) {
      std::lock_guard<std::mutex> lock(progressMutex);
      progress(++done, total);
    }
    return outcome;
  };
  auto keep = [&](size_t slot, SlotOutcome outcome) {
    results[slot] = std::move(outcome.result);
    decisionCounts[slot] = outcome.decisions;
    measures[slot] = std::move(outcome.measures);
    writer->submit(slot, std::move(outcome.record));
  };
  if (!cluster.distributed()) {
    CompletionWindow window(sampled.size(), 4 * size_t(threads) + options.shards);
    parallelFor(sampled.size(), threads, [&](size_t slot) {
      window.waitForTurn(slot);
      keep(slot, traceSlot(slot, sampled.size()));
      window.complete(slot);
    });
  } else {
    // Each rank traces its share; rank 0 writes every record in slot order.
    const std::vector<std::string> outcomes =
        gatherShares(cluster, sampled.size(), [&](const std::vector<size_t> &slots) {
          std::vector<std::string> encoded(slots.size());
          parallelFor(slots.size(), threads,
                      [&](size_t k) { encoded[k] = encodeSlotOutcome(traceSlot(slots[k], slots.size())); });
          return encoded;
        });
    if (!leader) {
      summary.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      return summary;
    }
    for (size_t slot = 0; slot < sampled.size(); ++slot) keep(slot, decodeSlotOutcome(outcomes[slot]));
  }

  json sizes = json::object();
  json fingerprints = json::object();
  json measured = json::object();
  json failures = json::array();
  for (size_t slot = 0; slot < sampled.size(); ++slot) {
    const CorpusModule &module = corpus.modules[sampled[slot]];
    const CompileResult &result = results[slot];
    summary.compileSeconds += result.seconds;
    if (result.ok()) {
      ++summary.traced;
      summary.decisions += decisionCounts[slot];
      sizes[module.name] = result.sizes.text;
      fingerprints[module.name] = CompilerDriver::moduleFingerprint(module);
      for (const auto &[name, value] : measures[slot]) measured[name][module.name] = value;
    } else {
      summary.failures.push_back({module.name, result.failure, result.message});
      failures.push_back({{"name", module.name}, {"failure", failureKindName(result.failure)},
                          {"message", result.message}});
    }
  }
  summary.recordBytes = writer->recordBytes();
  json description = header;
  description.update(json{{"policy", "default"},
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
                          {"mlgo_version", MLGO_VERSION}});
  json baselines{{"metric", "text"}, {"policy", "default"}, {"sizes", sizes}, {"fingerprints", fingerprints}};
  if (!measured.empty()) baselines["measures"] = measured;
  summary.traceBytes = writer->finish(description, baselines);
  summary.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return summary;
}

DefaultTraceSummary runDefaultTrace(const Corpus &corpus, const CompilerDriver &driver, const Problem &problem,
                                    const DefaultTraceOptions &options, const CompilerDriver::Progress &progress) {
  const std::unique_ptr<Cluster> single = singleProcessCluster();
  return runDefaultTrace(corpus, driver, problem, options, progress, *single);
}

}  // namespace mlgo
