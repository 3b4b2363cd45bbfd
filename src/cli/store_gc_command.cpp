// mlgo store-gc: bounds a project's store (mlgo cc --store) to a size. The
// recorded objects of trees other than each unit's latest go first, then the
// earlier versions of edited files, then the build's own units, least
// recently used first, each with its trials and recorded objects; the
// database is compacted after.
#include <cstdio>
#include <limits>
#include <memory>

#include <nlohmann/json.hpp>

#include "commands.h"
#include "mlgo/store/build_store.h"
#include "mlgo/support/byte_size.h"
#include "mlgo/support/errors.h"
#include "mlgo/support/exit_codes.h"

namespace mlgo::cli {

namespace {

struct StoreGcFlags {
  std::string store;
  std::string maxSize;
  bool dryRun = false;
  bool keepRecent = false;
  bool json = false;
};

int runStoreGc(const StoreGcFlags &flags) {
  const std::optional<uint64_t> maxBytes = parseByteSize(flags.maxSize);
  if (!maxBytes) throw UsageError("--max-size: expected a size such as 500000, 200K, 64M or 2G, got \"" + flags.maxSize + "\"");
  // A dry run only reads: the store keeps its bytes. A cleanup writes under
  // the store's own identity, whichever mlgo wrote it.
  std::unique_ptr<store::BuildStore> store = store::BuildStore::openExisting(flags.store);
  if (!flags.dryRun) store = std::make_unique<store::BuildStore>(flags.store, store->storedIdentity());
  const int64_t keepUsedSince =
      flags.keepRecent ? store::BuildStore::recentUseSince() : std::numeric_limits<int64_t>::max();
  const store::StoreCleanup cleanup =
      flags.dryRun ? store->cleanupPlan(*maxBytes, keepUsedSince) : store->cleanup(*maxBytes, keepUsedSince);
  if (flags.json) {
    const nlohmann::json out{{"format", "mlgo-store-gc"},
                             {"version", 1},
                             {"dry_run", flags.dryRun},
                             {"max_bytes", *maxBytes},
                             {"bytes_before", cleanup.bytesBefore},
                             {"bytes_after", cleanup.bytesAfter},
                             {"removed_objects", cleanup.removedObjects},
                             {"removed_units", cleanup.removedUnits},
                             {"removed_modules", cleanup.removedModules}};
    std::printf("%s\n", out.dump(2).c_str());
    return exit_code::kSuccess;
  }
  std::printf("%s: %s -> %s%s (bound %s); %zu recorded objects of other trees and %zu units %s\n",
              flags.store.c_str(), formatByteSize(cleanup.bytesBefore).c_str(),
              formatByteSize(cleanup.bytesAfter).c_str(), flags.dryRun ? ", estimated" : "",
              formatByteSize(*maxBytes).c_str(), cleanup.removedObjects.size(), cleanup.removedUnits.size(),
              flags.dryRun ? "would go" : "removed");
  for (size_t u = 0; u < cleanup.removedUnits.size(); ++u)
    std::printf("  %s  %s\n", cleanup.removedUnits[u].substr(0, 16).c_str(), cleanup.removedModules[u].c_str());
  return exit_code::kSuccess;
}

}  // namespace

void addStoreGcCommand(CLI::App *command, CommandRunner &runner) {
  auto flags = std::make_shared<StoreGcFlags>();
  command->add_option("--store", flags->store, "The store (an SQLite file or postgresql://... of mlgo cc --store)")->required();
  command->add_option("--max-size", flags->maxSize, "The bound: 500000, 200K, 64M, 2G (the database, its log and "
                                                    "the recorded objects)")->required();
  command->add_flag("--keep-recent", flags->keepRecent,
                    "Keep the units used in the last two hours, whatever the bound (a build may be running)");
  command->add_flag("--dry-run", flags->dryRun, "Say what would go; change nothing");
  command->add_flag("--json", flags->json, "Print JSON (machine-readable) instead of text");
  command->callback([flags, &runner] { runner = [flags] { return runStoreGc(*flags); }; });
}

}  // namespace mlgo::cli
