#include "mlgo/builds/unit_attribution.h"

#include <algorithm>
#include <set>
#include <vector>

#include "mlgo/launcher/link_map.h"
#include "mlgo/support/atomic_file.h"
#include "mlgo/support/errors.h"
#include "mlgo/support/text_input.h"

namespace mlgo::builds {

namespace fs = std::filesystem;
using launcher::KeptSection;
using launcher::SectionKind;
using launcher::parseLinkMap;
using launcher::splitArchiveMember;

namespace {

/// `path` relative to `root` when it lies below it; empty otherwise.
std::string below(const fs::path &path, const fs::path &root) {
  const fs::path relative = path.lexically_normal().lexically_relative(root.lexically_normal());
  if (relative.empty() || *relative.begin() == "..") return "";
  return relative.generic_string();
}

/// Resolves the input files of the maps to units: objects of the tree, by
/// their path relative to it.
class UnitResolver {
 public:
  UnitResolver(fs::path buildRoot, const fs::path &tree) : buildRoot_(std::move(buildRoot)) {
    std::error_code error;
    for (fs::recursive_directory_iterator it(tree, error), end; !error && it != end; it.increment(error))
      if (it->is_regular_file() && it->path().extension() == ".o")
        objects_.push_back(fs::relative(it->path(), tree).generic_string());
    std::sort(objects_.begin(), objects_.end());
  }

  /// The unit of an input file as a link in `directory` named it; "" for
  /// files outside the tree.
  std::string unitOf(const std::string &file, const fs::path &directory) const {
    const auto [container, member] = splitArchiveMember(file);
    const std::string path = below(directory / container, buildRoot_);
    if (path.empty() || member.empty()) return path;
    return memberUnit(path, member);
  }

 private:
  /// An archive's member by its name: the tree's object of that name, the
  /// one in the archive's target folder (CMake's CMakeFiles/NAME.dir) where
  /// several share it.
  std::string memberUnit(const std::string &archive, const std::string &member) const {
    std::vector<std::string> named;
    for (const std::string &object : objects_)
      if (fs::path(object).filename() == member) named.push_back(object);
    if (named.size() <= 1) return named.empty() ? "" : named.front();
    std::string target = fs::path(archive).stem().string();
    if (target.rfind("lib", 0) == 0) target = target.substr(3);
    for (const std::string &object : named)
      if (object.find("/" + target + ".dir/") != std::string::npos) return object;
    return "";  // ambiguous: counted for nobody rather than for the wrong unit
  }

  fs::path buildRoot_;
  std::vector<std::string> objects_;
};

}  // namespace

std::map<std::string, SectionSizes> KeptBytes::byUnit() const {
  std::map<std::string, SectionSizes> sums;
  for (const auto &[linked, units] : byLinkedFile)
    for (const auto &[unit, sizes] : units) {
      SectionSizes &sum = sums[unit];
      sum.text += sizes.text;
      sum.data += sizes.data;
      sum.rodata += sizes.rodata;
      sum.bss += sizes.bss;
    }
  return sums;
}

KeptBytes attributeLinkMaps(const fs::path &maps, const fs::path &buildRoot, const fs::path &tree) {
  KeptBytes kept;
  if (!fs::is_directory(maps)) return kept;
  const UnitResolver resolver(buildRoot, tree);
  std::vector<fs::path> descriptions;
  for (const auto &entry : fs::directory_iterator(maps))
    if (entry.path().extension() == ".json") descriptions.push_back(entry.path());
  std::sort(descriptions.begin(), descriptions.end());
  for (const fs::path &description : descriptions) {
    const fs::path map = fs::path(description).replace_extension(".map");
    if (!fs::exists(map)) continue;  // the link failed before writing it
    const nlohmann::json link = readJsonFile(description);
    if (!link.is_object() || !link.contains("directory") || !link["directory"].is_string() ||
        !link.contains("output") || !link["output"].is_string())
      throw InputError(describeInputProblem(description.string(), "", "needs \"directory\" and \"output\" strings"));
    const fs::path directory = link["directory"].get<std::string>();
    const std::string linked = below(directory / link["output"].get<std::string>(), buildRoot);
    if (linked.empty()) continue;
    std::map<std::string, SectionSizes> &units = kept.byLinkedFile[linked];
    std::map<std::string, std::string> &owners = kept.sectionOwners[linked];
    units.clear();  // a relink's map replaces the earlier one
    owners.clear();
    std::set<std::string> shared;
    for (const KeptSection &section : parseLinkMap(readFile(map), map.string())) {
      if (section.kind == SectionKind::NotLoaded) continue;
      const std::string unit = resolver.unitOf(section.file, directory);
      if (unit.empty()) continue;
      launcher::addKeptSection(units[unit], section);
      auto [owner, isNew] = owners.emplace(section.section, unit);
      if (!isNew && owner->second != unit) shared.insert(section.section);
    }
    for (const std::string &section : shared) owners.erase(section);
  }
  return kept;
}

}  // namespace mlgo::builds
