#pragma once
// What every kind of policy directory shares (YesNoPolicy's, PositionPolicy's):
// its two files, its format tag, how a given path is resolved to it, and
// reading its JSON files with errors that name them.
#include <cstddef>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "mlgo/policy/dense_network.h"
#include "mlgo/support/text_input.h"
#include "mlgo/trace/decision_spec.h"

namespace mlgo::policy_directory {

inline constexpr const char *kFormat = "mlgo-policy";
inline constexpr int kVersion = 1;
inline constexpr const char *kMetadataFile = "policy.json";  ///< written last
inline constexpr const char *kWeightsFile = "model.json";

/// The policy directory `given` names: itself, or the policy/ of a training
/// output directory; when a save was interrupted between its two renames,
/// the previous policy left as DIR.old.
std::filesystem::path resolve(const std::filesystem::path &given);
/// The policy directory `given` names (resolved) as an input of a run
/// manifest (run_manifest.h): {"path", "files"}, each file's hash, and
/// policy.json's without its "training" record. That record says where and
/// how the policy was trained (the paths of its trace and vocab, which differ
/// from folder to folder); what decides is the network, its weights, the
/// features, their preprocessing and the vocab, and no command that reads a
/// policy acts on the record. So a warm start retrained in another folder,
/// with the same weights, is the same input.
nlohmann::json describeAsInput(const std::filesystem::path &given);
/// A policy file's JSON; InputError naming the file when it is missing
/// ("not a policy directory, or an unfinished one") or malformed.
nlohmann::json readFile(const std::filesystem::path &path);
/// The problem a policy directory (`given`, resolved) decides, as its
/// policy.json records it; InputError naming the file when it cannot say.
std::string problemOf(const std::filesystem::path &given);
/// InputError naming `metadataPath` unless its format and version are ours.
void checkFormat(const nlohmann::json &metadata, const std::filesystem::path &metadataPath);
/// Writes the two files into DIR.partial and renames it over `directory`
/// (extra files, e.g. a vocab, may already be in `partial`).
void write(const std::filesystem::path &partial, const std::filesystem::path &directory,
           const nlohmann::json &metadata, const nlohmann::json &layers);
/// DIR.partial, emptied and created.
std::filesystem::path startPartial(const std::filesystem::path &directory);

/// A string field of `object`, or "(none)" when it has none.
std::string textField(const nlohmann::json &object, const char *key);
/// preprocessing.`key` of a policy.json (`object` is its "preprocessing"):
/// `size` finite numbers; InputError naming `file` and the entry otherwise.
std::vector<float> preprocessingFloats(const nlohmann::json &object, const char *key, size_t size,
                                       const std::filesystem::path &file);
/// InputError naming `metadataPath` unless the policy.json is of `problem`,
/// of `kind` and of decisions `spec`.
void checkIdentity(const nlohmann::json &metadata, const std::filesystem::path &metadataPath,
                   const std::string &problem, const char *kind, const trace::DecisionSpec &spec);
/// A network policy's policy.json: format, problem, kind, the decisions'
/// spec and feature names, `preprocessing`, the network and its `training`
/// record (a kind adds its own keys).
nlohmann::json networkPolicyMetadata(const std::string &problem, const char *kind, const trace::DecisionSpec &spec,
                                     nlohmann::json preprocessing, const DenseNetwork &network,
                                     const nlohmann::json &training);

/// A network policy's two files, read from the directory `given` names and
/// checked: our format, of `problem`, `kind` and decisions `spec`.
struct NetworkPolicyFiles {
  nlohmann::json metadata, layers;
  std::filesystem::path metadataPath, weightsPath;
};
NetworkPolicyFiles readNetworkPolicy(const std::filesystem::path &given, const std::string &problem, const char *kind,
                                     const trace::DecisionSpec &spec);

/// How a kind of network policy is made of its metadata and layers (read
/// from the two files named, for errors).
template <class Policy>
using NetworkPolicyReader = Policy (*)(const nlohmann::json &metadata, const nlohmann::json &layers,
                                       const std::filesystem::path &metadataPath,
                                       const std::filesystem::path &weightsPath);

/// The policy in the directory `given` names, checked as readNetworkPolicy does.
template <class Policy>
Policy loadNetworkPolicy(const std::filesystem::path &given, const std::string &problem, const char *kind,
                         const trace::DecisionSpec &spec, NetworkPolicyReader<Policy> fromJson) {
  const NetworkPolicyFiles files = readNetworkPolicy(given, problem, kind, spec);
  return fromJson(files.metadata, files.layers, files.metadataPath, files.weightsPath);
}

/// A network policy as one message (its metadata and layers in CBOR), for
/// ranks that sample from it.
std::string serializeNetworkPolicy(const nlohmann::json &metadata, const DenseNetwork &network);
/// The policy `fromJson` makes of serialized `bytes`; std::runtime_error
/// "not a serialized KIND policy: ..." otherwise.
template <class Policy>
Policy deserializeNetworkPolicy(std::string_view bytes, const char *kind, NetworkPolicyReader<Policy> fromJson) {
  try {
    const nlohmann::json whole = nlohmann::json::from_cbor(bytes.begin(), bytes.end());
    return fromJson(whole.at("metadata"), whole.at("layers"), "(serialized policy)", "(serialized policy)");
  } catch (const std::exception &e) {
    throw std::runtime_error(std::string("not a serialized ") + kind + " policy: " + jsonErrorText(e));
  }
}

/// A policy.json's "network": inputs, hidden_layers, activation, outputs.
nlohmann::json networkJson(const DenseNetwork &network);
/// The network a policy.json's "network" describes, with `layers` (from
/// `weightsPath`): `inputs` wide, one output. InputError naming the file.
DenseNetwork readNetwork(const nlohmann::json &metadata, const nlohmann::json &layers,
                         const std::filesystem::path &metadataPath, const std::filesystem::path &weightsPath,
                         size_t inputs);

}  // namespace mlgo::policy_directory
