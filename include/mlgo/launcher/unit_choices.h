#pragma once
// A choice file: for each translation unit (by module name, as extract-ir
// and `mlgo cc --pass-lists` name them), the way it is compiled: plainly, with
// the file's policy, or with a pass list of the search space. `mlgo
// compare-builds` writes one from what the linker kept of each unit in each
// way (the way whose kept bytes are smallest); `mlgo cc --choices FILE`
// builds with it, compiling only the units that have something to apply.
#include <filesystem>
#include <map>
#include <string>

#include <nlohmann/json.hpp>

namespace mlgo::autotune {
class SearchSpace;
}

namespace mlgo::launcher {

enum class UnitWay { Plain, Policy, PassList };
const char *unitWayName(UnitWay way);

struct UnitChoice {
  UnitWay way = UnitWay::Plain;
  std::string pipeline;  ///< for UnitWay::PassList: its opt pipeline, as the search space renders it
};

struct UnitChoices {
  std::filesystem::path policy;  ///< the policy of UnitWay::Policy units; empty when none uses one
  std::map<std::string, UnitChoice> units;
};

nlohmann::json unitChoicesToJson(const UnitChoices &choices);

/// Reads and checks a choice file: every pipeline must be one the search
/// space renders from its own passes (a choice file is data, never a way to
/// run an arbitrary pipeline). Throws InputError naming the file and entry.
UnitChoices readUnitChoices(const std::filesystem::path &file, const autotune::SearchSpace &space);

}  // namespace mlgo::launcher
