// The real mlgo binary, as scripts use it: exit codes, stdout/stderr, files.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <nlohmann/json.hpp>

#include "mlgo/support/atomic_file.h"
#include "mlgo/support/exit_codes.h"
#include "mlgo/support/output_directory.h"
#include "support/test_environment.h"

using namespace mlgo;
using Catch::Matchers::Contains;
namespace fs = std::filesystem;

namespace {
std::string compileCommands() { return (test::testProject() / "compile_commands.json").string(); }
}  // namespace

TEST_CASE("cli: version, help and usage errors", "[cli]") {
  CHECK(test::runMlgo({"--version"}).exitCode == exit_code::kSuccess);
  auto help = test::runMlgo({"--help"});
  CHECK(help.exitCode == exit_code::kSuccess);
  // Every user-facing subcommand of the table, the internal one hidden.
  for (const char *name : {"extract-ir", "combine-corpus", "eval", "default-trace", "explore", "trace-info",
                           "gen-vocab", "train-bc", "train-ppo", "train-es", "export", "serve", "autotune", "report",
                           "mllvm-options"})
    CHECK_THAT(help.out, Contains(std::string("  ") + name));
  CHECK_THAT(help.out, !Contains("compile-worker"));
  CHECK(test::runMlgo({}).exitCode == exit_code::kUsage);
  CHECK(test::runMlgo({"no-such-command"}).exitCode == exit_code::kUsage);
  CHECK(test::runMlgo({"eval", "--corpus", "x", "--inline", "sometimes"}).exitCode == exit_code::kUsage);
  CHECK(test::runMlgo({"extract-ir", "--output-dir", "x"}).exitCode == exit_code::kUsage);
}

TEST_CASE("cli: extract-ir then eval, with the JSON report", "[cli]") {
  test::ScratchDirectory scratch;
  const std::string corpus = (scratch / "corpus").string();
  auto extract = test::runMlgo({"extract-ir", "--input", compileCommands(), "--output-dir", corpus});
  REQUIRE(extract.exitCode == exit_code::kSuccess);
  CHECK_THAT(extract.out, Contains("7 modules extracted"));
  CHECK_THAT(extract.err, Contains("no_bitcode.o") && Contains("7 extracted, 1 skipped"));

  const std::string json = (scratch / "eval.json").string();
  auto eval = test::runMlgo({"eval", "--corpus", corpus, "--inline", "never", "--json", json, "--threads", "2"});
  REQUIRE(eval.exitCode == exit_code::kSuccess);
  CHECK_THAT(eval.out, Contains("helpers.o") && Contains("total (7 modules)"));
  auto report = nlohmann::json::parse(readFile(json));
  CHECK(report["modules"].size() == 7);
  CHECK(report["totals"]["failed"] == 0);
  CHECK(report["totals"]["change"]["text"].get<double>() > 0);
  CHECK(report["threads"] == 2);
  // Modules smaller and larger, and the worst: what the learners' table quotes, from the modules themselves.
  for (const char *size : {"text", "text+data", "ir_instructions"}) {
    INFO(size);
    const nlohmann::json &spread = report["totals"]["spread"][size];
    size_t smaller = 0, larger = 0;
    double worst = -1;
    std::string worstModule;
    for (const nlohmann::json &module : report["modules"]) {
      const std::string key = size == std::string("ir_instructions") ? "ir_instructions" : size;
      const double before = module["baseline"][key].get<double>(), after = module["candidate"][key].get<double>();
      smaller += after < before;
      larger += after > before;
      if (module["change"][key].get<double>() > worst) {
        worst = module["change"][key].get<double>();
        worstModule = module["name"];
      }
    }
    CHECK(spread["smaller"] == smaller);
    CHECK(spread["larger"] == larger);
    CHECK(spread["worst"]["module"] == worstModule);
    CHECK(spread["worst"]["change"].get<double>() == worst);
  }
  CHECK(report["totals"]["spread"]["text"]["larger"].get<size_t>() > 0);  // never inlining grows some
  CHECK_THAT(eval.out, Contains("text: ") && Contains(" larger, worst " +
                                                      report["totals"]["spread"]["text"]["worst"]["module"].get<std::string>()));
}

TEST_CASE("cli: extract-ir exit codes for bad input", "[cli][errors]") {
  test::ScratchDirectory scratch;
  writeFileAtomically(scratch / "broken.json", "[{");
  auto broken = test::runMlgo({"extract-ir", "--input", (scratch / "broken.json").string(), "--output-dir",
                         (scratch / "out").string()});
  CHECK(broken.exitCode == exit_code::kBadInput);
  CHECK_THAT(broken.err, Contains("broken.json") && Contains("not valid JSON"));

  writeFileAtomically(scratch / "none.json",
                      "[{\"directory\": \"" + test::testProject().string() +
                          "\", \"arguments\": [\"clang\", \"-c\", \"n.c\", \"-o\", \"no_bitcode.o\"]}]");
  auto nothing = test::runMlgo({"extract-ir", "--input", (scratch / "none.json").string(), "--output-dir",
                          (scratch / "out").string()});
  CHECK(nothing.exitCode == exit_code::kFailure);
  CHECK_THAT(nothing.err, Contains("nothing was extracted"));
  CHECK_FALSE(fs::exists(scratch / "out/corpus_description.json"));
}

TEST_CASE("cli: eval survives an injected crash and hang, reports them, exits 4", "[cli][containment]") {
  test::ScratchDirectory scratch;
  test::extractTestCorpus(scratch / "corpus");
  const std::string json = (scratch / "eval.json").string();
  auto eval = test::runMlgo({"eval", "--corpus", (scratch / "corpus").string(), "--json", json, "--timeout", "10",
                       "--inject-fault", "crash:helpers.o"});
  CHECK(eval.exitCode == exit_code::kPartialFailure);
  CHECK_THAT(eval.err, Contains("helpers.o") && Contains("crash"));
  auto report = nlohmann::json::parse(readFile(json));
  CHECK(report["totals"]["failed"] == 1);
  CHECK(report["totals"]["compared"] == 6);

  auto hang = test::runMlgo({"eval", "--corpus", (scratch / "corpus").string(), "--timeout", "2", "--inject-fault",
                       "hang:shapes.o"});
  CHECK(hang.exitCode == exit_code::kPartialFailure);
  CHECK_THAT(hang.out, Contains("shapes.o") && Contains("timeout"));
}

TEST_CASE("cli: eval exit codes for bad input", "[cli][errors]") {
  test::ScratchDirectory scratch;
  auto missing = test::runMlgo({"eval", "--corpus", (scratch / "nothing-here").string()});
  CHECK(missing.exitCode == exit_code::kBadInput);
  CHECK_THAT(missing.err, Contains("nothing-here"));
  test::extractTestCorpus(scratch / "corpus");
  auto pipeline = test::runMlgo({"eval", "--corpus", (scratch / "corpus").string(), "--passes", "no-such-pass"});
  CHECK(pipeline.exitCode == exit_code::kUsage);
  CHECK_THAT(pipeline.err, Contains("no-such-pass"));
  auto fault = test::runMlgo({"eval", "--corpus", (scratch / "corpus").string(), "--inject-fault", "explode"});
  CHECK(fault.exitCode == exit_code::kUsage);
}

TEST_CASE("cli: bad values and bad inputs exit 2 or 3 with the file named", "[cli][errors]") {
  test::ScratchDirectory scratch;
  auto missingInput = test::runMlgo({"extract-ir", "--input", (scratch / "absent.json").string(), "--output-dir",
                               (scratch / "out").string()});
  CHECK(missingInput.exitCode == exit_code::kBadInput);
  CHECK_THAT(missingInput.err, Contains("absent.json"));
  auto missingRoot = test::runMlgo({"combine-corpus", "--root", (scratch / "absent").string()});
  CHECK(missingRoot.exitCode == exit_code::kBadInput);
  CHECK_FALSE(fs::exists(scratch / "absent"));

  // Negative counts are refused, not wrapped around to huge ones.
  for (const std::vector<std::string> &args :
       {std::vector<std::string>{"autotune", "--corpus", "c", "--output", "o", "--budget", "-5"},
        {"autotune", "--corpus", "c", "--output", "o", "--budget", "1"},
        {"autotune", "--corpus", "c", "--output", "o", "--gate-fallbacks", "-1"},
        {"eval", "--corpus", "c", "--threads", "-1"},
        {"default-trace", "--corpus", "c", "--output", "o", "--shards", "-3"}}) {
    auto outcome = test::runMlgo(args);
    INFO(outcome.err);
    CHECK(outcome.exitCode == exit_code::kUsage);
  }

  // A search space naming a pass LLVM does not know.
  writeFileAtomically(scratch / "passes.txt", "include\tfunction\tsroa-typo\tmistyped\n");
  auto passes = test::runMlgo({"autotune", "--list-passes", "--passes-file", (scratch / "passes.txt").string()});
  CHECK(passes.exitCode == exit_code::kBadInput);
  CHECK_THAT(passes.err, Contains("passes.txt") && Contains("line 1") && Contains("sroa-typo"));

  // A number out of range in a JSON input.
  writeFileAtomically(scratch / "bc.json", R"({"learning_rate": 1e400})");
  auto huge = test::runMlgo({"train-bc", "--trace", "t", "--vocab", "v", "--output", (scratch / "bc").string(),
                       "--config", (scratch / "bc.json").string()});
  CHECK(huge.exitCode == exit_code::kBadInput);
  CHECK_THAT(huge.err, Contains("bc.json") && Contains("learning_rate"));
  CHECK_FALSE(fs::exists(scratch / "bc"));
}

TEST_CASE("cli: a corpus recording -mllvm options that write files writes nothing", "[cli][security]") {
  test::ScratchDirectory scratch;
  Corpus extracted = test::extractTestCorpus(scratch / "corpus");
  const fs::path dumps = scratch / "dumps";
  fs::create_directories(dumps);
  writeFileAtomically(scratch / "info.txt", "kept\n");
  // Every module records the same options, so they would be the set applied
  // to the process.
  std::vector<std::string> names;
  for (const CorpusModule &module : extracted.modules) {
    std::vector<std::string> commandLine = module.commandLine;
    commandLine.insert(commandLine.end(), {"-mllvm", "-print-after-all", "-mllvm",
                                           "-ir-dump-directory=" + dumps.string(), "-mllvm", "-time-passes", "-mllvm",
                                           "-info-output-file=" + (scratch / "info.txt").string()});
    test::writeModule(scratch / "hostile", module.name, readFile(module.bitcodePath), commandLine);
    names.push_back(module.name);
  }
  writeCorpusDescription(scratch / "hostile", names, false);
  auto eval = test::runMlgo({"eval", "--corpus", (scratch / "hostile").string(), "--inline", "never"});
  CHECK(eval.exitCode == exit_code::kFailure);
  CHECK_THAT(eval.err, Contains("-print-after-all") && Contains("mllvm-options"));
  CHECK(fs::is_empty(dumps));
  CHECK(readFile(scratch / "info.txt") == "kept\n");

  auto allowList = test::runMlgo({"mllvm-options"});
  CHECK(allowList.exitCode == exit_code::kSuccess);
  CHECK_THAT(allowList.out, Contains("-inline-*") && Contains("-x86-*"));
  CHECK_THAT(allowList.out, !Contains("print-after-all"));
}

TEST_CASE("cli: one writer per output directory, and no mixed runs", "[cli][output]") {
  test::ScratchDirectory scratch;
  test::extractTestCorpus(scratch / "corpus");
  const std::string corpus = (scratch / "corpus").string();
  const fs::path trace = scratch / "trace";
  {
    OutputDirectoryLock holder = OutputDirectoryLock::claim(trace, "default-trace", ExistingOutput::Keep);
    auto busy = test::runMlgo({"default-trace", "--corpus", corpus, "--output", trace.string()});
    CHECK(busy.exitCode == exit_code::kOutputInUse);
    CHECK_THAT(busy.err, Contains(trace.string()) && Contains("default-trace") &&
                             Contains("pid " + std::to_string(::getpid())));
    auto busyExtract = test::runMlgo({"extract-ir", "--input", compileCommands(), "--output-dir", trace.string()});
    CHECK(busyExtract.exitCode == exit_code::kOutputInUse);
  }
  REQUIRE(test::runMlgo({"default-trace", "--corpus", corpus, "--output", trace.string(), "--shards", "3"}).exitCode ==
          exit_code::kSuccess);
  // A second run into the same trace would mix shards of two runs.
  auto again = test::runMlgo({"default-trace", "--corpus", corpus, "--output", trace.string(), "--shards", "2"});
  CHECK(again.exitCode == exit_code::kUsage);
  CHECK_THAT(again.err, Contains("--force"));
  auto forced =
      test::runMlgo({"default-trace", "--corpus", corpus, "--output", trace.string(), "--shards", "2", "--force"});
  CHECK(forced.exitCode == exit_code::kSuccess);
  size_t shards = 0;
  for (const auto &entry : fs::directory_iterator(trace))
    if (entry.path().extension() == ".mlgotrace") ++shards;
  CHECK(shards == 2);
  // A file no default-trace writes: --force refuses the directory and keeps it.
  writeFileAtomically(trace / "thesis.txt", "mine");
  auto foreign =
      test::runMlgo({"default-trace", "--corpus", corpus, "--output", trace.string(), "--shards", "2", "--force"});
  CHECK(foreign.exitCode == exit_code::kUsage);
  CHECK_THAT(foreign.err, Contains("thesis.txt") && Contains("nothing was removed"));
  CHECK(readFile(trace / "thesis.txt") == "mine");
  CHECK(fs::exists(trace / "trace_description.json"));
  fs::remove(trace / "thesis.txt");
  auto vocab = test::runMlgo({"gen-vocab", "--trace", trace.string(), "--output-dir", (scratch / "vocab").string()});
  CHECK(vocab.exitCode == exit_code::kSuccess);
}

TEST_CASE("cli: train-bc --force replaces its own earlier run and nothing else, not even in the working directory",
          "[cli][training][output]") {
  test::TracedTestCorpus traced;
  auto trainBC = [&](const fs::path &output) {
    return test::runMlgo({"train-bc", "--trace", (traced / "trace").string(), "--vocab", (traced / "vocab").string(),
                          "--output", output.string(), "--set", "iterations=20", "--set", "report_every=10",
                          "--set", "checkpoint_every=10", "--force"});
  };
  REQUIRE(trainBC(traced / "bc").exitCode == exit_code::kSuccess);
  REQUIRE(trainBC(traced / "bc").exitCode == exit_code::kSuccess);  // its own files: replaced
  writeFileAtomically(traced / "bc/thesis.txt", "mine");
  fs::create_directories(traced / "bc/notes");
  const auto refused = trainBC(traced / "bc");
  CHECK(refused.exitCode == exit_code::kUsage);
  CHECK(readFile(traced / "bc/thesis.txt") == "mine");
  CHECK(fs::exists(traced / "bc/notes"));
  CHECK(fs::exists(traced / "bc/policy/policy.json"));
  // --output . in a directory holding a project: refused, nothing removed.
  const std::string command = "cd '" + traced.scratch.path().string() + "' && '" + test::mlgoBinary() +
                              "' train-bc --trace trace --vocab vocab --output . --force --set iterations=20";
  const auto here = test::runProgram("/bin/sh", {"-c", command});
  CHECK(here.exitCode == exit_code::kUsage);
  CHECK(fs::exists(traced / "corpus/corpus_description.json"));
  CHECK(fs::exists(traced / "bc/thesis.txt"));
}

TEST_CASE("cli: eval with --cache-dir reuses every compile of an identical run, same results", "[cli][memo]") {
  test::ScratchDirectory scratch;
  test::extractTestCorpus(scratch / "corpus");
  const std::string corpus = (scratch / "corpus").string(), cache = (scratch / "cache").string();
  auto run = [&](const std::string &json, std::vector<std::string> extra) {
    std::vector<std::string> args{"eval", "--corpus", corpus, "--inline", "never", "--json", json};
    args.insert(args.end(), extra.begin(), extra.end());
    return test::runMlgo(args);
  };
  auto plain = run((scratch / "plain.json").string(), {"--no-memo"});
  auto first = run((scratch / "first.json").string(), {"--cache-dir", cache});
  auto second = run((scratch / "second.json").string(), {"--cache-dir", cache, "--verify-cache", "2"});
  REQUIRE(plain.exitCode == exit_code::kSuccess);
  REQUIRE(first.exitCode == exit_code::kSuccess);
  REQUIRE(second.exitCode == exit_code::kSuccess);
  CHECK_THAT(second.err, Contains("memo: 14 of 14 compiles reused"));
  auto sizes = [](const std::string &file) {
    nlohmann::json report = nlohmann::json::parse(readFile(file));
    for (auto &module : report["modules"]) {
      module["baseline"].erase("seconds");
      module["candidate"].erase("seconds");
    }
    return nlohmann::json{report["modules"], report["totals"]};
  };
  CHECK(sizes((scratch / "first.json").string()) == sizes((scratch / "plain.json").string()));
  CHECK(sizes((scratch / "second.json").string()) == sizes((scratch / "plain.json").string()));
  CHECK(nlohmann::json::parse(readFile(scratch / "second.json"))["memo"]["disk_hits"] == 14);
  CHECK(run((scratch / "x.json").string(), {"--no-memo", "--cache-dir", cache}).exitCode == exit_code::kUsage);
}

TEST_CASE("cli: train-bc --warmstart fine-tunes a policy, and a network of another shape exits 2", "[cli][training]") {
  test::TracedTestCorpus traced;
  auto trainBC = [&](const std::string &output, std::vector<std::string> extra) {
    std::vector<std::string> arguments{"train-bc", "--trace", (traced / "trace").string(), "--output",
                                       (traced / output).string(), "--set", "iterations=50", "--set",
                                       "report_every=50"};
    arguments.insert(arguments.end(), extra.begin(), extra.end());
    return test::runMlgo(arguments);
  };
  REQUIRE(trainBC("start", {"--vocab", (traced / "vocab").string()}).exitCode == exit_code::kSuccess);
  // No --vocab: the start's preprocessing is the network's input.
  const auto tuned = trainBC("tuned", {"--warmstart", (traced / "start").string()});
  CHECK(tuned.exitCode == exit_code::kSuccess);
  const auto model = nlohmann::json::parse(readFile(traced / "tuned/policy/policy.json"));
  CHECK(model["training"]["warmstart"] == (traced / "start").string());

  const auto otherShape = trainBC("x", {"--warmstart", (traced / "start").string(), "--set", "hidden_layers=[8]"});
  CHECK(otherShape.exitCode == exit_code::kUsage);
  CHECK_THAT(otherShape.err, Contains("hidden_layers") && Contains("[8]"));
  CHECK_FALSE(fs::exists(traced / "x/policy"));
}

TEST_CASE("cli: counts and seconds out of range are usage errors, before anything is written", "[cli][errors]") {
  test::TracedTestCorpus traced;
  const std::string corpus = (traced / "corpus").string();
  auto usage = [](const std::vector<std::string> &args, const std::string &named) {
    const auto outcome = test::runMlgo(args);
    INFO(outcome.err);
    CHECK(outcome.exitCode == exit_code::kUsage);
    CHECK_THAT(outcome.err, Contains(named));
  };
  for (const char *seconds : {"nan", "inf", "-1"})
    usage({"eval", "--corpus", corpus, "--timeout", seconds}, "--timeout");
  usage({"--rank-timeout", "nan", "eval", "--corpus", corpus}, "--rank-timeout");
  usage({"--rank-timeout", "0", "eval", "--corpus", corpus}, "--rank-timeout");
  usage({"default-trace", "--corpus", corpus, "--output", (traced / "t").string(), "--shards", "4294967295"},
        "at most 1024");
  CHECK_FALSE(fs::exists(traced / "t"));
  usage({"gen-vocab", "--trace", (traced / "trace").string(), "--output-dir", (traced / "v").string(),
         "--num-buckets", "4294967295"},
        "at most 100000");
  usage({"sweep-passes", "--corpus", corpus, "--lists", (traced / "l.txt").string(), "--output",
         (traced / "s").string(), "--resume", "--force"},
        "--force");
}

TEST_CASE("cli: trace-info on a truncated shard exits 3 and says why on stderr", "[cli][errors]") {
  test::TracedTestCorpus traced;
  std::string shard;
  size_t largest = 0;
  for (const auto &entry : fs::directory_iterator(traced / "trace"))
    if (entry.path().extension() == ".mlgotrace" && fs::file_size(entry.path()) > largest) {
      largest = fs::file_size(entry.path());
      shard = entry.path().string();
    }
  REQUIRE(largest > 10);
  fs::resize_file(shard, largest / 2);
  const auto info = test::runMlgo({"trace-info", (traced / "trace").string()});
  CHECK(info.exitCode == exit_code::kBadInput);
  CHECK_THAT(info.err, Contains(fs::path(shard).filename().string()));
}

TEST_CASE("cli: a file where a directory belongs is exit 3 naming the path, not a raw file system error",
          "[cli][errors]") {
  test::ScratchDirectory scratch;
  test::extractTestCorpus(scratch / "corpus");
  writeFileAtomically(scratch / "a-file", "not a directory");
  const auto eval = test::runMlgo({"eval", "--corpus", (scratch / "corpus").string(), "--cache-dir",
                                   (scratch / "a-file" / "cache").string()});
  CHECK(eval.exitCode == exit_code::kBadInput);
  CHECK_THAT(eval.err, Contains((scratch / "a-file").string()));
  CHECK(eval.err.find("filesystem error") == std::string::npos);
}

TEST_CASE("cli: a loop of symbolic links given as an input is exit 3 naming the path", "[cli][errors]") {
  test::ScratchDirectory scratch;
  fs::create_symlink(scratch / "loop", scratch / "loop");
  const std::string loop = (scratch / "loop").string();
  for (const std::vector<std::string> &args :
       {std::vector<std::string>{"trace-info", loop}, {"eval", "--corpus", loop}, {"compare-runs", loop, loop}}) {
    INFO(args.front());
    const auto outcome = test::runMlgo(args);
    CHECK(outcome.exitCode == exit_code::kBadInput);
    CHECK_THAT(outcome.err, Contains(loop + ": ") && Contains("symbolic links"));
  }
}
