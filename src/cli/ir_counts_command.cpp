// mlgo ir-counts: each function's IR instructions in bitcode files, as the
// compile-cost model charges its passes by them.
#include <cstdio>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "commands.h"
#include "mlgo/driver/optimization_work.h"
#include "mlgo/support/exit_codes.h"

namespace mlgo::cli {

void addIrCountsCommand(CLI::App *command, CommandRunner &runner) {
  auto files = std::make_shared<std::vector<std::string>>();
  command->add_option("files", *files, "Bitcode files")->required()->expected(1, -1);
  command->callback([files, &runner] {
    runner = [files] {
      // Every file is read before anything is printed: one bad file, no partial answer.
      std::vector<nlohmann::json> lines;
      for (const std::string &file : *files)
        lines.push_back({{"file", file}, {"functions", functionInstructionCounts(file)}});
      for (const nlohmann::json &line : lines) std::printf("%s\n", line.dump().c_str());
      return exit_code::kSuccess;
    };
  });
}

}  // namespace mlgo::cli
