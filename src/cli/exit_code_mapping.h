#pragma once
// What every command line of mlgo does around its command: logs on stderr in
// mlgo's own words, and library errors mapped to the documented exit codes
// (mlgo/support/exit_codes.h). Shared by the whole command line (main.cpp)
// and the compiler launcher's own entry (cc_main.cpp).
#include <memory>

#include <spdlog/logger.h>

#include "commands.h"

namespace mlgo::cli {

/// Makes "mlgo: LEVEL: message" on stderr the default logger and returns it.
std::shared_ptr<spdlog::logger> installStderrLogger();

/// Runs the chosen command and maps library errors to the documented exit
/// codes; `failed` tells an error from a command that returned its code.
int runMapped(const CommandRunner &runner, bool &failed);

}  // namespace mlgo::cli
