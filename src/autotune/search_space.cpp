#include "mlgo/autotune/search_space.h"

#include <algorithm>
#include <cstdlib>

#include "mlgo/driver/compiler_driver.h"
#include "mlgo/support/atomic_file.h"
#include "mlgo/support/data_paths.h"
#include "mlgo/support/errors.h"
#include "mlgo/support/text_input.h"

namespace mlgo::autotune {

namespace fs = std::filesystem;

std::string PassElement::pipelineText() const {
  if (level == "module") return element;
  if (level == "cgscc") return "cgscc(" + element + ")";
  if (level == "function") return "function(" + element + ")";
  if (level == "loop") return "function(loop(" + element + "))";
  return "function(loop-mssa(" + element + "))";
}

SearchSpace SearchSpace::load(const fs::path &file, PassCheck check) {
  SearchSpace space;
  const std::string text = readFile(file);
  forEachLine(text, [&](size_t lineNumber, std::string_view line) {
    if (line.empty() || line[0] == '#') return;
    std::vector<std::string> fields;
    size_t start = 0;
    for (;;) {
      const size_t tab = line.find('\t', start);
      fields.emplace_back(line.substr(start, tab == std::string_view::npos ? std::string_view::npos : tab - start));
      if (tab == std::string_view::npos) break;
      start = tab + 1;
    }
    const std::string where = "line " + std::to_string(lineNumber);
    if (fields.size() != 4)
      throw InputError(describeInputProblem(file.string(), where, "expected 4 tab-separated fields, got " +
                                                                      std::to_string(fields.size())));
    PassElement pass{fields[0] == "include", fields[1], fields[2], fields[3]};
    if (fields[0] != "include" && fields[0] != "exclude")
      throw InputError(describeInputProblem(file.string(), where, "status must be include or exclude"));
    if (pass.level != "module" && pass.level != "cgscc" && pass.level != "function" && pass.level != "loop" &&
        pass.level != "loop-mssa")
      throw InputError(describeInputProblem(file.string(), where, "unknown level \"" + pass.level + "\""));
    if (pass.element.empty() || pass.reason.empty())
      throw InputError(describeInputProblem(file.string(), where, "empty element or reason"));
    // An unknown pass would fail every candidate that holds it, and the run
    // would still look normal: check each searched one against LLVM's
    // registry now.
    if (pass.included && check == PassCheck::AgainstLLVM) try {
        CompilerDriver::validatePassPipeline(pass.pipelineText());
      } catch (const UsageError &e) {
        throw InputError(describeInputProblem(file.string(), where + " \"" + pass.element + "\"",
                                              std::string("not a pass LLVM 19 knows at this level: ") + e.what()));
      }
    space.all_.push_back(pass);
    if (pass.included) space.passes_.push_back(pass);
  });
  if (space.passes_.empty()) throw InputError(describeInputProblem(file.string(), "", "includes no pass"));
  return space;
}

int SearchSpace::find(const std::string &element) const {
  for (size_t i = 0; i < passes_.size(); ++i)
    if (passes_[i].element == element) return static_cast<int>(i);
  return -1;
}

bool SearchSpace::excludes(const std::string &element) const {
  return find(element) < 0 &&
         std::any_of(all_.begin(), all_.end(), [&](const PassElement &pass) { return pass.element == element; });
}

std::string SearchSpace::pipeline(const std::vector<int> &list) const {
  std::string text;
  for (int pass : list) text += (text.empty() ? "" : ",") + passes_.at(pass).pipelineText();
  return text;
}

std::string SearchSpace::checkedPipeline(const std::vector<std::string> &elements, const std::string &stored,
                                         const std::string &file, const std::string &entry) const {
  std::vector<int> list;
  for (const std::string &element : elements) {
    const int index = find(element);
    if (index < 0)
      throw InputError(describeInputProblem(file, entry, "'" + element + "' is not a pass of the search space"));
    list.push_back(index);
  }
  const std::string rendered = pipeline(list);
  if (stored != rendered)
    throw InputError(describeInputProblem(
        file, entry + ".pipeline", "\"" + stored + "\" is not the pipeline of its passes (\"" + rendered + "\")"));
  return rendered;
}

std::vector<int> SearchSpace::listOfPipeline(const std::string &pipeline, const std::string &file,
                                             const std::string &entry) const {
  // Top-level elements: commas outside parentheses and angle brackets.
  std::vector<std::string> pieces;
  int depth = 0;
  std::string piece;
  for (char c : pipeline) {
    if (c == '(' || c == '<') ++depth;
    if (c == ')' || c == '>') --depth;
    if (c == ',' && depth == 0) {
      pieces.push_back(piece);
      piece.clear();
    } else {
      piece += c;
    }
  }
  pieces.push_back(piece);
  std::vector<int> list;
  for (const std::string &text : pieces) {
    auto found = std::find_if(passes_.begin(), passes_.end(),
                              [&](const PassElement &pass) { return pass.pipelineText() == text; });
    if (found == passes_.end())
      throw InputError(describeInputProblem(file, entry, "\"" + text + "\" is not a pass of the search space"));
    list.push_back(int(found - passes_.begin()));
  }
  return list;
}

std::string SearchSpace::describe(const std::vector<int> &list) const {
  std::string text;
  for (int pass : list) text += (text.empty() ? "" : " ") + passes_.at(pass).element;
  return text;
}

fs::path defaultSearchSpaceFile() {
  if (const char *override = std::getenv("MLGO_PASSES")) return override;
  return dataPath(fs::path("configs") / "autotune" / "passes.txt");
}

}  // namespace mlgo::autotune
