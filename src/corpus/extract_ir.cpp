#include "mlgo/corpus/extract_ir.h"


#include "mlgo/corpus/compile_commands.h"
#include "mlgo/corpus/corpus.h"
#include "mlgo/corpus/embedded_sections.h"
#include "mlgo/support/atomic_file.h"
#include "mlgo/support/errors.h"
#include "mlgo/support/parallel_for.h"
#include "mlgo/support/text_input.h"
#include "mlgo/support/user_regex.h"

namespace mlgo {

namespace fs = std::filesystem;

size_t ExtractSummary::skipped() const {
  size_t total = 0;
  for (const auto &[reason, count] : skippedByReason) total += count;
  return total;
}

namespace {

struct EntryOutcome {
  bool extracted = false;
  std::string reason;  ///< summary key when skipped
  std::string detail;
};

bool matchesFilter(const UserRegex &filter, const std::vector<std::string> &args) {
  for (const std::string &arg : args)
    if (filter.search(arg)) return true;
  return false;
}

std::vector<ObjectEntry> readEntries(const ExtractOptions &options) {
  if (options.thinlto == ThinLTOBuild::Local)
    return findLocalThinLTOModules(fs::is_directory(options.input) ? options.input
                                                                   : fs::absolute(options.input).parent_path());
  return options.inputType == ExtractInputType::CompileCommands ? readCompileCommands(options.input)
                                                                : readObjectList(options.input);
}

/// A module's files: what clang embedded in the object, or the post-import
/// module of a ThinLTO backend with its index.
ExtractedModuleFiles readModuleFiles(const ExtractOptions &options, const ObjectEntry &entry) {
  switch (options.thinlto) {
    case ThinLTOBuild::Local: return readLocalThinLTOModule(entry.objectPath, options.thinltoOptLevel);
    case ThinLTOBuild::Distributed: return readDistributedThinLTOModule(entry);
    case ThinLTOBuild::None: break;
  }
  ExtractedModuleFiles files;
  EmbeddedModule embedded = readEmbeddedModule(entry.objectPath);
  if (embedded.status != EmbeddedModule::Status::Ok) {
    files.problem = embeddedStatusName(embedded.status);
    files.detail = embedded.detail;
    return files;
  }
  files.bitcode = std::move(embedded.bitcode);
  files.commandLine = std::move(embedded.commandLine);
  return files;
}

}  // namespace

ExtractSummary extractIR(const ExtractOptions &options) {
  std::optional<UserRegex> filter;
  if (options.commandFilter) filter.emplace("--cmd-filter", *options.commandFilter);
  std::vector<ObjectEntry> entries = readEntries(options);

  // Two entries naming the same object (a file compiled twice into one
  // output) would race on the same corpus files: keep the first.
  std::vector<EntryOutcome> outcomes(entries.size());
  {
    std::map<std::string, size_t> firstByName;
    for (size_t i = 0; i < entries.size(); ++i) {
      if (!entries[i].problem.empty()) continue;
      auto [it, inserted] = firstByName.emplace(entries[i].moduleName, i);
      if (!inserted) {
        outcomes[i].reason = "duplicate object";
        outcomes[i].detail = "same object as " + entries[it->second].origin;
      }
    }
  }

  fs::create_directories(options.outputDirectory);
  parallelFor(entries.size(), options.threads, [&](size_t i) {
    const ObjectEntry &entry = entries[i];
    EntryOutcome &outcome = outcomes[i];
    if (!outcome.reason.empty()) return;
    if (!entry.problem.empty()) {
      outcome.reason = "unusable entry";
      outcome.detail = entry.problem;
      return;
    }
    ExtractedModuleFiles files = readModuleFiles(options, entry);
    if (!files.problem.empty()) {
      outcome.reason = files.problem;
      outcome.detail = files.detail;
      return;
    }
    if (filter && !matchesFilter(*filter, parseRecordedCommandLine(files.commandLine))) {
      outcome.reason = "excluded by --cmd-filter";
      return;
    }
    try {
      writeFileInside(options.outputDirectory, entry.moduleName + ".bc", files.bitcode);
      writeFileInside(options.outputDirectory, entry.moduleName + ".cmd", files.commandLine);
      if (options.thinlto != ThinLTOBuild::None)
        writeFileInside(options.outputDirectory, entry.moduleName + kThinLTOIndexSuffix, files.index);
    } catch (const InputError &e) {
      outcome.reason = "unsafe output path";
      outcome.detail = e.what();
      return;
    }
    outcome.extracted = true;
  });

  ExtractSummary summary;
  for (size_t i = 0; i < entries.size(); ++i) {
    const EntryOutcome &outcome = outcomes[i];
    if (outcome.extracted) {
      summary.moduleNames.push_back(entries[i].moduleName);
      continue;
    }
    ++summary.skippedByReason[outcome.reason];
    std::string line = entries[i].origin;
    if (!entries[i].objectPath.empty()) line += ": " + entries[i].objectPath.string();
    line += ": " + outcome.reason;
    if (!outcome.detail.empty()) line += " (" + outcome.detail + ")";
    summary.warnings.push_back(std::move(line));
  }
  if (!summary.moduleNames.empty())
    writeCorpusDescription(options.outputDirectory, summary.moduleNames, options.thinlto != ThinLTOBuild::None);
  return summary;
}

}  // namespace mlgo
