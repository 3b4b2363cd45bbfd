#pragma once
// Choosing, per translation unit, the way of compiling it whose linked bytes
// are smallest: compare-builds built the project plainly and with each thing
// to apply, the linker maps say what each unit contributed to every linked
// file in each way, and the choice file keeps for each unit the way whose
// kept .text+data is smallest (plain where none is smaller). A unit whose
// policy or list shrank its object but grew what the linker kept (a C++
// inline function inlined into one object while another's copy is kept
// anyway) stays plain.
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "mlgo/store/build_store.h"
#include "mlgo/builds/build_comparison.h"
#include "mlgo/launcher/unit_choices.h"

namespace mlgo::builds {

/// One unit as a variant's mlgo cc log recorded it: its module name and the
/// way it was compiled there (plain where nothing was applied).
struct LoggedUnit {
  std::string module;
  launcher::UnitChoice way;
  /// Its key in the project's store, when it compiled through one.
  std::string storeUnit;
};

/// The units of a variant's mlgo cc log by object path relative to the
/// tree (the build ran at `buildRoot`).
std::map<std::string, LoggedUnit> loggedUnits(const BuiltVariant &built, const std::filesystem::path &buildRoot);

/// The choice for every unit the variants' logs name: the way whose kept
/// .text+data is smallest, the first variant (the plain build) winning ties.
/// `policy` is the policy the variants applied (empty: none).
launcher::UnitChoices chooseUnits(const std::vector<BuiltVariant> &variants, const std::filesystem::path &buildRoot,
                                  const std::filesystem::path &policy);

/// For the store `storeWay` compiled with (mlgo cc --store): what the linker
/// kept of each of its units under the pipeline it applied, and at the
/// unit's recorded level from `plain` (clang-19's build, whose objects are
/// the recorded level's byte for byte), so that the store chooses by what
/// ships.
std::vector<store::KeptByLinker> keptForStore(const BuiltVariant &storeWay, const BuiltVariant &plain,
                                                 const std::filesystem::path &buildRoot);

/// The linked files where `built` is larger than `reference` in .text or in
/// .text+data, or missing.
std::vector<std::string> largerLinkedFiles(const BuiltVariant &built, const BuiltVariant &reference);

/// Sets plain the units that made `larger` files larger than in `reference`:
/// those whose kept bytes there grew; all of a file's chosen units where
/// none did (the growth came from elsewhere, a library member pulled in).
/// Returns how many units changed.
size_t revertUnits(launcher::UnitChoices &choices, const BuiltVariant &built, const BuiltVariant &reference,
                   const std::vector<std::string> &larger, const std::filesystem::path &buildRoot);

}  // namespace mlgo::builds
