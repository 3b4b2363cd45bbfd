#pragma once
// What every kind of policy directory shares (YesNoPolicy's, PositionPolicy's):
// its two files, its format tag, how a given path is resolved to it, and
// reading its JSON files with errors that name them.
#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "mlgo/policy/dense_network.h"
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
/// A policy.json's "network": inputs, hidden_layers, activation, outputs.
nlohmann::json networkJson(const DenseNetwork &network);
/// The network a policy.json's "network" describes, with `layers` (from
/// `weightsPath`): `inputs` wide, one output. InputError naming the file.
DenseNetwork readNetwork(const nlohmann::json &metadata, const nlohmann::json &layers,
                         const std::filesystem::path &metadataPath, const std::filesystem::path &weightsPath,
                         size_t inputs);

}  // namespace mlgo::policy_directory
