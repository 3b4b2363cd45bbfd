#include <catch2/catch.hpp>

#include <algorithm>

#include "mlgo/launcher/link_map.h"
#include "mlgo/support/atomic_file.h"
#include "mlgo/support/errors.h"
#include "support/test_environment.h"

using namespace mlgo;
using namespace mlgo::launcher;
namespace fs = std::filesystem;

namespace {

/// The dedup project's objects (-Oz), linked by `linker` with a map; the map.
std::string linkDedupProject(const test::ScratchDirectory &scratch, const std::string &linker) {
  const fs::path project = test::testData() / "builds" / "dedup";
  for (const char *unit : {"a", "b", "c", "main"}) {
    const test::CommandOutcome compiled =
        test::runIn(scratch.path(), {"clang++-19", "-Oz", "-c", (project / (std::string(unit) + ".cpp")).string(),
                                     "-o", std::string(unit) + ".o"});
    REQUIRE(compiled.exitCode == 0);
  }
  REQUIRE(test::runIn(scratch.path(), {"ar", "rc", "libc.a", "c.o"}).exitCode == 0);
  const std::string map = linker + ".map";
  const test::CommandOutcome linked =
      test::runIn(scratch.path(), {"clang++-19", "-fuse-ld=" + linker, "a.o", "b.o", "main.o", "libc.a", "-o",
                                   "program-" + linker, "-Wl,-Map=" + map});
  INFO(linked.err);
  REQUIRE(linked.exitCode == 0);
  return readFile(scratch / map);
}

}  // namespace

TEST_CASE("link map: GNU ld's and lld's maps list the same kept sections of the project's objects", "[builds]") {
  test::ScratchDirectory scratch;
  const std::vector<KeptSection> gnu = parseLinkMap(linkDedupProject(scratch, "bfd"), "bfd.map");
  const std::vector<KeptSection> lld = parseLinkMap(linkDedupProject(scratch, "lld"), "lld.map");
  auto ofProject = [](const std::vector<KeptSection> &sections) {
    std::vector<std::tuple<std::string, std::string, uint64_t>> mine;
    for (const KeptSection &section : sections)
      if (section.file == "a.o" || section.file == "b.o" || section.file == "main.o" || section.file == "libc.a(c.o)")
        if (section.kind == SectionKind::Text) mine.emplace_back(section.file, section.section, section.size);
    std::sort(mine.begin(), mine.end());
    return mine;
  };
  REQUIRE_FALSE(ofProject(gnu).empty());
  CHECK(ofProject(gnu) == ofProject(lld));
  for (const auto &sections : {gnu, lld}) {
    // big() is compiled into a.o and b.o; the linker keeps a.o's copy, the first.
    size_t copies = 0;
    for (const KeptSection &section : sections)
      if (section.section == ".text._Z3bigi") {
        ++copies;
        CHECK(section.file == "a.o");
        CHECK(section.output == ".text");
      }
    CHECK(copies == 1);
    // An archive member is named with its archive.
    CHECK(std::any_of(sections.begin(), sections.end(),
                      [](const KeptSection &section) { return section.file == "libc.a(c.o)"; }));
  }
}

TEST_CASE("link map: output sections by kind, archive members, and text that is no map", "[builds][errors]") {
  CHECK(outputSectionKind(".text") == SectionKind::Text);
  CHECK(outputSectionKind(".init") == SectionKind::Text);
  CHECK(outputSectionKind(".plt.got") == SectionKind::Text);
  CHECK(outputSectionKind(".rodata") == SectionKind::Data);
  CHECK(outputSectionKind(".eh_frame") == SectionKind::Data);
  CHECK(outputSectionKind(".data.rel.ro") == SectionKind::Data);
  CHECK(outputSectionKind(".bss") == SectionKind::Bss);
  CHECK(outputSectionKind(".tbss") == SectionKind::Bss);
  CHECK(outputSectionKind(".debug_info") == SectionKind::NotLoaded);
  CHECK(outputSectionKind(".comment") == SectionKind::NotLoaded);
  CHECK(splitArchiveMember("lib/libx.a(m.o)") == std::pair<std::string, std::string>{"lib/libx.a", "m.o"});
  CHECK(splitArchiveMember("dir/m.o") == std::pair<std::string, std::string>{"dir/m.o", ""});
  CHECK_THROWS_AS(parseLinkMap("just some text\n", "notes.txt"), InputError);
  CHECK_THROWS_WITH(parseLinkMap("just some text\n", "notes.txt"), Catch::Contains("notes.txt"));
}
