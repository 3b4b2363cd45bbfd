// mlgo mllvm-options: the -mllvm options a corpus may record (the allow-list).
#include <cstdio>
#include <string>

#include "commands.h"
#include "mlgo/driver/backend_options.h"
#include "mlgo/problems/problem.h"
#include "mlgo/support/exit_codes.h"

namespace mlgo::cli {

void addMllvmOptionsCommand(CLI::App *command, CommandRunner &runner) {
  command->callback([&runner] {
    runner = [] {
      for (const AllowedBackendOption &option : allowedBackendOptions())
        std::printf("-%s\t%s\n", option.pattern.c_str(), option.what.c_str());
      std::string words;
      for (const std::string &word : sideEffectWords()) words += (words.empty() ? "" : ", ") + word;
      std::string own;
      for (const std::string &name : problemNames())
        for (const std::string &flag : findProblem(name).processWideBackendFlags())
          own += (own.empty() ? "" : ", ") + flag;
      std::fprintf(stderr, "refused even in a family: names with a word starting with %s; mlgo itself sets %s\n",
                   words.c_str(), own.empty() ? "nothing" : own.c_str());
      return exit_code::kSuccess;
    };
  });
}

}  // namespace mlgo::cli
