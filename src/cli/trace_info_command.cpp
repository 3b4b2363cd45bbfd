// mlgo trace-info: look inside a trace.
#include <iostream>
#include <memory>

#include <spdlog/spdlog.h>

#include "commands.h"
#include "mlgo/support/errors.h"
#include "mlgo/support/exit_codes.h"
#include "mlgo/trace/trace_stats.h"

namespace mlgo::cli {

namespace {

struct TraceInfoFlags {
  std::string trace;
  std::string module;
  bool json = false;
};

int runTraceInfo(const TraceInfoFlags &flags) {
  trace::TraceReader reader(flags.trace);
  if (!flags.module.empty()) {
    bool found = false;
    reader.forEachModule([&](const trace::ModuleTrace &module) {
      if (module.name != flags.module) return;
      found = true;
      std::cout << trace::moduleToJson(reader, module).dump(flags.json ? -1 : 2) << "\n";
    });
    if (!found) throw InputError(flags.trace + ": no module named " + flags.module + " in the trace");
    return exit_code::kSuccess;
  }
  trace::TraceStats stats = trace::computeTraceStats(reader);
  if (flags.json)
    std::cout << trace::traceStatsToJson(reader, stats).dump(2) << "\n";
  else
    std::cout << trace::traceStatsToText(reader, stats);
  if (stats.error.empty()) return exit_code::kSuccess;
  // The counts up to the damage are the result (stdout); the damage is an error.
  spdlog::error("{}", stats.error);
  return exit_code::kBadInput;
}

}  // namespace

void addTraceInfoCommand(CLI::App *command, CommandRunner &runner) {
  auto flags = std::make_shared<TraceInfoFlags>();
  command->add_option("trace", flags->trace, "Trace directory")->required();
  command->add_option("--module", flags->module, "Print this module's decisions (JSON)");
  command->add_flag("--json", flags->json, "Machine-readable output");
  command->callback([flags, &runner] { runner = [flags] { return runTraceInfo(*flags); }; });
}

}  // namespace mlgo::cli
