#include "mlgo/launcher/link_map.h"

#include <cstdlib>
#include <sstream>

#include "mlgo/support/errors.h"
#include "mlgo/support/text_input.h"

namespace mlgo::launcher {

namespace {

bool startsWith(std::string_view text, std::string_view prefix) { return text.substr(0, prefix.size()) == prefix; }

std::vector<std::string> fields(std::string_view line) {
  std::vector<std::string> out;
  std::istringstream stream{std::string(line)};
  for (std::string word; stream >> word;) out.push_back(word);
  return out;
}

bool parseHex(const std::string &text, uint64_t &value) {
  if (text.empty()) return false;
  const std::string digits = startsWith(text, "0x") ? text.substr(2) : text;
  if (digits.empty() || digits.find_first_not_of("0123456789abcdefABCDEF") != std::string::npos) return false;
  value = std::strtoull(digits.c_str(), nullptr, 16);
  return true;
}

/// The rest of `line` after its first `skip` fields, as written (file names
/// may hold spaces).
std::string restAfterFields(std::string_view line, size_t skip) {
  size_t at = 0;
  for (size_t f = 0; f < skip; ++f) {
    at = line.find_first_not_of(' ', at);
    at = line.find(' ', at);
    if (at == std::string_view::npos) return "";
  }
  at = line.find_first_not_of(' ', at);
  return at == std::string_view::npos ? "" : std::string(line.substr(at));
}

void keep(std::vector<KeptSection> &kept, KeptSection section) {
  if (section.size == 0 || section.file.empty()) return;
  section.kind = outputSectionKind(section.output);
  kept.push_back(std::move(section));
}

/// GNU ld: after "Linker script and memory map", an output section starts a
/// line with its name; an input section is indented by one space, with its
/// address, size and file on the same line or, for a long name, the next.
std::vector<KeptSection> parseGnuMap(std::string_view map) {
  std::vector<KeptSection> kept;
  bool inMemoryMap = false;
  std::string output, pendingInput;
  forEachLine(map, [&](size_t, std::string_view line) {
    if (!inMemoryMap) {
      inMemoryMap = startsWith(line, "Linker script and memory map");
      return;
    }
    if (line.empty()) return;
    const std::vector<std::string> words = fields(line);
    if (line[0] == '.') {  // an output section
      output = words[0];
      pendingInput.clear();
      return;
    }
    if (startsWith(line, " *") || line[0] != ' ') {  // fill, script patterns, LOAD, OUTPUT(...)
      pendingInput.clear();
      return;
    }
    if (startsWith(line, " .") || startsWith(line, " COMMON")) {
      if (words.size() == 1) {  // the name alone: the rest follows on the next line
        pendingInput = words[0];
        return;
      }
      uint64_t address = 0, size = 0;
      if (words.size() >= 4 && parseHex(words[1], address) && parseHex(words[2], size))
        keep(kept, {restAfterFields(line, 3), words[0], output, size});
      pendingInput.clear();
      return;
    }
    uint64_t address = 0, size = 0;  // "   0xADDRESS 0xSIZE file" after a long name
    if (!pendingInput.empty() && words.size() >= 3 && parseHex(words[0], address) && parseHex(words[1], size))
      keep(kept, {restAfterFields(line, 2), pendingInput, output, size});
    pendingInput.clear();
  });
  return kept;
}

/// lld: "VMA LMA Size Align Out In Symbol" columns; the text after Align
/// is an output section at one space, "file:(section)" at nine, a symbol at
/// seventeen.
std::vector<KeptSection> parseLldMap(std::string_view map) {
  std::vector<KeptSection> kept;
  std::string output;
  forEachLine(map, [&](size_t number, std::string_view line) {
    if (number == 1) return;  // the header
    const std::vector<std::string> words = fields(line);
    uint64_t vma = 0, lma = 0, size = 0;
    const bool columns = words.size() >= 5 && parseHex(words[0], vma) && parseHex(words[1], lma) &&
                         parseHex(words[2], size) &&
                         words[3].find_first_not_of("0123456789") == std::string::npos;
    if (!columns) return;
    // Where the Align column ends: the fourth field, found after the third.
    const size_t sizeEnd = line.find(words[2], line.find(words[1], words[0].size()) + words[1].size()) +
                           words[2].size();
    const size_t alignEnd = line.find(words[3], sizeEnd) + words[3].size();
    const size_t textStart = line.find_first_not_of(' ', alignEnd);
    const std::string text(line.substr(textStart));
    if (textStart - alignEnd == 1) {
      output = text;
    } else if (textStart - alignEnd == 9) {
      const size_t open = text.rfind(":(");
      if (open == std::string::npos || text.back() != ')') return;
      std::string section = text.substr(open + 2, text.size() - open - 3);
      section = section.substr(0, section.find('+'));  // ".eh_frame+0x18": a piece of one section
      keep(kept, {text.substr(0, open), section, output, size});
    }
  });
  return kept;
}

}  // namespace

SectionKind outputSectionKind(std::string_view name) {
  static const char *const kNotLoaded[] = {".comment", ".symtab", ".strtab", ".shstrtab", ".note.GNU-stack",
                                           ".gnu_debuglink", ".gnu.build.attributes", ".llvm_addrsig",
                                           ".GCC.command.line", ".gnu.attributes"};
  if (startsWith(name, ".debug") || startsWith(name, ".zdebug") || startsWith(name, ".stab")) return SectionKind::NotLoaded;
  for (const char *notLoaded : kNotLoaded)
    if (name == notLoaded) return SectionKind::NotLoaded;
  if (startsWith(name, ".text") || name == ".init" || name == ".fini" || startsWith(name, ".plt"))
    return SectionKind::Text;
  if (name == ".bss" || startsWith(name, ".bss.") || name == ".tbss" || startsWith(name, ".tbss."))
    return SectionKind::Bss;
  return SectionKind::Data;
}

std::vector<KeptSection> parseLinkMap(std::string_view map, const std::string &mapName) {
  if (map.find("Linker script and memory map") != std::string_view::npos) return parseGnuMap(map);
  const std::vector<std::string> header = fields(map.substr(0, map.find('\n')));
  if (header.size() >= 6 && header[0] == "VMA" && header[1] == "LMA" && header[2] == "Size") return parseLldMap(map);
  throw InputError(describeInputProblem(mapName, "", "not a linker map of GNU ld or lld"));
}

std::pair<std::string, std::string> splitArchiveMember(const std::string &file) {
  if (file.empty() || file.back() != ')') return {file, ""};
  const size_t open = file.rfind('(');
  if (open == std::string::npos || open == 0) return {file, ""};
  return {file.substr(0, open), file.substr(open + 1, file.size() - open - 2)};
}

void addKeptSection(SectionSizes &sizes, const KeptSection &section) {
  if (section.kind == SectionKind::Text) sizes.text += section.size;
  if (section.kind == SectionKind::Data) sizes.data += section.size;
  if (section.kind == SectionKind::Bss) sizes.bss += section.size;
}

}  // namespace mlgo::launcher
