#pragma once
// The project the store's tests build through mlgo cc with make: eight C
// units of the test data (test/data/launcher/store/Makefile links them into
// a program and a library), and the options those builds give.
#include <filesystem>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "support/test_environment.h"

namespace mlgo::test {

/// The project's objects.
extern const std::set<std::string> kStoreUnits;

/// A copy of the store project in `directory`, its sources beside it (so a
/// test may change one).
std::filesystem::path storeProject(const std::filesystem::path &directory);

/// `make -jJOBS TARGETS` in the project with CC="mlgo cc OPTIONS clang-19"
/// (or CC=clang-19 with no options given as nullopt), `variables`
/// ("NAME=value") added to its environment.
CommandOutcome makeStoreProject(const std::filesystem::path &project,
                                const std::optional<std::vector<std::string>> &options, int jobs = 2,
                                const std::vector<std::string> &targets = {}, const std::string &flags = "-Oz",
                                const std::vector<std::string> &variables = {});

/// The gate's programs for the tests: one small C++ program, so that a
/// check takes a second.
std::string gatePrograms();

/// mlgo cc's options for a build through `store` (a file or a URI), logged
/// to `log`, exploring `explore` plain builds' worth when not 0.
std::vector<std::string> storeOptions(const std::string &store, const std::filesystem::path &log, size_t explore = 0);

}  // namespace mlgo::test
