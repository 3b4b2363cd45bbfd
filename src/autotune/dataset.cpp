#include "mlgo/autotune/dataset.h"

#include <llvm/Bitcode/BitcodeReader.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/Support/Error.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/raw_ostream.h>
#include <nlohmann/json.hpp>

#include "mlgo/support/atomic_file.h"
#include "mlgo/support/errors.h"

namespace mlgo::autotune {

namespace fs = std::filesystem;
using nlohmann::json;

std::string bitcodeToText(const fs::path &bitcode) {
  requireRegularFile(bitcode);
  auto buffer = llvm::MemoryBuffer::getFile(bitcode.string());
  if (!buffer) throw InputError(describeInputProblem(bitcode.string(), "", buffer.getError().message()));
  llvm::LLVMContext context;
  llvm::Expected<std::unique_ptr<llvm::Module>> module = llvm::parseBitcodeFile(**buffer, context);
  if (!module) throw InputError(describeInputProblem(bitcode.string(), "", llvm::toString(module.takeError())));
  std::string text;
  llvm::raw_string_ostream out(text);
  (*module)->print(out, nullptr);
  out.flush();
  return text;
}

void writeDataset(const AutotuneReport &report, const Corpus &corpus, const SearchSpace &space,
                  const AutotuneOptions &options, const fs::path &file) {
  std::string lines;
  for (size_t i = 0; i < report.modules.size(); ++i) {
    const ModuleTuning &tuning = report.modules[i];
    if (!tuning.ok) continue;
    json passes = json::array();
    for (int pass : tuning.best) passes.push_back(space.passes()[pass].element);
    json line{{"name", tuning.name},
              {"ir", bitcodeToText(corpus.modules[i].bitcodePath)},
              {"passes", passes},
              {"pipeline", tuning.best.empty() ? "-Oz" : space.pipeline(tuning.best)},
              {"metric", sizeMetricName(options.metric)},
              {"size_oz", measure(tuning.ozSizes, options.metric)},
              {"size_best", measure(tuning.bestSizes, options.metric)}};
    lines += line.dump() + "\n";
  }
  writeOutputFile(file, lines);
}

}  // namespace mlgo::autotune
