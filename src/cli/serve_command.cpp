// mlgo serve: answers a stock clang's questions (inlining, eviction, priority) with a policy, over
// LLVM's interactive model runner channel.
#include <atomic>
#include <csignal>
#include <cstdio>
#include <memory>

#include <spdlog/spdlog.h>

#include "commands.h"
#include "common_options.h"
#include "mlgo/problems/problem.h"
#include "mlgo/serve/channel_policy.h"
#include "mlgo/serve/interactive_server.h"
#include "mlgo/support/exit_codes.h"

namespace mlgo::cli {

namespace {

struct ServeFlags {
  std::string problem;  ///< empty: chosenProblem decides
  std::string policy;
  std::string channel;
  std::string log;
  size_t maxSessions = 0;
};

std::atomic<bool> stopServing{false};

void requestStop(int) { stopServing.store(true); }

/// SIGINT and SIGTERM end the server after the current call returns: no
/// SA_RESTART, so a blocked open() or read() returns EINTR and the server
/// checks the flag, then writes its trace and removes the pipes it made.
void installStopHandlers() {
  struct sigaction action {};
  action.sa_handler = requestStop;
  sigemptyset(&action.sa_mask);
  action.sa_flags = 0;
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
}

int runServe(const ServeFlags &flags) {
  const Problem &problem = chosenProblem(flags.problem, flags.policy);
  const std::unique_ptr<serve::ChannelPolicy> policy = problem.channelPolicy(flags.policy);
  serve::ServeOptions options;
  options.channelBase = flags.channel;
  options.maxSessions = flags.maxSessions;
  if (!flags.log.empty()) options.traceDirectory = flags.log;
  options.stop = &stopServing;
  const bool yesNo = problem.decisionSpec().kind() == trace::DecisionKind::YesNo;
  options.onSession = [yesNo](const serve::SessionReport &session) {
    if (session.problem.empty() && yesNo)
      spdlog::info("compilation {}: {} decisions, {} yes", session.index, session.decisions, session.nonzero);
    else if (session.problem.empty())
      spdlog::info("compilation {}: {} decisions", session.index, session.decisions);
    else
      spdlog::warn("compilation {}: {} decisions, then {}", session.index, session.decisions, session.problem);
  };
  installStopHandlers();
  spdlog::info("serving {} on {}.in / {}.out; compile with clang-19 {}", flags.policy, flags.channel, flags.channel,
               policy->compilerFlags(flags.channel));
  const serve::ServeSummary summary = serve::serveChannel(*policy, options);
  std::printf("served %zu compilations (%zu incomplete), %llu decisions\n", summary.sessions,
              summary.incompleteSessions, (unsigned long long)summary.decisions);
  return exit_code::kSuccess;
}

}  // namespace

void addServeCommand(CLI::App *command, CommandRunner &runner) {
  auto flags = std::make_shared<ServeFlags>();
  addProblemOption(*command, flags->problem, "Optimization problem the policy decides");
  command->add_option("--policy", flags->policy, "Policy directory")->required();
  command->add_option("--channel", flags->channel,
                      "Channel base BASE: named pipes BASE.in and BASE.out, created when missing; pass the same "
                      "BASE to clang (inlining: -mllvm -inliner-interactive-channel-base=BASE and -mllvm "
                      "-ml-advisor-size-increase-threshold=1000, as mlgo's own compiles use; regalloc: -mllvm "
                      "-regalloc-enable-advisor=release -mllvm -regalloc-evict-interactive-channel-base=BASE; "
                      "regalloc-priority: -mllvm -regalloc-enable-priority-advisor=release -mllvm "
                      "-regalloc-priority-interactive-channel-base=BASE)")
      ->required();
  command->add_option("--log", flags->log, "Write every decision served to this trace directory");
  command->add_option("--max-sessions", flags->maxSessions, "Stop after this many compilations (0: until SIGINT)")
      ->capture_default_str()
      ->check(wholeNumber());
  command->callback([flags, &runner] { runner = [flags] { return runServe(*flags); }; });
}

}  // namespace mlgo::cli
