#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "mlgo/store/build_store.h"
#include "mlgo/driver/object_sizes.h"
#include "mlgo/support/atomic_file.h"
#include "mlgo/support/text_input.h"
#include "support/test_environment.h"

using namespace mlgo;
using Catch::Matchers::Contains;
namespace fs = std::filesystem;
using nlohmann::json;

TEST_CASE("compare-builds: a CMake project built plainly, through mlgo cc and with a policy, linked sizes and tests "
          "side by side",
          "[cli][builds][clang]") {
  test::TracedTestCorpus traced;
  test::randomInliningPolicy(traced, 9).save(traced / "policy");
  const test::CommandOutcome compared =
      test::runMlgo({"compare-builds", "--project", (test::testData() / "launcher" / "cmake").string(), "--output",
                     (traced / "builds").string(), "--policy", (traced / "policy").string(), "--jobs", "2"});
  INFO(compared.err);
  REQUIRE(compared.exitCode == 0);
  CHECK_THAT(compared.out, Contains("linked .text") && Contains("check"));
  const json comparison = readJsonFile(traced / "builds" / "comparison.json");
  REQUIRE(comparison["variants"].size() == 4);  // and the choice file's build
  const json &plain = comparison["variants"][0], &launched = comparison["variants"][1],
             &policy = comparison["variants"][2];
  CHECK(comparison["variants"][3]["name"] == "choices");
  CHECK(plain["name"] == "clang-19");
  for (const json &variant : comparison["variants"]) {
    CAPTURE(variant["name"]);
    CHECK(variant["built"] == true);
    CHECK(variant["tests"] == "passed");
    CHECK(variant["object_count"] == 3);
    REQUIRE(variant["linked"].contains("check"));
  }
  // Nothing to apply: the same program.
  CHECK(launched["linked"]["check"]["text"] == plain["linked"]["check"]["text"]);
  CHECK(launched["linked_sum"]["text+data_change"] == 0.0);
  // The policy's build: every unit in-process, sizes measured on the linked file itself.
  CHECK(policy["units"] == 3);
  CHECK(policy["fallbacks"] == 0);
  SectionSizes linked;
  std::string error;
  REQUIRE(measureObjectSizes(readFile(traced / "builds" / "policy" / "tree" / "check"), linked, error));
  CHECK(policy["linked"]["check"]["text"] == linked.text);
  CHECK(policy["linked"]["check"]["text+data"] == linked.textPlusData());
  // A project with no build type is compared at -Oz, not as the debug build CMake would make.
  CHECK(comparison["optimization"] == "-Oz");
  CHECK_THAT(compared.out, Contains("compared at -Oz"));
  CHECK(policy["unoptimized_units"] == 0);
  CHECK_THAT(readFile(traced / "builds" / "policy" / "build.log"), Contains("-DCMAKE_BUILD_TYPE=MinSizeRel"));

  // Told to keep the project's own flags, its units compile at -O0: counted, left as clang compiles them.
  const test::CommandOutcome own =
      test::runMlgo({"compare-builds", "--project", (test::testData() / "launcher" / "cmake").string(), "--output",
                     (traced / "own").string(), "--policy", (traced / "policy").string(), "--optimization", "project"});
  INFO(own.err);
  REQUIRE(own.exitCode == 0);
  const json ownComparison = readJsonFile(traced / "own" / "comparison.json");
  const json &ownPolicy = ownComparison["variants"][2];
  CHECK(ownPolicy["unoptimized_units"] == 3);
  CHECK(ownPolicy["fallbacks"] == 0);
  CHECK(ownPolicy["linked"]["check"]["text"] == ownComparison["variants"][0]["linked"]["check"]["text"]);
}

TEST_CASE("compare-builds: a make project, and inputs it cannot use", "[cli][builds][clang][errors]") {
  test::TracedTestCorpus traced;
  const test::CommandOutcome made =
      test::runMlgo({"compare-builds", "--project", (test::testData() / "launcher" / "make").string(), "--output",
                     (traced / "builds").string()});
  INFO(made.err);
  REQUIRE(made.exitCode == 0);
  const json comparison = readJsonFile(traced / "builds" / "comparison.json");
  REQUIRE(comparison["variants"].size() == 2);
  for (const json &variant : comparison["variants"]) {
    CHECK(variant["tests"] == "passed");
    CHECK(variant["linked"].contains("program"));
  }
  // The source tree is never built in: each build has its copy.
  CHECK_FALSE(fs::exists(test::testData() / "launcher" / "make" / "program"));

  const test::CommandOutcome notAProject = test::runMlgo(
      {"compare-builds", "--project", (traced / "corpus").string(), "--output", (traced / "other").string()});
  CHECK(notAProject.exitCode == 3);
  CHECK_THAT(notAProject.err, Contains("no CMakeLists.txt, configure or Makefile"));
  const test::CommandOutcome missingPolicy =
      test::runMlgo({"compare-builds", "--project", (test::testData() / "launcher" / "make").string(), "--output",
                     (traced / "other").string(), "--policy", (traced / "nothing").string()});
  CHECK(missingPolicy.exitCode == 3);
  CHECK_THAT(missingPolicy.err, Contains("nothing/policy.json"));
  CHECK_FALSE(fs::exists(traced / "other" / "comparison.json"));
  const test::CommandOutcome again = test::runMlgo({"compare-builds", "--project",
                                                    (test::testData() / "launcher" / "make").string(), "--output",
                                                    (traced / "builds").string()});
  CHECK(again.exitCode == 2);
  CHECK_THAT(again.err, Contains("--force"));
}

TEST_CASE("compare-builds: the choice file keeps each unit's smallest linked way and is never larger than plain",
          "[cli][builds][clang]") {
  test::TracedTestCorpus traced;
  test::fixedAnswerInliningPolicy(traced, true).save(traced / "inline-all");
  const test::CommandOutcome compared = test::runMlgo(
      {"compare-builds", "--project", (test::testData() / "builds" / "dedup").string(), "--output",
       (traced / "builds").string(), "--policy", (traced / "inline-all").string(), "--bench", "./program",
       "--bench-runs", "3"});
  INFO(compared.out << compared.err);
  REQUIRE(compared.exitCode == 0);
  const json comparison = readJsonFile(traced / "builds" / "comparison.json");
  std::map<std::string, json> variants;
  for (const json &variant : comparison["variants"]) variants[variant["name"]] = variant;
  REQUIRE(variants.count("choices"));
  const json &plain = variants["clang-19"], &policy = variants["policy"], &chosen = variants["choices"];
  // The premise: inlining big() shrinks each object that calls it, while the
  // program, which kept one copy of it, now holds its body twice.
  REQUIRE(policy["objects_sum"]["text+data"].get<uint64_t>() < plain["objects_sum"]["text+data"].get<uint64_t>());
  REQUIRE(policy["linked"]["program"]["text"].get<uint64_t>() > plain["linked"]["program"]["text"].get<uint64_t>());

  // What the linker kept: big() counts for a.o, whose copy comes first; in the policy's build it moved to b.o.
  const json &units = comparison["units"];
  CHECK(units["a.o"]["clang-19"]["text"].get<uint64_t>() > units["b.o"]["clang-19"]["text"].get<uint64_t>());
  CHECK(units["b.o"]["policy"]["text"].get<uint64_t>() > units["b.o"]["clang-19"]["text"].get<uint64_t>());

  // The first choice took the policy for a.o (its kept bytes fell) and c.o; the
  // program grew, big()'s kept copy had moved from a.o, so a.o went plain.
  CHECK(comparison["choice_rounds"] == 2);
  const json choices = readJsonFile(traced / "builds" / "choices.json");
  CHECK(choices["units"]["a.o"]["way"] == "plain");
  CHECK(choices["units"]["b.o"]["way"] == "plain");
  CHECK(choices["units"]["c.o"]["way"] == "policy");
  CHECK(choices["policy"] == fs::absolute(traced / "inline-all").string());
  for (const auto &[file, sizes] : plain["linked"].items()) {
    CAPTURE(file);
    CHECK(chosen["linked"][file]["text"].get<uint64_t>() <= sizes["text"].get<uint64_t>());
    CHECK(chosen["linked"][file]["text+data"].get<uint64_t>() <= sizes["text+data"].get<uint64_t>());
  }
  CHECK(chosen["linked"]["program"]["text"].get<uint64_t>() < plain["linked"]["program"]["text"].get<uint64_t>());
  CHECK(chosen["tests"] == "passed");
  CHECK(chosen["test_seconds"].get<double>() > 0);
  CHECK(chosen["bench_seconds"].get<double>() > 0);
  CHECK_THAT(compared.out, Contains("choices") && Contains("bench (median)"));
}

TEST_CASE("compare-builds: outputs around or inside the project, paths that split, builds that never call mlgo",
          "[cli][builds][clang][errors]") {
  test::TracedTestCorpus traced;
  SECTION("an output inside a make project, or one that holds the project, is refused before anything is copied") {
    const fs::path project = traced / "mproj";
    fs::copy(test::testData() / "launcher" / "make", project);
    const test::CommandOutcome inside = test::runMlgo(
        {"compare-builds", "--project", project.string(), "--output", (project / "out").string()});
    CHECK(inside.exitCode == 2);
    CHECK_THAT(inside.err, Contains("inside the make project"));
    CHECK_FALSE(fs::exists(project / "out"));
    const test::CommandOutcome around =
        test::runMlgo({"compare-builds", "--project", project.string(), "--output", traced.scratch.path().string()});
    CHECK(around.exitCode == 2);
    CHECK_THAT(around.err, Contains("holds the project"));
  }
  SECTION("a policy path with a space or a ';' reaches mlgo cc whole, in make and in CMake builds") {
    const fs::path policy = traced / "a policy; with space";
    test::randomInliningPolicy(traced, 9).save(policy);
    for (const char *project : {"make", "cmake"}) {
      CAPTURE(project);
      const fs::path output = traced / (std::string("builds-") + project);
      const test::CommandOutcome compared =
          test::runMlgo({"compare-builds", "--project", (test::testData() / "launcher" / project).string(),
                         "--output", output.string(), "--policy", policy.string()});
      INFO(compared.err);
      REQUIRE(compared.exitCode == 0);
      const json comparison = readJsonFile(output / "comparison.json");
      const json &withPolicy = comparison["variants"][2];
      CHECK(withPolicy["built"] == true);
      CHECK(withPolicy["units"].get<size_t>() > 0);
      CHECK(withPolicy["fallbacks"] == 0);
    }
  }
  SECTION("a Makefile that calls gcc itself: the ways with something to apply are not measured, and said so") {
    test::randomInliningPolicy(traced, 9).save(traced / "policy");
    const test::CommandOutcome compared =
        test::runMlgo({"compare-builds", "--project", (test::testData() / "builds" / "gcc-make").string(),
                       "--output", (traced / "gcc").string(), "--policy", (traced / "policy").string()});
    INFO(compared.err);
    REQUIRE(compared.exitCode == 0);
    CHECK_THAT(compared.err, Contains("the policy build compiled no unit through mlgo cc"));
    CHECK_THAT(compared.out, Contains("not measured"));
    const json comparison = readJsonFile(traced / "gcc" / "comparison.json");
    CHECK(comparison["variants"][2]["measured"] == false);
    CHECK(comparison["variants"][0]["measured"] == true);
  }
}

TEST_CASE("compare-builds --store-builds: each build learns from the ones before, its tests pass, and the store "
          "holds what they tried",
          "[cli][builds][store][clang]") {
  test::ScratchDirectory scratch;
  const test::CommandOutcome compared = test::runMlgoWithEnvironment(
      {"MLGO_CC_GATE_PROGRAMS=" + (test::testData() / "gate").string()},
      {"compare-builds", "--project", (test::testData() / "launcher" / "cmake").string(), "--output",
       (scratch / "builds").string(), "--store-builds", "3", "--explore", "2", "--jobs", "2"});
  INFO(compared.err);
  REQUIRE(compared.exitCode == 0);
  const json comparison = readJsonFile(scratch / "builds" / "comparison.json");
  std::vector<std::string> names;
  for (const json &variant : comparison["variants"]) {
    names.push_back(variant["name"]);
    CAPTURE(variant["name"]);
    CHECK(variant["tests"] == "passed");
  }
  CHECK(names == std::vector<std::string>{"clang-19", "mlgo-cc", "store-1", "store-2", "store-3", "choices"});
  for (size_t build = 1; build <= 3; ++build) {
    const json &variant = comparison["variants"][1 + build];
    CHECK(variant["units"] == 3);
    CHECK(variant["fallbacks"] == 0);
  }
  CHECK_THAT(compared.out, Contains("store-3"));
  const test::CommandOutcome info =
      test::runMlgo({"store-info", "--store", (scratch / "builds" / "units.db").string(), "--json"});
  REQUIRE(info.exitCode == 0);
  const json store = json::parse(info.out);
  CHECK(store["units"] == 3);
  // The first build found every unit new: each compiled its recorded level and
  // 2 lists. The two builds after shared 2 plain builds' worth of compile cost
  // each (the price the first build's links set): they explored, within it.
  CHECK(store["trials"].get<size_t>() > 3 * (1 + 2));
  // What the linker kept went into the store after each build: every unit's
  // recorded level (from clang-19's build) and the lists the builds applied.
  CHECK(store["kept_trials"].get<size_t>() >= 3);
  CHECK(store["kept_trials"].get<size_t>() <= 3 * (1 + 3));
  const std::unique_ptr<store::BuildStore> opened = store::BuildStore::openExisting(scratch / "builds" / "units.db");
  double plainCost = 0, laterExploration = 0;
  for (const store::StoredUnit &unit : opened->units()) {
    CAPTURE(unit.module);
    REQUIRE(unit.trials.at("").kept);
    CHECK(unit.trials.at("").kept->textPlusData() > 0);
    CHECK(unit.choice);
    REQUIRE(unit.trials.size() >= 1 + 2);
    const double cost = double(unit.trials.at("").work);
    CHECK(cost > 0);
    plainCost += cost;
    laterExploration += double(unit.trials.size() - 1 - 2) * cost;
  }
  CHECK(laterExploration <= 2 * 2 * plainCost);
}
