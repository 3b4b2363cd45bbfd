#include "mlgo/policy/policy_directory.h"

#include <cmath>

#include "mlgo/support/atomic_file.h"
#include "mlgo/support/errors.h"
#include "mlgo/support/run_manifest.h"
#include "mlgo/support/text_input.h"

namespace mlgo::policy_directory {

namespace fs = std::filesystem;
using nlohmann::json;

fs::path resolve(const fs::path &given) {
  fs::path directory =
      !fs::exists(given / kMetadataFile) && fs::exists(given / "policy" / kMetadataFile) ? given / "policy" : given;
  if (fs::path found = existingDirectory(directory); !found.empty()) directory = found;
  return directory;
}

std::string problemOf(const fs::path &given) {
  const fs::path metadataPath = resolve(given) / kMetadataFile;
  const json metadata = readFile(metadataPath);
  checkFormat(metadata, metadataPath);
  if (!metadata.contains("problem") || !metadata["problem"].is_string())
    throw InputError(describeInputProblem(metadataPath.string(), "problem", "missing or not a string"));
  return metadata["problem"].get<std::string>();
}

json describeAsInput(const fs::path &given) {
  const fs::path directory = resolve(given);
  json files = json::object();
  for (const fs::directory_entry &entry : fs::recursive_directory_iterator(directory)) {
    if (!entry.is_regular_file()) continue;
    const std::string name = entry.path().lexically_relative(directory).generic_string();
    if (name != kMetadataFile) {
      files[name] = contentHash(entry.path());
      continue;
    }
    json metadata = readFile(entry.path());
    if (metadata.is_object()) metadata.erase("training");
    files[name] = textHash(metadata.dump());
  }
  return json{{"path", fs::absolute(directory).string()}, {"files", files}};
}

json readFile(const fs::path &path) {
  if (!fs::exists(path))
    throw InputError(describeInputProblem(path.string(), "", "missing: not a policy directory, or an unfinished one"));
  return readJsonFile(path);
}

void checkFormat(const json &metadata, const fs::path &metadataPath) {
  if (!metadata.is_object() || metadata.value("format", "") != kFormat)
    throw InputError(describeInputProblem(metadataPath.string(), "format", "not an mlgo policy"));
  if (metadata.value("version", 0) != kVersion)
    throw InputError(describeInputProblem(metadataPath.string(), "version", "unsupported policy version"));
}

fs::path startPartial(const fs::path &directory) {
  const fs::path partial = fs::path(directory.string() + ".partial");
  fs::remove_all(partial);
  fs::create_directories(partial);
  return partial;
}

void write(const fs::path &partial, const fs::path &directory, const json &metadata, const json &layers) {
  writeFileAtomically(partial / kWeightsFile, json{{"layers", layers}}.dump() + "\n");
  writeFileAtomically(partial / kMetadataFile, metadata.dump(2) + "\n");
  // Replace the old directory only once the new one is complete.
  replaceDirectory(partial, directory);
}

std::string textField(const json &object, const char *key) {
  return object.contains(key) && object[key].is_string() ? object[key].get<std::string>() : std::string("(none)");
}

std::vector<float> preprocessingFloats(const json &object, const char *key, size_t size, const fs::path &file) {
  const std::string where = std::string("preprocessing.") + key;
  if (!object.contains(key) || !object[key].is_array() || object[key].size() != size)
    throw InputError(describeInputProblem(file.string(), where, "expected " + std::to_string(size) + " numbers"));
  std::vector<float> values;
  for (const json &value : object[key]) {
    if (!value.is_number() || !std::isfinite(value.get<double>()))
      throw InputError(describeInputProblem(file.string(), where, "not a finite number: " + shortJsonText(value)));
    values.push_back(value.get<float>());
  }
  return values;
}

void checkIdentity(const json &metadata, const fs::path &metadataPath, const std::string &problem, const char *kind,
                   const trace::DecisionSpec &spec) {
  auto fail = [&](const std::string &entry, const std::string &what) {
    return InputError(describeInputProblem(metadataPath.string(), entry, what));
  };
  if (textField(metadata, "problem") != problem)
    throw fail("problem", "the policy is for " + textField(metadata, "problem") + ", not " + problem);
  if (textField(metadata, "kind") != kind)
    throw fail("kind", "a " + problem + " policy must be " + kind + ", this one is " + textField(metadata, "kind"));
  if (!metadata.contains("decision_spec") ||
      trace::DecisionSpec::fromJson(metadata["decision_spec"], metadataPath.string()) != spec)
    throw fail("decision_spec", "the policy's decisions differ from this compiler's " + problem + " decisions");
}

json networkJson(const DenseNetwork &network) {
  return {{"inputs", network.inputs()},
          {"hidden_layers", network.hiddenSizes()},
          {"activation", activationName(network.activation())},
          {"outputs", network.outputs()}};
}

DenseNetwork readNetwork(const json &metadata, const json &layers, const fs::path &metadataPath,
                         const fs::path &weightsPath, size_t inputs) {
  const json network = metadata.value("network", json::object());
  std::vector<size_t> widths;
  Activation activation;
  try {
    widths = network.at("hidden_layers").get<std::vector<size_t>>();
    activation = parseActivation(network.at("activation").get<std::string>());
  } catch (const std::exception &e) {
    throw InputError(describeInputProblem(metadataPath.string(), "network",
                                          "hidden_layers or activation missing or malformed: " + jsonErrorText(e)));
  }
  widths.push_back(1);
  return DenseNetwork(DenseNetwork::layersFromJson(layers, weightsPath, inputs, widths), activation);
}

json networkPolicyMetadata(const std::string &problem, const char *kind, const trace::DecisionSpec &spec,
                           json preprocessing, const DenseNetwork &network, const json &training) {
  return json{{"format", kFormat},
              {"version", kVersion},
              {"problem", problem},
              {"kind", kind},
              {"feature_names", spec.names()},
              {"decision_spec", spec.toJson()},
              {"preprocessing", std::move(preprocessing)},
              {"network", networkJson(network)},
              {"training", training},
              {"mlgo_version", MLGO_VERSION}};
}

NetworkPolicyFiles readNetworkPolicy(const fs::path &given, const std::string &problem, const char *kind,
                                     const trace::DecisionSpec &spec) {
  const fs::path directory = resolve(given);
  NetworkPolicyFiles files;
  files.metadataPath = directory / kMetadataFile;
  files.metadata = readFile(files.metadataPath);
  checkFormat(files.metadata, files.metadataPath);
  checkIdentity(files.metadata, files.metadataPath, problem, kind, spec);
  files.weightsPath = directory / kWeightsFile;
  files.layers = readFile(files.weightsPath).value("layers", json());
  return files;
}

std::string serializeNetworkPolicy(const json &metadata, const DenseNetwork &network) {
  const std::vector<uint8_t> bytes = json::to_cbor(json{{"metadata", metadata}, {"layers", network.layersToJson()}});
  return std::string(bytes.begin(), bytes.end());
}

}  // namespace mlgo::policy_directory
