#pragma once
// Reads what `clang -Xclang -fembed-bitcode=all` leaves in an object file: the
// pre-optimization bitcode (.llvmbc) and the cc1 command line (.llvmcmd), with
// LLVM's object library, in process.
#include <filesystem>
#include <string>

namespace mlgo {

struct EmbeddedModule {
  enum class Status { Ok, MissingFile, NotRegularFile, NotAnObject, NoEmbeddedBitcode, NoEmbeddedCommand };
  Status status = Status::Ok;
  std::string detail;  ///< why, for anything but Ok
  std::string bitcode;
  std::string commandLine;  ///< raw section contents, '\0'-separated
};

EmbeddedModule readEmbeddedModule(const std::filesystem::path &object);

/// A short stable name for a status, used as the key of skip summaries.
const char *embeddedStatusName(EmbeddedModule::Status status);

}  // namespace mlgo
