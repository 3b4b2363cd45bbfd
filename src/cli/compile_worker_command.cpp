// mlgo compile-worker (internal): the worker process of an isolated compile
// (see mlgo/driver/compile_worker.h). Started by mlgo itself, one per compile
// thread; requests on stdin, replies on stdout.
#include <iostream>
#include <memory>
#include <sstream>

#include <spdlog/spdlog.h>

#include "commands.h"
#include "common_options.h"
#include "mlgo/driver/compile_session.h"
#include "mlgo/driver/compile_worker.h"
#include "mlgo/support/exit_codes.h"

namespace mlgo::cli {

namespace {

struct CompileWorkerFlags {
  std::string corpus;
  DriverFlags driver;
};

}  // namespace

void addCompileWorkerCommand(CLI::App *command, CommandRunner &runner) {
  auto flags = std::make_shared<CompileWorkerFlags>();
  command->group("");  // not for users: hidden from --help
  command->add_option("--corpus", flags->corpus, "Corpus directory")->required();
  addDriverFlags(*command, flags->driver);
  command->callback([flags, &runner] {
    runner = [flags] {
      std::string why;
      restartWithoutAddressRandomization(why);  // returns only when it did not restart
      if (!why.empty()) spdlog::debug("compile worker: {}; LLVM's memory errors may not repeat alike", why);
      DriverOptions options = toDriverOptions(flags->driver);
      options.threads = 1;
      const CompileSession session(flags->corpus, options);
      serveCompileRequests(session.corpus(), session.driver(), std::cin, std::cout);
      return exit_code::kSuccess;
    };
  });
}

/// The command line of a worker for `corpus` with the same driver settings.
std::vector<std::string> compileWorkerCommand(const std::string &corpus, const DriverFlags &driver) {
  std::ostringstream timeout;  // "60", not std::to_string's "60.000000"
  timeout << driver.timeoutSeconds;
  std::vector<std::string> command{"/proc/self/exe", "--log-level", "warn", "compile-worker", "--corpus", corpus,
                                   "--timeout", timeout.str()};
  if (!driver.injectFault.empty()) command.insert(command.end(), {"--inject-fault", driver.injectFault});
  // Workers keep their own memory memo (code generation of IR they saw) and
  // share the on-disk one.
  if (driver.noMemo) command.push_back("--no-memo");
  if (!driver.cacheDirectory.empty()) command.insert(command.end(), {"--cache-dir", driver.cacheDirectory});
  return command;
}

}  // namespace mlgo::cli
