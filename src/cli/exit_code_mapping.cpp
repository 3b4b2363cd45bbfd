#include "exit_code_mapping.h"

#include <filesystem>
#include <system_error>

#include <nlohmann/json.hpp>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include "mlgo/distributed/cluster.h"
#include "mlgo/support/errors.h"
#include "mlgo/support/output_directory.h"
#include "mlgo/support/exit_codes.h"
#include "mlgo/support/text_input.h"

namespace mlgo::cli {

std::shared_ptr<spdlog::logger> installStderrLogger() {
  auto logger = spdlog::stderr_color_mt("mlgo");
  logger->set_pattern("mlgo: %^%l%$: %v");
  spdlog::set_default_logger(logger);
  return logger;
}

int runMapped(const CommandRunner &runner, bool &failed) {
  failed = true;
  try {
    const int code = runner();
    failed = false;
    return code;
  } catch (const UsageError &e) {
    spdlog::error("{}", e.what());
    return exit_code::kUsage;
  } catch (const RunStopped &e) {
    spdlog::error("{}", e.what());
    return exit_code::kStopped;
  } catch (const RankLost &e) {
    spdlog::error("{}", e.what());
    return exit_code::kRankLost;
  } catch (const OutputInUse &e) {
    spdlog::error("{}", e.what());
    return exit_code::kOutputInUse;
  } catch (const InputError &e) {
    spdlog::error("{}", e.what());
    return exit_code::kBadInput;
  } catch (const std::filesystem::filesystem_error &e) {
    // A path of the wrong kind (a file where a directory belongs, or the
    // reverse) or a loop of symbolic links is the user's input; other file
    // system failures are not.
    const std::errc kind = std::errc(e.code().value());
    const bool wrongPath = kind == std::errc::not_a_directory || kind == std::errc::is_a_directory ||
                           kind == std::errc::file_exists || kind == std::errc::no_such_file_or_directory ||
                           kind == std::errc::too_many_symbolic_link_levels;
    spdlog::error("{}: {}", e.path1().string(), e.code().message());
    return wrongPath ? exit_code::kBadInput : exit_code::kFailure;
  } catch (const nlohmann::json::exception &e) {
    // An entry of a JSON input that no reader checked: still in mlgo's words.
    spdlog::error("{}", jsonErrorText(e));
    return exit_code::kFailure;
  } catch (const std::exception &e) {
    spdlog::error("{}", e.what());
    return exit_code::kFailure;
  }
}

}  // namespace mlgo::cli
