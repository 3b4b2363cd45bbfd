#include "mlgo/builds/build_artifacts.h"

#include <cstring>
#include <fstream>

#include "mlgo/driver/object_sizes.h"
#include "mlgo/support/atomic_file.h"

namespace mlgo::builds {

namespace fs = std::filesystem;

namespace {

enum class ElfKind { NotElf, Object, Linked };

/// From the ELF header alone: e_type 1 is a relocatable object, 2 an
/// executable, 3 a shared object or position-independent executable.
ElfKind elfKindOf(const fs::path &path) {
  std::ifstream file(path, std::ios::binary);
  unsigned char header[18] = {};
  if (!file.read(reinterpret_cast<char *>(header), sizeof header)) return ElfKind::NotElf;
  if (std::memcmp(header, "\x7f" "ELF", 4) != 0) return ElfKind::NotElf;
  const unsigned type = header[5] == 2 ? (header[16] << 8 | header[17]) : (header[17] << 8 | header[16]);
  if (type == 1) return ElfKind::Object;
  if (type == 2 || type == 3) return ElfKind::Linked;
  return ElfKind::NotElf;
}

SectionSizes &operator+=(SectionSizes &sum, const SectionSizes &sizes) {
  sum.text += sizes.text;
  sum.rodata += sizes.rodata;
  sum.data += sizes.data;
  sum.bss += sizes.bss;
  return sum;
}

/// CMake's own probes (compiler identification, try_compile) live in
/// CMakeFiles/ outside the targets' NAME.dir folders: not the project's.
bool isBuildSystemProbe(const fs::path &relative) {
  bool inCMakeFiles = false;
  for (const fs::path &part : relative) {
    if (inCMakeFiles) return part.extension() != ".dir";
    inCMakeFiles = part == "CMakeFiles";
  }
  return false;
}

}  // namespace

BuildArtifacts findArtifacts(const fs::path &tree) {
  BuildArtifacts artifacts;
  std::error_code error;
  for (fs::recursive_directory_iterator it(tree, error), end; !error && it != end; it.increment(error)) {
    if (it->is_symlink() || !it->is_regular_file()) continue;
    const fs::path relative = fs::relative(it->path(), tree);
    if (isBuildSystemProbe(relative)) continue;
    const ElfKind kind = elfKindOf(it->path());
    if (kind == ElfKind::NotElf) continue;
    SectionSizes sizes;
    std::string problem;
    if (!measureObjectSizes(readFile(it->path()), sizes, problem)) continue;
    if (kind == ElfKind::Object) {
      artifacts.objects += sizes;
      ++artifacts.objectCount;
    } else {
      artifacts.linked[relative.generic_string()] = sizes;
    }
  }
  return artifacts;
}

}  // namespace mlgo::builds
