#pragma once
// `mlgo cc --store` at a link: what ships is never larger than the plain
// build's. The link runs as given, with a linker map. When some of its
// objects (or archive members) were compiled with one of the store's lists,
// the same link runs again with each such object at its recorded level
// (clang's own object, kept beside the store), and the output that is no
// larger in .text+.data (llvm-size's Berkeley text and data columns, what
// the store's choices minimize) is the one that ships. What each unit's sections contributed to the links goes
// into the store, so that later builds choose by what ships; a link found no
// larger is remembered, and its rebuild links once.
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace mlgo::store {
class BuildStore;
}

namespace mlgo::launcher {

class LinkBaseline;

enum class StoreLinkVerdict {
  Failed,        ///< the link itself failed: its exit code is the build's
  PlainInputs,   ///< no input carries a store's list: the link is the plain one
  Verified,      ///< the same link with the same inputs was found no larger before
  Kept,          ///< compared with the plain link and no larger: it ships
  Plain,         ///< the plain link was smaller: it ships instead
  Unverified,    ///< could not be compared (`reason` says why): the link ships as it is
};

struct StoreLinkOutcome {
  int exitCode = 0;  ///< the link's, as given
  StoreLinkVerdict verdict = StoreLinkVerdict::PlainInputs;
  std::string reason;          ///< for Unverified
  size_t listedInputs = 0;     ///< objects and members compiled with a store's list
  uint64_t linkedTextData = 0;  ///< the link as given, when compared
  uint64_t plainTextData = 0;   ///< the plain link, when compared
};

const char *storeLinkVerdictName(StoreLinkVerdict verdict);

/// Runs `command` (the compiler driver and its arguments; `compiler` the
/// executable) as a link writing `output`, then does what the header says.
/// The link's own diagnostics go to stderr as they come.
StoreLinkOutcome linkThroughStore(const std::vector<std::string> &command, const std::filesystem::path &compiler,
                                  const std::filesystem::path &output, store::BuildStore &store);

/// The same for any baseline (link_baseline.h): without a store, the cache
/// of plain objects of units mlgo cc compiled another way.
StoreLinkOutcome linkNeverLarger(const std::vector<std::string> &command, const std::filesystem::path &compiler,
                                 const std::filesystem::path &output, LinkBaseline &baseline);

/// An LTO link with a policy: `withPlugin` (the link as given, mlgo's pass
/// plugin loaded into lld's backends) runs, then `withoutPlugin` writing
/// into a scratch directory, and the smaller .text+.data ships as `output`
/// (Kept: the policy's; Plain: the link without it). The compiles' pre-link
/// pipelines ran with the policy either way: what differs is lld's
/// link-time inlining, where an LTO build does most of it.
StoreLinkOutcome linkLtoNeverLarger(const std::vector<std::string> &withPlugin,
                                    const std::vector<std::string> &withoutPlugin,
                                    const std::filesystem::path &compiler, const std::filesystem::path &output);

/// The log line of such a link.
nlohmann::json storeLinkRecord(const std::filesystem::path &output, const StoreLinkOutcome &outcome);

}  // namespace mlgo::launcher
