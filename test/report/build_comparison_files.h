#pragma once
// comparison.json files as `mlgo compare-builds` writes them (the fields of
// comparisonToJson in src/builds/build_comparison.cpp), from a few sizes per
// way, for the tests of `mlgo report --builds`.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace mlgo::test {

/// One way a project was built: its summed sizes (one linked file, "prog").
struct TestWay {
  std::string name;
  double linkedText = 0, linkedTextPlusData = 0, objectsTextPlusData = 0;
  double buildSeconds = 20;
  bool built = true;
  std::string tests = "passed";
};

/// The change compare-builds records: a fraction of the reference.
inline double changeOf(double value, double base) { return base > 0 ? (value - base) / base : 0.0; }

/// The comparison of `ways`, the first the reference. A way that failed to
/// build has no sizes, as compare-builds records it (all 0).
inline nlohmann::json comparisonJson(const std::vector<TestWay> &ways) {
  using nlohmann::json;
  const TestWay &reference = ways.front();
  auto sizes = [](double text, double textPlusData, double baseText, double baseTextPlusData) {
    return json{{"text", text},
                {"text+data", textPlusData},
                {"text_change", changeOf(text, baseText)},
                {"text+data_change", changeOf(textPlusData, baseTextPlusData)}};
  };
  json variants = json::array();
  for (const TestWay &way : ways) {
    const double scale = way.built ? 1 : 0;
    const json linked = sizes(scale * way.linkedText, scale * way.linkedTextPlusData, reference.linkedText,
                              reference.linkedTextPlusData);
    const json objects = sizes(scale * way.objectsTextPlusData / 2, scale * way.objectsTextPlusData,
                               reference.objectsTextPlusData / 2, reference.objectsTextPlusData);
    variants.push_back({{"name", way.name},
                        {"mlgo_cc_environment", json::object()},
                        {"through_mlgo_cc", way.name != reference.name},
                        {"measured", way.built},
                        {"built", way.built},
                        {"configure_seconds", 1.5},
                        {"build_seconds", way.buildSeconds},
                        {"tests", way.tests},
                        {"test_seconds", 0.5},
                        {"bench_seconds", 0.0},
                        {"units", 4},
                        {"fallbacks", 0},
                        {"unoptimized_units", 0},
                        {"backups", 0},
                        {"linked", {{"prog", linked}}},
                        {"linked_sum", linked},
                        {"object_count", way.built ? 4 : 0},
                        {"objects_sum", objects}});
  }
  return {{"format", "mlgo-build-comparison"}, {"version", 1},      {"optimization", "-Oz"}, {"variants", variants},
          {"units", json::object()},           {"choice_rounds", 1}};
}

}  // namespace mlgo::test
