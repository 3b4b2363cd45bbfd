#include "mlgo/launcher/store_link.h"

#include <cerrno>
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <map>
#include <optional>
#include <set>

#include <sys/wait.h>
#include <spawn.h>
#include <unistd.h>

#include <llvm/Object/Archive.h>
#include <llvm/Object/ArchiveWriter.h>
#include <llvm/Support/Error.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/Program.h>
#include <spdlog/spdlog.h>

#include "mlgo/store/build_store.h"
#include "mlgo/launcher/link_baseline.h"
#include "mlgo/driver/compile_memo.h"
#include "mlgo/driver/object_sizes.h"
#include "mlgo/launcher/compile_plan.h"
#include "mlgo/launcher/link_map.h"
#include "mlgo/support/atomic_file.h"
#include "mlgo/support/subprocess.h"
#include "mlgo/support/temporary_directory.h"

namespace mlgo::launcher {

namespace fs = std::filesystem;

namespace {

constexpr const char *kMapOption = "-Wl,-Map=";

/// A file the link command names: a plain object or an archive, with the
/// objects of it the store knows (by member name for an archive; a name
/// that several members share is left out: a map cannot tell them apart).
struct LinkInput {
  size_t argument = 0;  ///< its index in the command
  fs::path path;        ///< as the command names it, from the link's directory
  bool archive = false;
  std::map<std::string, store::ObjectOrigin> known;  ///< member name ("" for a plain object) -> origin
  std::string contentHash;                   ///< of the whole file
  bool listed() const {
    for (const auto &[member, object] : known)
      if (!object.pipeline.empty()) return true;
    return false;
  }
};

bool startsWith(const std::string &text, const char *prefix) { return text.rfind(prefix, 0) == 0; }

/// The link's arguments as clang reads them: response files expanded
/// (nested ones too) and the output spelled `-o FILE`, however the command
/// spells it (`-oFILE`, `--output=FILE`, `--output FILE`), so that inputs are
/// found and the plain link can swap them and its output. `problem` says why
/// when a response file cannot be read (the command is then as given).
std::vector<std::string> linkArguments(const std::vector<std::string> &given, const fs::path &output,
                                       std::string &problem) {
  std::string unreadable;
  std::vector<std::string> expanded = expandResponseFiles(given, unreadable);
  if (!unreadable.empty()) {
    problem = "a response file: " + unreadable;
    return given;
  }
  std::vector<std::string> arguments;
  for (size_t i = 0; i < expanded.size(); ++i) {
    const std::string &arg = expanded[i];
    if (i > 0 && (arg == "-o" + output.string() || arg == "--output=" + output.string())) {
      arguments.insert(arguments.end(), {"-o", output.string()});
    } else if (i > 0 && arg == "--output" && i + 1 < expanded.size()) {
      arguments.insert(arguments.end(), {"-o", expanded[++i]});
    } else {
      arguments.push_back(arg);
    }
  }
  return arguments;
}

/// Writes `text` as one argument of a GNU-style response file: every
/// character the tokenizer treats specially is escaped with a backslash.
std::string responseFileWord(const std::string &text) {
  if (text.empty()) return "\"\"";
  std::string word;
  for (char c : text) {
    if (c != '\0' && std::strchr(" \t\n\r\v\f'\"\\", c)) word += '\\';
    word += c;
  }
  return word;
}

/// `command`, or the compiler given its arguments in a response file
/// `file` when they are too long for one command line (an expanded link of
/// thousands of objects).
std::vector<std::string> fittingCommand(const std::vector<std::string> &command, const fs::path &file) {
  std::vector<llvm::StringRef> arguments(command.begin() + 1, command.end());
  if (llvm::sys::commandLineFitsWithinSystemLimits(command.front(), arguments)) return command;
  std::string words;
  for (size_t i = 1; i < command.size(); ++i) words += responseFileWord(command[i]) + "\n";
  writeFileAtomically(file, words);
  return {command.front(), "@" + file.string()};
}

std::optional<store::ObjectOrigin> knownObject(const LinkBaseline &store, llvm::StringRef bytes) {
  return store.objectOrigin(CompileMemo::hash(std::string_view(bytes.data(), bytes.size())));
}

/// The members of a (regular) archive, in order; empty with `error` set when
/// it cannot be read or is thin.
std::vector<std::pair<std::string, llvm::StringRef>> archiveMembers(const llvm::object::Archive &archive,
                                                                    std::string &error) {
  std::vector<std::pair<std::string, llvm::StringRef>> members;
  if (archive.isThin()) {
    error = "a thin archive";
    return {};
  }
  llvm::Error failed = llvm::Error::success();
  for (const llvm::object::Archive::Child &child : archive.children(failed)) {
    llvm::Expected<llvm::StringRef> name = child.getName();
    llvm::Expected<llvm::StringRef> buffer = child.getBuffer();
    if (!name || !buffer) {
      if (!name) error = llvm::toString(name.takeError());
      if (!buffer) error = llvm::toString(buffer.takeError());
      llvm::consumeError(std::move(failed));
      return {};
    }
    members.emplace_back(name->str(), *buffer);
  }
  if (failed) {
    error = llvm::toString(std::move(failed));
    return {};
  }
  return members;
}

std::unique_ptr<llvm::object::Archive> openArchive(const llvm::MemoryBuffer &buffer, std::string &error) {
  llvm::Expected<std::unique_ptr<llvm::object::Archive>> archive =
      llvm::object::Archive::create(buffer.getMemBufferRef());
  if (!archive) {
    error = llvm::toString(archive.takeError());
    return nullptr;
  }
  return std::move(*archive);
}

/// `path` as a link input, when it is an ELF object or an archive: with the
/// objects of it that the store knows. `problem` says why a link with it
/// cannot be compared with its plain one, when it cannot.
std::optional<LinkInput> scanFile(const std::string &path, size_t argument, const LinkBaseline &store,
                                  std::string &problem) {
  std::error_code error;
  if (!fs::is_regular_file(path, error)) return std::nullopt;
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer = llvm::MemoryBuffer::getFile(path);
  if (!buffer) return std::nullopt;
  const llvm::StringRef bytes = (*buffer)->getBuffer();
  LinkInput input{argument, path, bytes.starts_with("!<arch>\n") || bytes.starts_with("!<thin>\n"), {},
                  CompileMemo::hash(std::string_view(bytes.data(), bytes.size()))};
  if (!input.archive) {
    if (!bytes.starts_with("\x7f" "ELF")) return std::nullopt;
    if (std::optional<store::ObjectOrigin> known = knownObject(store, bytes)) input.known[""] = std::move(*known);
    return input;
  }
  std::string unreadable;
  std::unique_ptr<llvm::object::Archive> archive = openArchive(**buffer, unreadable);
  std::vector<std::pair<std::string, llvm::StringRef>> members;
  if (archive) members = archiveMembers(*archive, unreadable);
  if (!unreadable.empty()) {
    problem = path + ": " + unreadable;
    return std::nullopt;
  }
  std::map<std::string, size_t> named;
  for (const auto &[name, memberBytes] : members) ++named[name];
  for (const auto &[name, memberBytes] : members)
    if (std::optional<store::ObjectOrigin> known = knownObject(store, memberBytes)) {
      if (named[name] > 1 && !known->pipeline.empty()) problem = path + ": several members named " + name;
      if (named[name] == 1) input.known[name] = std::move(*known);
    }
  return input;
}

/// The link's input files: every argument that names an ELF object or an
/// archive (the output and options left out).
std::vector<LinkInput> scanInputs(const std::vector<std::string> &command, const LinkBaseline &store,
                                  std::string &problem) {
  std::vector<LinkInput> inputs;
  for (size_t i = 1; i < command.size(); ++i) {
    if (command[i] == "-o") {
      ++i;  // the output, from an earlier build
      continue;
    }
    if (command[i].empty() || command[i][0] == '-') continue;
    if (std::optional<LinkInput> input = scanFile(command[i], i, store, problem)) inputs.push_back(std::move(*input));
  }
  return inputs;
}

/// Whether `path` starts as an archive does (read without mapping the file:
/// the linker also finds large shared libraries by itself).
bool isArchive(const std::string &path) {
  char magic[8] = {};
  std::FILE *file = std::fopen(path.c_str(), "rb");
  if (!file) return false;
  const size_t read = std::fread(magic, 1, sizeof magic, file);
  std::fclose(file);
  const std::string_view start(magic, read);
  return start == "!<arch>\n" || start == "!<thin>\n";
}

/// An archive the link found by itself (-lNAME with -L) that holds objects
/// compiled with a list: the plain link cannot swap them, so the link is not
/// compared. "" when there is none.
std::string listedArchiveFoundByLinker(const std::vector<KeptSection> &sections, const std::vector<LinkInput> &inputs,
                                       const LinkBaseline &store) {
  std::set<std::string> named, seen;
  for (const LinkInput &input : inputs) named.insert(input.path.lexically_normal().string());
  for (const KeptSection &section : sections) {
    const std::string container = fs::path(splitArchiveMember(section.file).first).lexically_normal().string();
    if (named.count(container) || !seen.insert(container).second || !isArchive(container)) continue;
    std::string problem;
    const std::optional<LinkInput> found = scanFile(container, 0, store, problem);
    if (found && found->archive && found->listed()) return container;
  }
  return "";
}

/// `archive` as it is, with each member the store knows compiled with a list
/// replaced by its unit's object at the recorded level.
void writePlainArchive(const LinkInput &input, const LinkBaseline &store, const fs::path &target) {
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer = llvm::MemoryBuffer::getFile(input.path.string());
  if (!buffer) throw std::runtime_error(input.path.string() + ": " + buffer.getError().message());
  std::string error;
  std::unique_ptr<llvm::object::Archive> archive = openArchive(**buffer, error);
  if (!archive) throw std::runtime_error(input.path.string() + ": " + error);
  const std::vector<std::pair<std::string, llvm::StringRef>> members = archiveMembers(*archive, error);
  if (!error.empty()) throw std::runtime_error(input.path.string() + ": " + error);
  std::vector<std::string> contents;  // the new members' bytes, alive until written
  contents.reserve(members.size());
  std::vector<llvm::NewArchiveMember> rewritten;
  for (const auto &[name, bytes] : members) {
    auto known = input.known.find(name);
    if (known != input.known.end() && !known->second.pipeline.empty())
      contents.push_back(readFile(store.plainObjectPath(known->second.plain)));
    else
      contents.push_back(bytes.str());
  }
  for (size_t m = 0; m < members.size(); ++m) {
    llvm::NewArchiveMember member(llvm::MemoryBufferRef(contents[m], members[m].first));
    member.MemberName = members[m].first;
    rewritten.push_back(std::move(member));
  }
  if (llvm::Error failed = llvm::writeArchive(target.string(), rewritten, llvm::SymtabWritingMode::NormalSymtab,
                                              archive->kind(), /*Deterministic=*/true, /*Thin=*/false))
    throw std::runtime_error(target.string() + ": " + llvm::toString(std::move(failed)));
}

/// Runs the link with the build's own stdin, stdout and stderr; its exit code.
/// posix_spawn, not fork: copying the page tables of a process that maps
/// LLVM and clang cost a link a few milliseconds.
int runLink(const std::vector<std::string> &command, const fs::path &compiler) {
  std::vector<char *> argv;
  for (const std::string &arg : command) argv.push_back(const_cast<char *>(arg.c_str()));
  argv.push_back(nullptr);
  spdlog::default_logger()->flush();
  pid_t child = 0;
  if (const int error = ::posix_spawn(&child, compiler.c_str(), nullptr, nullptr, argv.data(), environ))
    throw std::runtime_error("cannot start the link (" + compiler.string() + "): " + std::strerror(error));
  int status = 0;
  while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  return 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

/// What the link's map says each unit's sections (of its objects the store
/// knows) put into the output.
std::map<std::pair<std::string, std::string>, SectionSizes> attribute(const std::vector<KeptSection> &sections,
                                                                      const std::vector<LinkInput> &inputs) {
  std::map<std::string, const LinkInput *> byPath;
  for (const LinkInput &input : inputs) byPath[input.path.lexically_normal().string()] = &input;
  std::map<std::pair<std::string, std::string>, SectionSizes> kept;
  for (const KeptSection &section : sections) {
    if (section.kind == SectionKind::NotLoaded) continue;
    const auto [container, member] = splitArchiveMember(section.file);
    auto input = byPath.find(fs::path(container).lexically_normal().string());
    if (input == byPath.end()) continue;
    auto known = input->second->known.find(member);
    if (known == input->second->known.end()) continue;
    addKeptSection(kept[{known->second.unit, known->second.pipeline}], section);
  }
  return kept;
}

SectionSizes linkedSizes(const fs::path &file) {
  SectionSizes sizes;
  std::string error;
  if (!measureObjectSizes(readFile(file), sizes, error)) throw std::runtime_error(file.string() + ": " + error);
  return sizes;
}

/// The link's identity for the store: its directory, its arguments and the
/// contents of its inputs.
std::string linkKey(const std::vector<std::string> &command, const std::vector<LinkInput> &inputs) {
  std::string key = fs::current_path().string();
  for (size_t i = 1; i < command.size(); ++i)
    if (!startsWith(command[i], kMapOption)) key += '\0' + command[i];
  for (const LinkInput &input : inputs) key += '\n' + input.contentHash;
  return CompileMemo::hash(key);
}

/// The map the link writes: the one the command asks for (mlgo cc
/// --link-maps, or the user's), or one of ours added to it.
fs::path mapOf(std::vector<std::string> &command, const fs::path &scratch) {
  for (const std::string &arg : command)
    if (startsWith(arg, kMapOption)) return arg.substr(std::strlen(kMapOption));
  command.push_back(kMapOption + (scratch / "link.map").string());
  return scratch / "link.map";
}

/// The same link with every input compiled with a list at its recorded
/// level, writing into `scratch`; `inputs` become the plain link's.
std::vector<std::string> plainCommand(std::vector<std::string> command, std::vector<LinkInput> &inputs,
                                      const LinkBaseline &store, const fs::path &scratch) {
  size_t archives = 0;
  for (LinkInput &input : inputs) {
    if (!input.listed()) continue;
    if (input.archive) {
      const fs::path rewritten = scratch / std::to_string(archives++) / input.path.filename();
      fs::create_directories(rewritten.parent_path());
      writePlainArchive(input, store, rewritten);
      input.path = rewritten;
    } else {
      input.path = store.plainObjectPath(input.known.at("").plain);
    }
    command[input.argument] = input.path.string();
    for (auto &[member, object] : input.known) object.pipeline.clear();
  }
  for (size_t i = 1; i < command.size(); ++i) {
    if (command[i] == "-o" && i + 1 < command.size()) command[i + 1] = (scratch / "plain.out").string();
    if (startsWith(command[i], kMapOption)) command[i] = kMapOption + (scratch / "plain.map").string();
  }
  return command;
}

/// What a link tells the store: the listed units' kept bytes from the link
/// as given, the recorded level's from the plain one.
void recordKept(LinkBaseline &store, const std::map<std::pair<std::string, std::string>, SectionSizes> &given,
                const std::map<std::pair<std::string, std::string>, SectionSizes> &plain) {
  std::vector<store::KeptByLinker> kept;
  for (const auto &[unitAndList, sizes] : given)
    if (!unitAndList.second.empty()) kept.push_back({unitAndList.first, unitAndList.second, sizes});
  for (const auto &[unitAndList, sizes] : plain)
    if (unitAndList.second.empty()) kept.push_back({unitAndList.first, "", sizes});
  if (!kept.empty()) store.recordKept(kept);
}

/// Replaces `target` by `replacement`'s bytes (and mode), atomically.
void replaceFile(const fs::path &replacement, const fs::path &target) {
  const fs::path temporary = target.string() + ".mlgo-plain";
  fs::copy_file(replacement, temporary, fs::copy_options::overwrite_existing);
  fs::rename(temporary, target);
}

std::vector<KeptSection> readMap(const fs::path &map) { return parseLinkMap(readFile(map), map.string()); }

/// The link as given has objects of the store's lists: it runs again
/// plainly, and the smaller output ships. Throws what stops the comparison.
void compareWithPlainLink(const std::vector<std::string> &command, const fs::path &compiler, const fs::path &output,
                          const fs::path &map, const std::vector<LinkInput> &inputs, LinkBaseline &store,
                          const fs::path &scratch, StoreLinkOutcome &outcome) {
  std::vector<LinkInput> plainInputs = inputs;
  std::vector<std::string> plain = plainCommand(command, plainInputs, store, scratch);
  plain.front() = compiler.string();
  const ProcessOutcome plainLink =
      runProcess(fittingCommand(plain, scratch / "plain.rsp"), std::chrono::milliseconds(0));
  if (!plainLink.succeeded()) throw std::runtime_error("the plain link failed: " + plainLink.stderrText.substr(0, 200));
  outcome.linkedTextData = linkedSizes(output).textPlusData();
  outcome.plainTextData = linkedSizes(scratch / "plain.out").textPlusData();
  recordKept(store, attribute(readMap(map), inputs), attribute(readMap(scratch / "plain.map"), plainInputs));
  if (outcome.linkedTextData <= outcome.plainTextData) {
    outcome.verdict = StoreLinkVerdict::Kept;
    store.recordVerifiedLink(linkKey(command, inputs));
    return;
  }
  replaceFile(scratch / "plain.out", output);
  if (map.parent_path() != scratch) replaceFile(scratch / "plain.map", map);
  outcome.verdict = StoreLinkVerdict::Plain;
}

/// Why the link cannot be compared with its plain one; "" when it can.
std::string incomparable(const std::vector<std::string> &command, const std::vector<LinkInput> &inputs,
                         const std::vector<KeptSection> &sections, const LinkBaseline &store) {
  if (std::find(command.begin(), command.end(), "-o") == command.end()) return "the command names no output with -o";
  for (const LinkInput &input : inputs)
    for (const auto &[member, object] : input.known)
      if (!object.pipeline.empty() && !fs::is_regular_file(store.plainObjectPath(object.plain)))
        return "no recorded-level object of unit " + object.unit;
  if (const std::string archive = listedArchiveFoundByLinker(sections, inputs, store); !archive.empty())
    return archive + " (found by the linker, not named on the command line) holds objects of the store's lists";
  return "";
}

}  // namespace

const char *storeLinkVerdictName(StoreLinkVerdict verdict) {
  switch (verdict) {
    case StoreLinkVerdict::Failed: return "failed";
    case StoreLinkVerdict::PlainInputs: return "plain-inputs";
    case StoreLinkVerdict::Verified: return "verified";
    case StoreLinkVerdict::Kept: return "kept";
    case StoreLinkVerdict::Plain: return "plain";
    case StoreLinkVerdict::Unverified: return "unverified";
  }
  return "unknown";
}

StoreLinkOutcome linkThroughStore(const std::vector<std::string> &command, const fs::path &compiler,
                                  const fs::path &output, store::BuildStore &store) {
  StoreBaseline baseline(store);
  return linkNeverLarger(command, compiler, output, baseline);
}

StoreLinkOutcome linkNeverLarger(const std::vector<std::string> &givenCommand, const fs::path &compiler,
                                 const fs::path &output, LinkBaseline &store) {
  StoreLinkOutcome outcome;
  std::string problem;
  const std::vector<std::string> arguments = linkArguments(givenCommand, output, problem);
  const std::vector<LinkInput> inputs = scanInputs(arguments, store, problem);
  for (const LinkInput &input : inputs)
    for (const auto &[member, object] : input.known) outcome.listedInputs += !object.pipeline.empty();
  // The same command over the same bytes as a link already compared: it
  // links once, as given, with no map to write or read.
  if (problem.empty() && outcome.listedInputs > 0 && store.linkVerified(linkKey(arguments, inputs))) {
    outcome.exitCode = runLink(givenCommand, compiler);
    outcome.verdict = outcome.exitCode == 0 ? StoreLinkVerdict::Verified : StoreLinkVerdict::Failed;
    return outcome;
  }
  RunTemporaryDirectory scratch("mlgo-cc-link");
  std::vector<std::string> command = arguments;
  const fs::path map = mapOf(command, scratch.path());
  outcome.exitCode = runLink(fittingCommand(command, scratch.path() / "link.rsp"), compiler);
  if (outcome.exitCode != 0) {
    outcome.verdict = StoreLinkVerdict::Failed;
    return outcome;
  }
  try {
    const std::vector<KeptSection> sections = readMap(map);
    if (problem.empty()) problem = incomparable(command, inputs, sections, store);
    if (problem.empty() && outcome.listedInputs == 0) {
      outcome.verdict = StoreLinkVerdict::PlainInputs;
      recordKept(store, {}, attribute(sections, inputs));  // this link is the plain one
      outcome.linkedTextData = outcome.plainTextData = linkedSizes(output).textPlusData();
    } else if (problem.empty()) {
      compareWithPlainLink(command, compiler, output, map, inputs, store, scratch.path(), outcome);
    }
    if (problem.empty()) {
      const uint64_t shipped = outcome.verdict == StoreLinkVerdict::Plain ? outcome.plainTextData : outcome.linkedTextData;
      store.recordLink({fs::absolute(output).lexically_normal().string(), shipped, outcome.plainTextData, 0});
    }
  } catch (const std::exception &e) {
    problem = e.what();
  }
  if (!problem.empty()) {
    outcome.verdict = StoreLinkVerdict::Unverified;
    outcome.reason = problem;
    spdlog::warn("{}: not compared with its plain link ({}); it ships as linked", output.string(), problem);
  }
  return outcome;
}

StoreLinkOutcome linkLtoNeverLarger(const std::vector<std::string> &withPlugin,
                                    const std::vector<std::string> &withoutPlugin, const fs::path &compiler,
                                    const fs::path &output) {
  StoreLinkOutcome outcome;
  outcome.exitCode = runLink(withPlugin, compiler);
  if (outcome.exitCode != 0) {
    outcome.verdict = StoreLinkVerdict::Failed;
    return outcome;
  }
  std::string problem;
  try {
    std::vector<std::string> plain = linkArguments(withoutPlugin, output, problem);
    if (problem.empty()) {
      RunTemporaryDirectory scratch("mlgo-cc-lto-link");
      // The plain link writes into the scratch directory: its output, and a
      // map where the command asks for one (the build's is the link's own).
      for (size_t i = 1; i < plain.size(); ++i) {
        if (plain[i] == "-o" && i + 1 < plain.size()) plain[i + 1] = (scratch.path() / "plain.out").string();
        if (startsWith(plain[i], kMapOption)) plain[i] = kMapOption + (scratch.path() / "plain.map").string();
      }
      plain.front() = compiler.string();
      const ProcessOutcome linked = runProcess(fittingCommand(plain, scratch.path() / "plain.rsp"),
                                               std::chrono::milliseconds(0));
      if (!linked.succeeded())
        throw std::runtime_error("the link without the plugin failed: " + linked.stderrText.substr(0, 200));
      outcome.linkedTextData = linkedSizes(output).textPlusData();
      outcome.plainTextData = linkedSizes(scratch.path() / "plain.out").textPlusData();
      outcome.verdict = outcome.linkedTextData <= outcome.plainTextData ? StoreLinkVerdict::Kept : StoreLinkVerdict::Plain;
      if (outcome.verdict == StoreLinkVerdict::Plain) replaceFile(scratch.path() / "plain.out", output);
    }
  } catch (const std::exception &e) {
    problem = e.what();
  }
  if (!problem.empty()) {
    outcome.verdict = StoreLinkVerdict::Unverified;
    outcome.reason = problem;
    spdlog::warn("{}: not compared with its link without the policy ({}); it ships as linked", output.string(),
                 problem);
  }
  return outcome;
}

nlohmann::json storeLinkRecord(const fs::path &output, const StoreLinkOutcome &outcome) {
  nlohmann::json record{{"link", output.string()},
                        {"directory", fs::current_path().string()},
                        {"store_link", storeLinkVerdictName(outcome.verdict)},
                        {"listed_inputs", outcome.listedInputs}};
  if (!outcome.reason.empty()) record["reason"] = outcome.reason;
  if (outcome.plainTextData > 0 && outcome.verdict != StoreLinkVerdict::PlainInputs) {
    record["linked_text+data"] = outcome.linkedTextData;
    record["plain_text+data"] = outcome.plainTextData;
  }
  return record;
}

}  // namespace mlgo::launcher
