#include <catch2/catch.hpp>

#include <map>
#include <sstream>

#include "mlgo/autotune/module_features.h"
#include "mlgo/support/atomic_file.h"
#include "support/test_environment.h"

using namespace mlgo;
using namespace mlgo::autotune;

namespace {

/// Instruction counts per opcode read from llvm-dis-19's text: every line of
/// a function body indented by exactly two spaces is one instruction, its
/// opcode the first word after "%x = " (and after tail/musttail/notail).
struct TextCounts {
  std::map<std::string, double> opcodes;
  double defined = 0, declared = 0;
};

TextCounts countFromText(const std::string &text) {
  TextCounts counts;
  std::istringstream lines(text);
  std::string line;
  bool inBody = false;
  while (std::getline(lines, line)) {
    if (line.rfind("define ", 0) == 0) {
      ++counts.defined;
      inBody = true;
      continue;
    }
    if (line.rfind("declare ", 0) == 0) ++counts.declared;
    if (line == "}") inBody = false;
    if (!inBody || line.size() < 3 || line.compare(0, 2, "  ") != 0 || line[2] == ' ') continue;
    std::istringstream words(line);
    std::string word;
    words >> word;
    if (word.empty() || word[0] == ';' || word == "]") continue;
    if (word[0] == '%') words >> word >> word;  // "%x = opcode"
    if (word == "tail" || word == "musttail" || word == "notail") words >> word;
    ++counts.opcodes[word];
  }
  return counts;
}

size_t indexOf(const std::string &name) {
  const std::vector<std::string> &names = moduleFeatureNames();
  return size_t(std::find(names.begin(), names.end(), name) - names.begin());
}

}  // namespace

TEST_CASE("module features: opcode and function counts equal those read from llvm-dis's text",
          "[autotune][features]") {
  test::ScratchDirectory scratch;
  const Corpus corpus = test::extractTestCorpus(scratch / "corpus");
  const std::vector<std::string> &names = moduleFeatureNames();
  REQUIRE(indexOf("op.add") < names.size());
  REQUIRE(indexOf("fp.TotalInstructionCount") < names.size());
  REQUIRE(indexOf("module.cxx") < names.size());
  size_t modulesChecked = 0;
  double totalInstructions = 0;  // tables.o is data only
  for (const CorpusModule &module : corpus.modules) {
    if (!module.loadError.empty()) continue;
    INFO(module.name);
    const std::vector<double> features = moduleFeatures(module);
    REQUIRE(features.size() == names.size());
    const std::string text = (scratch / "module.ll").string();
    const test::CommandOutcome dis =
        test::runProgram("/usr/lib/llvm-19/bin/llvm-dis", {module.bitcodePath.string(), "-o", text});
    REQUIRE(dis.exitCode == 0);
    const TextCounts counts = countFromText(readFile(text));
    double instructions = 0;
    for (size_t f = 0; f < names.size(); ++f) {
      if (names[f].rfind("op.", 0) != 0) continue;
      const std::string opcode = names[f].substr(3);
      INFO(opcode);
      const auto found = counts.opcodes.find(opcode);
      CHECK(features[f] == (found == counts.opcodes.end() ? 0.0 : found->second));
      instructions += features[f];
    }
    double fromText = 0;
    for (const auto &[opcode, count] : counts.opcodes) fromText += count;
    CHECK(instructions == fromText);  // no line of the text left uncounted
    totalInstructions += instructions;
    CHECK(features[indexOf("fp.TotalInstructionCount")] == instructions);
    CHECK(features[indexOf("module.defined_functions")] == counts.defined);
    CHECK(features[indexOf("module.declared_functions")] == counts.declared);
    CHECK(features[indexOf("module.cxx")] == (module.name == "shapes.o" ? 1.0 : 0.0));
    ++modulesChecked;
  }
  CHECK(modulesChecked >= 5);
  CHECK(totalInstructions > 100);
}

TEST_CASE("module features: C++ is told from the recorded command line", "[autotune][features]") {
  CorpusModule module;
  module.commandLine = {"-cc1", "-main-file-name", "a.cc", "-std=c++17"};
  CHECK(isCxxModule(module));
  module.commandLine = {"-cc1", "-main-file-name", "a.c", "-std=c11"};
  CHECK_FALSE(isCxxModule(module));
  module.commandLine = {"-cc1", "-main-file-name", "a.c", "-x", "c++"};
  CHECK(isCxxModule(module));  // the language given wins over the name
  module.commandLine = {"-cc1", "-std=gnu++17"};
  CHECK(isCxxModule(module));
}

TEST_CASE("module features: unreadable bitcode is an error naming the file", "[autotune][features][errors]") {
  test::ScratchDirectory scratch;
  CorpusModule module;
  module.name = "broken.o";
  module.bitcodePath = scratch / "broken.bc";
  writeFileAtomically(module.bitcodePath, "not bitcode");
  CHECK_THROWS_WITH(moduleFeatures(module), Catch::Contains("broken.bc"));
}
