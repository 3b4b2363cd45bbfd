#include "mlgo/trace/trace_reader.h"

#include <memory>
#include <optional>

#include "mlgo/corpus/corpus.h"
#include "mlgo/support/atomic_file.h"
#include "mlgo/support/errors.h"
#include "mlgo/support/record_io.h"
#include "mlgo/support/text_input.h"
#include "mlgo/support/varint.h"

namespace mlgo::trace {

namespace fs = std::filesystem;
using nlohmann::json;

TraceReader::TraceReader(const fs::path &directory) : directory_(directory) {
  const fs::path descriptionPath = directory / kDescriptionFile;
  if (!fs::is_directory(directory))
    throw InputError(describeInputProblem(directory.string(), "", "trace directory does not exist"));
  if (!fs::exists(descriptionPath))
    throw InputError(describeInputProblem(descriptionPath.string(), "",
                                          "missing: not a trace, or the run that wrote it did not finish"));
  description_ = readJsonFile(descriptionPath);
  const std::string where = descriptionPath.string();
  auto require = [&](const char *key, bool ok) {
    if (!ok) throw InputError(describeInputProblem(where, key, "missing or of the wrong type"));
  };
  require("format", description_.contains("format") && description_["format"] == kFormatName);
  require("version", description_.contains("version") && description_["version"].is_number_integer());
  const int version = description_["version"].get<int>();
  if (version < kOldestFormatVersion || version > kFormatVersion)
    throw InputError(describeInputProblem(where, "version", "unsupported trace version " +
                                                                description_["version"].dump()));
  require("problem", description_.contains("problem") && description_["problem"].is_string());
  require("feature_names", description_.contains("feature_names") && description_["feature_names"].is_array());
  require("shard_files", description_.contains("shard_files") && description_["shard_files"].is_array());
  problem_ = description_["problem"].get<std::string>();
  for (const json &name : description_["feature_names"]) {
    require("feature_names", name.is_string());
    featureNames_.push_back(name.get<std::string>());
  }
  if (version == 1) {
    spec_ = DecisionSpec::int64Scalars(featureNames_);
  } else {
    require("decision_spec", description_.contains("decision_spec"));
    spec_ = DecisionSpec::fromJson(description_["decision_spec"], where + ": decision_spec");
    if (spec_.names() != featureNames_)
      throw InputError(describeInputProblem(where, "feature_names", "differ from the decision_spec's"));
  }
  for (const json &file : description_["shard_files"]) {
    require("shard_files", file.is_string() && isContainedRelativePath(file.get<std::string>()));
    shards_.push_back(directory / file.get<std::string>());
  }
}

std::map<std::string, uint64_t> TraceReader::baselines() const {
  const fs::path path = directory_ / kBaselinesFile;
  json baselines = readJsonFile(path);
  if (!baselines.contains("sizes") || !baselines["sizes"].is_object())
    throw InputError(describeInputProblem(path.string(), "sizes", "missing or not an object"));
  std::map<std::string, uint64_t> sizes;
  for (const auto &[name, size] : baselines["sizes"].items()) {
    if (!size.is_number_unsigned())
      throw InputError(describeInputProblem(path.string(), "sizes." + name, "not a size"));
    sizes[name] = size.get<uint64_t>();
  }
  return sizes;
}

void TraceReader::forEachModule(const std::function<void(const ModuleTrace &)> &visit) const {
  struct Cursor {
    std::unique_ptr<RecordReader> reader;
    fs::path path;
    std::optional<ModuleTrace> next;
  };
  // A damaged record ends its shard only: the other shards are still read to
  // the end, then the first error is thrown.
  std::optional<InputError> firstError;
  auto advance = [&](Cursor &cursor) {
    cursor.next.reset();
    const uint64_t offset = cursor.reader->offset();
    try {
      std::optional<std::string> record = cursor.reader->next();
      if (!record) return;
      try {
        cursor.next = decodeModule(*record, spec_);
      } catch (const ByteReader::DecodeError &e) {
        throw InputError(describeInputProblem(cursor.path.string(), "offset " + std::to_string(offset),
                                              "malformed module record: " + jsonErrorText(e)));
      }
    } catch (const InputError &e) {
      if (!firstError) firstError = e;
    }
  };
  std::vector<Cursor> cursors;
  for (const fs::path &path : shards_) {
    Cursor cursor{std::make_unique<RecordReader>(path), path, std::nullopt};
    std::optional<std::string> header = cursor.reader->next();
    json parsed = header ? parseJsonOrDiscarded(*header) : json();
    if (!header || parsed.is_discarded() || !parsed.contains("feature_names") ||
        parsed["feature_names"] != description_["feature_names"] ||
        parsed.value("decision_spec", json()) != description_.value("decision_spec", json()))
      throw InputError(
          describeInputProblem(path.string(), "header", "missing, or its features differ from the description"));
    advance(cursor);
    cursors.push_back(std::move(cursor));
  }
  for (;;) {
    Cursor *first = nullptr;
    for (Cursor &cursor : cursors)
      if (cursor.next && (!first || cursor.next->position < first->next->position)) first = &cursor;
    if (!first) break;
    visit(*first->next);
    advance(*first);
  }
  if (firstError) throw *firstError;
}

}  // namespace mlgo::trace
