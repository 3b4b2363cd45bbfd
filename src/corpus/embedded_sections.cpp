#include "mlgo/corpus/embedded_sections.h"

#include <llvm/Object/ObjectFile.h>
#include <llvm/Support/MemoryBuffer.h>

#include "mlgo/support/atomic_file.h"

namespace mlgo {

const char *embeddedStatusName(EmbeddedModule::Status status) {
  switch (status) {
    case EmbeddedModule::Status::Ok: return "ok";
    case EmbeddedModule::Status::MissingFile: return "missing object file";
    case EmbeddedModule::Status::NotRegularFile: return "not a regular file";
    case EmbeddedModule::Status::NotAnObject: return "not an object file";
    case EmbeddedModule::Status::NoEmbeddedBitcode: return "no embedded bitcode";
    case EmbeddedModule::Status::NoEmbeddedCommand: return "no embedded command line";
  }
  return "unknown";
}

EmbeddedModule readEmbeddedModule(const std::filesystem::path &object) {
  EmbeddedModule result;
  if (const std::string problem = regularFileProblem(object); !problem.empty()) {
    result.status = std::filesystem::exists(object) ? EmbeddedModule::Status::NotRegularFile
                                                    : EmbeddedModule::Status::MissingFile;
    result.detail = problem;
    return result;
  }
  auto buffer = llvm::MemoryBuffer::getFile(object.string(), /*IsText=*/false,
                                            /*RequiresNullTerminator=*/false);
  if (!buffer) {
    result.status = EmbeddedModule::Status::MissingFile;
    result.detail = buffer.getError().message();
    return result;
  }
  auto file = llvm::object::ObjectFile::createObjectFile((*buffer)->getMemBufferRef());
  if (!file) {
    result.status = EmbeddedModule::Status::NotAnObject;
    result.detail = llvm::toString(file.takeError());
    return result;
  }
  bool haveBitcode = false, haveCommand = false;
  for (const llvm::object::SectionRef &section : (*file)->sections()) {
    auto name = section.getName();
    if (!name) {
      llvm::consumeError(name.takeError());
      continue;
    }
    // ELF and COFF spell them .llvmbc/.llvmcmd; Mach-O __bitcode/__cmdline.
    bool isBitcode = *name == ".llvmbc" || *name == "__bitcode";
    bool isCommand = *name == ".llvmcmd" || *name == "__cmdline";
    if (!isBitcode && !isCommand) continue;
    auto contents = section.getContents();
    if (!contents) {
      result.status = EmbeddedModule::Status::NotAnObject;
      result.detail = llvm::toString(contents.takeError());
      return result;
    }
    if (isBitcode) {
      result.bitcode = contents->str();
      haveBitcode = !result.bitcode.empty();
    } else {
      result.commandLine = contents->str();
      haveCommand = true;
    }
  }
  if (!haveBitcode) {
    result.status = EmbeddedModule::Status::NoEmbeddedBitcode;
    result.detail = "no .llvmbc section: build with -Xclang -fembed-bitcode=all";
  } else if (!haveCommand) {
    result.status = EmbeddedModule::Status::NoEmbeddedCommand;
    result.detail = "no .llvmcmd section: build with -Xclang -fembed-bitcode=all";
  }
  return result;
}

}  // namespace mlgo
