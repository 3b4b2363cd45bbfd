#include "mlgo/report/build_curve.h"

#include <algorithm>
#include <cctype>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>
#include <spdlog/fmt/fmt.h>

#include "mlgo/report/gnuplot_text.h"
#include "mlgo/support/errors.h"
#include "mlgo/support/text_input.h"

namespace mlgo {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

/// An entry of one comparison.json, for messages.
struct EntryPlace {
  const fs::path &file;
  std::string entry;  ///< e.g. "variants[2] (predicted)"

  InputError error(const std::string &problem, const std::string &within = "") const {
    return InputError(describeInputProblem(file.string(), within.empty() ? entry : entry + " " + within, problem));
  }
  const json &member(const json &object, const char *key, const std::string &within = "") const {
    if (!object.contains(key)) throw error(std::string("the entry \"") + key + "\" is missing", within);
    return object[key];
  }
  double number(const json &object, const char *key, const std::string &within = "") const {
    const json &value = member(object, key, within);
    if (!value.is_number()) throw error(std::string("\"") + key + "\" must be a number", within);
    return value.get<double>();
  }
  std::string text(const json &object, const char *key) const {
    const json &value = member(object, key);
    if (!value.is_string()) throw error(std::string("\"") + key + "\" must be a string");
    return value.get<std::string>();
  }
  bool flag(const json &object, const char *key) const {
    const json &value = member(object, key);
    if (!value.is_boolean()) throw error(std::string("\"") + key + "\" must be true or false");
    return value.get<bool>();
  }
  /// `linked_sum` or `objects_sum`: sizes with their changes against the reference.
  const json &sizes(const json &variant, const char *key) const {
    const json &value = member(variant, key);
    if (!value.is_object()) throw error("must be an object of sizes", key);
    return value;
  }
};

/// k of a way named "store-k" (k from 1, at most 6 digits: no build count
/// comes near, and stoul cannot overflow), none for any other way.
std::optional<size_t> storeBuildNumber(const std::string &name) {
  const std::string prefix = "store-";
  if (name.size() <= prefix.size() || name.compare(0, prefix.size(), prefix) != 0 || name.size() > prefix.size() + 6)
    return std::nullopt;
  const std::string digits = name.substr(prefix.size());
  if (!std::all_of(digits.begin(), digits.end(), [](char c) { return std::isdigit((unsigned char)c); }) ||
      digits[0] == '0')
    return std::nullopt;
  return std::stoul(digits);
}

BuildWay readWay(const json &variant, const EntryPlace &at) {
  if (!variant.is_object()) throw at.error("not an object");
  BuildWay way;
  way.name = at.text(variant, "name");
  way.storeBuild = storeBuildNumber(way.name);
  way.built = at.flag(variant, "built");
  // Comparisons written before compare-builds recorded "measured" measured
  // every way it built.
  way.measured = variant.contains("measured") ? at.flag(variant, "measured") && way.built : way.built;
  way.tests = at.text(variant, "tests");
  way.buildSeconds = at.number(variant, "build_seconds");
  const json &linked = at.sizes(variant, "linked_sum"), &objects = at.sizes(variant, "objects_sum");
  way.linkedTextPlusDataChange = at.number(linked, "text+data_change", "linked_sum");
  way.linkedTextChange = at.number(linked, "text_change", "linked_sum");
  way.objectsTextPlusDataChange = at.number(objects, "text+data_change", "objects_sum");
  return way;
}

std::string percent(double fraction) { return fmt::format("{:+.2f}%", 100 * fraction); }

std::string seconds(double value) {
  return value < 10 ? fmt::format("{:.2f} s", value) : fmt::format("{:.1f} s", value);
}

/// A way's build time, and its ratio to the reference's where that was built.
std::string buildTime(const BuildWay &way, const BuildWay &reference) {
  if (!reference.built || reference.buildSeconds <= 0) return seconds(way.buildSeconds);
  return fmt::format("{} ({:.2f}x)", seconds(way.buildSeconds), way.buildSeconds / reference.buildSeconds);
}

}  // namespace

std::vector<const BuildWay *> BuildCurve::storeBuilds() const {
  std::vector<const BuildWay *> builds;
  for (const BuildWay &way : ways)
    if (way.storeBuild && way.measured) builds.push_back(&way);
  std::sort(builds.begin(), builds.end(),
            [](const BuildWay *a, const BuildWay *b) { return *a->storeBuild < *b->storeBuild; });
  return builds;
}

BuildCurve readBuildCurve(const std::string &label, const fs::path &file) {
  const json comparison = readJsonFile(file);
  requireFormat(comparison, file.string(), "mlgo-build-comparison", 1, "a build comparison",
                "written by mlgo compare-builds");
  const EntryPlace top{file, ""};
  const json &variants = top.member(comparison, "variants");
  if (!variants.is_array() || variants.empty())
    throw InputError(describeInputProblem(file.string(), "variants", "no ways: a non-empty array is expected"));
  BuildCurve curve;
  curve.label = label;
  curve.file = file;
  std::set<std::string> names;
  for (size_t i = 0; i < variants.size(); ++i) {
    EntryPlace at{file, "variants[" + std::to_string(i) + "]"};
    if (variants[i].is_object() && variants[i].contains("name") && variants[i]["name"].is_string())
      at.entry += " (" + variants[i]["name"].get<std::string>() + ")";
    curve.ways.push_back(readWay(variants[i], at));
    if (!names.insert(curve.ways.back().name).second) throw at.error("a second way of this name");
  }
  return curve;
}

void checkBuildLabels(const std::vector<std::pair<std::string, fs::path>> &builds) {
  std::set<std::string> labels;
  for (const auto &[label, file] : builds) {
    const bool plain = !label.empty() && label.size() <= 64 && std::all_of(label.begin(), label.end(), [](char c) {
      return std::isalnum((unsigned char)c) || c == '.' || c == '_' || c == '-';
    });
    if (!plain)
      throw UsageError("--builds \"" + label + "=" + file.string() +
                       "\": the label names the plot builds-LABEL.png: letters, digits, '.', '_' and '-' only");
    if (!labels.insert(label).second)
      throw UsageError("--builds: the label \"" + label + "\" is given twice (each names its own plot)");
  }
}

std::string buildCurveData(const BuildCurve &curve) {
  std::ostringstream data;
  data << "# build\tway\tlinked_text+data_change_pct\tlinked_text_change_pct (vs " << curve.ways.front().name << ")\n";
  for (const BuildWay *way : curve.storeBuilds())
    data << fmt::format("{}\t{}\t{:.6g}\t{:.6g}\n", *way->storeBuild, way->name, 100 * way->linkedTextPlusDataChange,
                        100 * way->linkedTextChange);
  return data.str();
}

std::string buildCurveGnuplot(const BuildCurve &curve) {
  const std::vector<const BuildWay *> builds = curve.storeBuilds();
  if (builds.empty()) return "";
  const std::string &reference = curve.ways.front().name;
  std::string plot =
      fmt::format("plot 'data/{}' using 1:3 with linespoints lw 2 pt 7 title 'store builds'", curve.dataName());
  for (const BuildWay &way : curve.ways) {
    // mlgo-cc builds the reference's program through the launcher: its line
    // would only hide the reference's.
    if (way.storeBuild || !way.measured || way.name == "mlgo-cc") continue;
    plot += fmt::format(", \\\n     {:.6g} with lines dt 2 lw 1.5{} title {}", 100 * way.linkedTextPlusDataChange,
                        &way == &curve.ways.front() ? " lc rgb 'black'" : "", gnuplotString(way.name));
  }
  // Headroom above and below: the reference's line at 0 is often the edge
  // of the range, where the border would hide it.
  return fmt::format(
             "set output '{}'\nset title {}\nset xlabel 'store build'\nset ylabel {}\n"
             "set xrange [0.5:{:.1f}]\nset xtics 1\nset offsets 0, 0, graph 0.05, graph 0.05\n",
             curve.plotName(),
             gnuplotString(curve.label + ": linked .text+.data vs " + reference + ", build after build"),
             gnuplotString("linked .text+.data change vs " + reference + " (%)"),
             double(*builds.back()->storeBuild) + 0.5) +
         plot + "\nunset xrange\nset xtics autofreq\nset offsets\n";
}

std::vector<std::string> buildTableHeader() {
  return {"way", "linked .text+data", "linked .text", "objects .text+data", "tests", "build"};
}

std::vector<std::vector<std::string>> buildTableRows(const BuildCurve &curve) {
  const BuildWay &reference = curve.ways.front();
  std::vector<std::vector<std::string>> rows;
  for (const BuildWay &way : curve.ways) {
    if (!way.measured) {
      rows.push_back(
          {way.name, way.built ? "not measured" : "build failed", "", "", way.tests, buildTime(way, reference)});
      continue;
    }
    rows.push_back({way.name, percent(way.linkedTextPlusDataChange), percent(way.linkedTextChange),
                    percent(way.objectsTextPlusDataChange), way.tests, buildTime(way, reference)});
  }
  return rows;
}

}  // namespace mlgo
