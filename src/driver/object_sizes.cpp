#include "mlgo/driver/object_sizes.h"

#include <llvm/BinaryFormat/ELF.h>
#include <llvm/Object/ELFObjectFile.h>
#include <llvm/Object/ObjectFile.h>
#include <llvm/Support/MemoryBuffer.h>

namespace mlgo {

std::optional<SizeMetric> parseSizeMetric(const std::string &name) {
  if (name == "text") return SizeMetric::Text;
  if (name == "text+data") return SizeMetric::TextPlusData;
  return std::nullopt;
}

const char *sizeMetricName(SizeMetric metric) {
  return metric == SizeMetric::Text ? "text" : "text+data";
}

uint64_t measure(const SectionSizes &sizes, SizeMetric metric) {
  return metric == SizeMetric::Text ? sizes.text : sizes.textPlusData();
}

const char *failureKindName(FailureKind kind) {
  switch (kind) {
    case FailureKind::None: return "none";
    case FailureKind::InvalidInput: return "invalid-input";
    case FailureKind::VerifierError: return "verifier-error";
    case FailureKind::CompileError: return "compile-error";
    case FailureKind::FatalError: return "fatal-error";
    case FailureKind::Crash: return "crash";
    case FailureKind::Timeout: return "timeout";
  }
  return "unknown";
}

bool measureObjectSizes(std::string_view objectBytes, SectionSizes &sizes, std::string &error) {
  sizes = SectionSizes{};
  llvm::MemoryBufferRef buffer(llvm::StringRef(objectBytes.data(), objectBytes.size()), "object");
  auto file = llvm::object::ObjectFile::createObjectFile(buffer);
  if (!file) {
    error = llvm::toString(file.takeError());
    return false;
  }
  const bool isELF = llvm::isa<llvm::object::ELFObjectFileBase>(file->get());
  for (const llvm::object::SectionRef &section : (*file)->sections()) {
    const uint64_t size = section.getSize();
    if (isELF) {
      llvm::object::ELFSectionRef elf(section);
      const uint64_t flags = elf.getFlags();
      const uint32_t type = elf.getType();
      // Split so that text + rodata, data and bss are llvm-size's Berkeley
      // text, data and bss columns.
      if (flags & llvm::ELF::SHF_EXECINSTR) {
        sizes.text += size;
      } else if (!(flags & llvm::ELF::SHF_ALLOC)) {
        continue;  // .llvmbc, .comment, symbol tables: not loaded
      } else if (type == llvm::ELF::SHT_NOBITS) {
        sizes.bss += size;
      } else {
        (flags & llvm::ELF::SHF_WRITE ? sizes.data : sizes.rodata) += size;
      }
    } else if (section.isText()) {
      sizes.text += size;
    } else if (section.isBSS()) {
      sizes.bss += size;
    } else if (section.isData()) {
      sizes.data += size;
    }
  }
  return true;
}

}  // namespace mlgo
