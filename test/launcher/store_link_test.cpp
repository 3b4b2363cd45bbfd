#include <catch2/catch.hpp>

#include "mlgo/store/build_store.h"
#include "mlgo/driver/compile_memo.h"
#include "mlgo/launcher/compile_plan.h"
#include "mlgo/launcher/store_link.h"
#include "mlgo/support/atomic_file.h"
#include "support/test_environment.h"

using namespace mlgo;
using namespace mlgo::launcher;
namespace fs = std::filesystem;

namespace {

/// Runs the code under test in the link's directory, as mlgo cc runs there.
class InDirectory {
 public:
  explicit InDirectory(const fs::path &directory) : previous_(fs::current_path()) { fs::current_path(directory); }
  ~InDirectory() { fs::current_path(previous_); }

 private:
  fs::path previous_;
};

/// The dedup project (test/data/builds/dedup) compiled at -Oz, and each of
/// a.cpp and c.cpp also compiled "with a list": an inliner that inlines
/// big() and middle(). Its a.o shrinks while the program grows (b.o's copy of
/// big() is kept instead); its c.o shrinks and so does the program.
struct DedupObjects {
  test::ScratchDirectory scratch;
  DedupObjects() {
    const fs::path project = test::testData() / "builds" / "dedup";
    for (const char *unit : {"a", "b", "c", "main"}) {
      const std::string source = (project / (std::string(unit) + ".cpp")).string();
      REQUIRE(test::runIn(scratch.path(), {"clang++-19", "-Oz", "-c", source, "-o", std::string(unit) + ".o"})
                  .exitCode == 0);
      REQUIRE(test::runIn(scratch.path(), {"clang++-19", "-Oz", "-mllvm", "-inline-threshold=10000", "-c", source,
                                           "-o", std::string(unit) + ".listed.o"})
                  .exitCode == 0);
    }
  }
  fs::path path(const std::string &name) const { return scratch.path() / name; }
};

constexpr const char *kList = "cgscc(inline)";

/// A store that knows unit `name`'s object compiled with kList and at its
/// recorded level (kept beside the store under its tree's name, as mlgo cc
/// keeps it).
void teach(store::BuildStore &store, const DedupObjects &objects, const std::string &name) {
  const std::string plain = readFile(objects.path(name + ".o")), listed = readFile(objects.path(name + ".listed.o"));
  store::StoredTrial recorded, withList;
  recorded.compiled = withList.compiled = true;
  withList.pipeline = kList;
  recorded.sizes.text = plain.size();
  withList.sizes.text = listed.size();
  store.recordTrials("unit-" + name, name, true, {recorded, withList});
  const std::string tree = "tree-" + name;
  store.recordObjects({{CompileMemo::hash(listed), {"unit-" + name, kList, tree}},
                       {CompileMemo::hash(plain), {"unit-" + name, "", tree}}});
  fs::create_directories(store.recordedObjectPath(tree).parent_path());
  writeFileAtomically(store.recordedObjectPath(tree), plain);
}

StoreLinkOutcome link(store::BuildStore &store, const DedupObjects &objects, std::vector<std::string> command) {
  const InDirectory inside(objects.scratch.path());
  const fs::path compiler = findCompiler(command.front());
  REQUIRE(!compiler.empty());
  return linkThroughStore(command, compiler, "program", store);
}

std::string plainLink(const DedupObjects &objects, const std::vector<std::string> &inputs) {
  std::vector<std::string> command{"clang++-19", "-Oz", "-o", "plain-program"};
  command.insert(command.end(), inputs.begin(), inputs.end());
  REQUIRE(test::runIn(objects.scratch.path(), command).exitCode == 0);
  return readFile(objects.path("plain-program"));
}

}  // namespace

TEST_CASE("store link: a list that shrinks its object but grows the program ships the plain link",
          "[launcher][store][clang]") {
  const DedupObjects objects;
  store::BuildStore store(objects.path("units.db"), store::StoreIdentity{"19", "space", "4"});
  teach(store, objects, "a");
  const StoreLinkOutcome outcome =
      link(store, objects, {"clang++-19", "-Oz", "-o", "program", "a.listed.o", "b.o", "c.o", "main.o"});
  CHECK(outcome.exitCode == 0);
  CHECK(outcome.listedInputs == 1);
  CHECK(outcome.verdict == StoreLinkVerdict::Plain);
  CHECK(outcome.linkedTextData > outcome.plainTextData);
  // What ships is byte for byte the link of clang's own objects.
  CHECK(readFile(objects.path("program")) == plainLink(objects, {"a.o", "b.o", "c.o", "main.o"}));
  // Both of a.o's ways now have what the linker kept of them.
  const std::optional<store::StoredUnit> unit = store.unit("unit-a");
  REQUIRE(unit);
  CHECK(unit->trials.at("").kept.has_value());
  CHECK(unit->trials.at(kList).kept.has_value());
  CHECK(test::runIn(objects.scratch.path(), {"./program"}).exitCode == 0);
}

TEST_CASE("store link: a list that shrinks the program ships, and its rebuild links once", "[launcher][store][clang]") {
  const DedupObjects objects;
  store::BuildStore store(objects.path("units.db"), store::StoreIdentity{"19", "space", "4"});
  teach(store, objects, "c");
  const std::vector<std::string> command{"clang++-19", "-Oz", "-o", "program", "a.o", "b.o", "c.listed.o", "main.o"};
  const StoreLinkOutcome first = link(store, objects, command);
  CHECK(first.verdict == StoreLinkVerdict::Kept);
  CHECK(first.linkedTextData < first.plainTextData);
  CHECK(readFile(objects.path("program")) == plainLink(objects, {"a.o", "b.o", "c.listed.o", "main.o"}));
  const StoreLinkOutcome again = link(store, objects, command);
  CHECK(again.verdict == StoreLinkVerdict::Verified);
  CHECK(again.plainTextData == 0);  // not linked plainly again
  CHECK(readFile(objects.path("program")) == plainLink(objects, {"a.o", "b.o", "c.listed.o", "main.o"}));
  // An input that changed is another link: compared again.
  writeFileAtomically(objects.path("b.o"), readFile(objects.path("b.listed.o")));
  CHECK(link(store, objects, command).verdict != StoreLinkVerdict::Verified);
}

TEST_CASE("store link: members of an archive are compared too, and a link of plain inputs only is recorded",
          "[launcher][store][clang]") {
  const DedupObjects objects;
  store::BuildStore store(objects.path("units.db"), store::StoreIdentity{"19", "space", "4"});
  teach(store, objects, "a");
  REQUIRE(test::runIn(objects.scratch.path(), {"llvm-ar-19", "rcs", "libab.a", "a.listed.o", "b.o"}).exitCode == 0);
  REQUIRE(test::runIn(objects.scratch.path(), {"llvm-ar-19", "rcs", "libplain.a", "a.o", "b.o"}).exitCode == 0);
  const StoreLinkOutcome archived =
      link(store, objects, {"clang++-19", "-Oz", "-o", "program", "main.o", "c.o", "libab.a"});
  CHECK(archived.listedInputs == 1);
  INFO(archived.reason);
  CHECK(archived.verdict == StoreLinkVerdict::Plain);
  CHECK(readFile(objects.path("program")) == plainLink(objects, {"main.o", "c.o", "libplain.a"}));

  // Found by the linker (-l), the archive cannot be swapped: the link ships as linked, and says why.
  const StoreLinkOutcome searched =
      link(store, objects, {"clang++-19", "-Oz", "-o", "program", "main.o", "c.o", "-L.", "-lab"});
  CHECK(searched.exitCode == 0);
  CHECK(searched.verdict == StoreLinkVerdict::Unverified);
  CHECK_THAT(searched.reason, Catch::Contains("libab.a") && Catch::Contains("found by the linker"));

  const StoreLinkOutcome plain = link(store, objects, {"clang++-19", "-Oz", "-o", "program", "a.o", "b.o", "c.o", "main.o"});
  CHECK(plain.verdict == StoreLinkVerdict::PlainInputs);
  CHECK(plain.listedInputs == 0);
  const StoreLinkOutcome failed = link(store, objects, {"clang++-19", "-Oz", "-o", "program", "b.o", "main.o"});
  CHECK(failed.verdict == StoreLinkVerdict::Failed);
  CHECK(failed.exitCode != 0);
}

TEST_CASE("store link: a link given in response files, nested ones too, is compared as the typed link is",
          "[launcher][store][clang]") {
  const DedupObjects objects;
  store::BuildStore store(objects.path("units.db"), store::StoreIdentity{"19", "space", "4"});
  teach(store, objects, "a");
  writeFileAtomically(objects.path("inputs.rsp"), "b.o c.o\n'main.o'\n");
  writeFileAtomically(objects.path("link.rsp"), "-Oz a.listed.o @inputs.rsp -o program\n");
  const StoreLinkOutcome outcome = link(store, objects, {"clang++-19", "@link.rsp"});
  INFO(outcome.reason);
  CHECK(outcome.exitCode == 0);
  CHECK(outcome.listedInputs == 1);
  CHECK(outcome.verdict == StoreLinkVerdict::Plain);  // a.listed.o grows the program, as typed out
  CHECK(readFile(objects.path("program")) == plainLink(objects, {"a.o", "b.o", "c.o", "main.o"}));

  // The output spelled -oFILE or --output=FILE is the same output.
  for (const char *output : {"-oprogram", "--output=program"}) {
    INFO(output);
    writeFileAtomically(objects.path("joined.rsp"), std::string("-Oz a.listed.o @inputs.rsp ") + output + "\n");
    const StoreLinkOutcome joined = link(store, objects, {"clang++-19", "@joined.rsp"});
    INFO(joined.reason);
    CHECK(joined.verdict == StoreLinkVerdict::Plain);
    CHECK(readFile(objects.path("program")) == plainLink(objects, {"a.o", "b.o", "c.o", "main.o"}));
  }

  // A response file that cannot be read fails the link as clang fails it.
  const StoreLinkOutcome missing = link(store, objects, {"clang++-19", "@missing.rsp", "-o", "program"});
  CHECK(missing.verdict != StoreLinkVerdict::Kept);
  CHECK(missing.verdict != StoreLinkVerdict::Plain);
}
