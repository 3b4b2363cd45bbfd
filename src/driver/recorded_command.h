#pragma once
// Turns a recorded cc1 command line into the option sets clang's own backend
// uses, exactly as `clang -cc1 <args> -x ir module.bc` would: clang's
// CompilerInvocation parses the flags and CompilerInstance builds the target,
// so optimization level, triple, CPU and features, relocation and code model,
// sections and the rest match clang by construction.
//
// Private to the driver: it pulls in clang's frontend headers.
#include <memory>
#include <string>
#include <vector>

#include <clang/Frontend/CompilerInstance.h>
#include <llvm/Support/raw_ostream.h>

#include "mlgo/driver/recorded_arguments.h"

namespace mlgo {

class RecordedCommand {
 public:
  /// Parses `recorded` (a module's .cmd) for the bitcode at `bitcodePath`.
  /// Returns null and sets `error` when clang rejects the flags or when they
  /// ask for something untrusted data may not do (load code, read or write
  /// files outside the corpus). For a ThinLTO module the parsed options never
  /// name an index: the driver runs the ThinLTO backend itself.
  static std::unique_ptr<RecordedCommand> parse(const std::vector<std::string> &recorded,
                                                const std::string &bitcodePath, bool thinltoModule,
                                                std::string &error);

  clang::CompilerInstance &instance() { return *instance_; }
  /// Diagnostics clang reported so far, as text.
  std::string diagnostics() {
    diagnosticStream_->flush();
    return diagnosticText_;
  }
  bool hasErrors() { return instance_->getDiagnostics().hasErrorOccurred(); }
  /// The -mllvm options the command asks for.
  const std::vector<std::string> &backendOptions() const;

 private:
  RecordedCommand() = default;
  std::string diagnosticText_;
  std::unique_ptr<llvm::raw_string_ostream> diagnosticStream_;
  std::unique_ptr<clang::CompilerInstance> instance_;
};

}  // namespace mlgo
