#include "mlgo/driver/compile_worker.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <istream>
#include <iterator>
#include <map>
#include <ostream>
#include <stdexcept>
#include <vector>

#include <sys/personality.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "mlgo/driver/crash_guard.h"
#include "mlgo/driver/object_capture.h"
#include "mlgo/support/atomic_file.h"
#include "mlgo/support/text_input.h"

namespace mlgo {

using nlohmann::json;

namespace {

FailureKind parseFailureKind(const std::string &name) {
  for (FailureKind kind : {FailureKind::None, FailureKind::InvalidInput, FailureKind::VerifierError,
                           FailureKind::CompileError, FailureKind::FatalError, FailureKind::Crash,
                           FailureKind::Timeout})
    if (name == failureKindName(kind)) return kind;
  throw std::runtime_error("unknown failure kind \"" + name + "\"");
}

}  // namespace

CompileResult compileToObject(const CompilerDriver &driver, const CorpusModule &module, const std::string &pipeline,
                              const std::filesystem::path &object) {
  auto capture = std::make_shared<ObjectCapture>();
  CompileResult result = driver.compile({&module, pipeline, {capture}});
  if (!result.ok()) return result;
  try {
    writeOutputFile(object, capture->object());
  } catch (const std::exception &e) {
    result.failure = FailureKind::InvalidInput;
    result.message = std::string("cannot write the object: ") + e.what();
  }
  return result;
}

std::string encodeCompileRequest(const std::string &module, const std::string &pipeline, const std::string &object) {
  json request{{"module", module}, {"pipeline", pipeline}};
  if (!object.empty()) request["object"] = object;
  return request.dump();
}

std::string encodeCompileReply(const CompileResult &result) {
  return json{{"failure", failureKindName(result.failure)},
              {"message", result.message},
              {"text", result.sizes.text},
              {"data", result.sizes.data},
              {"rodata", result.sizes.rodata},
              {"bss", result.sizes.bss},
              {"ir_instructions", result.irInstructions},
              {"decisions", result.decisions},
              {"codegen_from_memo", result.codegenFromMemo},
              {"seconds", result.seconds}}
      .dump(-1, ' ', false, json::error_handler_t::replace);
}

CompileResult decodeCompileReply(const std::string &line) {
  const json reply = parseJsonOrDiscarded(line);
  if (!reply.is_object()) throw std::runtime_error("not a compile reply: " + line.substr(0, 200));
  try {
    CompileResult result;
    result.failure = parseFailureKind(reply.at("failure").get<std::string>());
    result.message = reply.at("message").get<std::string>();
    result.sizes.text = reply.at("text").get<uint64_t>();
    result.sizes.data = reply.at("data").get<uint64_t>();
    result.sizes.rodata = reply.at("rodata").get<uint64_t>();
    result.sizes.bss = reply.at("bss").get<uint64_t>();
    result.irInstructions = reply.at("ir_instructions").get<uint64_t>();
    result.decisions = reply.value("decisions", uint64_t(0));
    result.codegenFromMemo = reply.value("codegen_from_memo", false);
    result.seconds = reply.at("seconds").get<double>();
    return result;
  } catch (const json::exception &e) {
    throw std::runtime_error("malformed compile reply: " + jsonErrorText(e));
  }
}

void restartWithoutAddressRandomization(std::string &why) {
  // Set before the exec, so a kernel that accepts the flag but does not
  // honour it cannot make the worker restart forever.
  constexpr const char *kRestarted = "MLGO_WORKER_WITHOUT_ASLR";
  const int persona = ::personality(0xffffffff);  // query
  if (persona != -1 && (persona & ADDR_NO_RANDOMIZE)) return;
  if (persona == -1 || std::getenv(kRestarted) ||
      ::personality(static_cast<unsigned long>(persona) | ADDR_NO_RANDOMIZE) == -1) {
    why = std::string("cannot turn address-space randomization off: ") +
          (std::getenv(kRestarted) ? "it stayed on after a restart" : std::strerror(errno));
    return;
  }
  std::ifstream cmdline("/proc/self/cmdline", std::ios::binary);  // NUL-separated, as argv
  std::string commandLine((std::istreambuf_iterator<char>(cmdline)), std::istreambuf_iterator<char>());
  if (commandLine.empty()) {
    why = "cannot read /proc/self/cmdline to restart";
    return;
  }
  if (commandLine.back() != '\0') commandLine.push_back('\0');
  std::vector<char *> argv;
  for (size_t start = 0; start < commandLine.size(); start = commandLine.find('\0', start) + 1)
    argv.push_back(&commandLine[start]);
  argv.push_back(nullptr);
  ::setenv(kRestarted, "1", 1);
  ::execv("/proc/self/exe", argv.data());
  why = std::string("cannot restart without address-space randomization: ") + std::strerror(errno);
  ::personality(static_cast<unsigned long>(persona));
}

void serveCompileRequests(const Corpus &corpus, const CompilerDriver &driver, std::istream &requests,
                          std::ostream &replies) {
  makeCrashSignalsFatal();
  std::map<std::string, const CorpusModule *> byName;
  for (const CorpusModule &module : corpus.modules) byName.emplace(module.name, &module);
  for (std::string line; std::getline(requests, line);) {
    CompileResult result;
    const json request = parseJsonOrDiscarded(line);
    if (!request.is_object() || !request.contains("module") || !request["module"].is_string() ||
        !request.contains("pipeline") || !request["pipeline"].is_string()) {
      result.failure = FailureKind::InvalidInput;
      result.message = "malformed compile request";
    } else if (auto found = byName.find(request["module"].get<std::string>()); found == byName.end()) {
      result.failure = FailureKind::InvalidInput;
      result.message = "the worker's corpus has no module " + request["module"].get<std::string>();
    } else if (request.contains("object") && request["object"].is_string()) {
      result = compileToObject(driver, *found->second, request["pipeline"].get<std::string>(),
                               request["object"].get<std::string>());
    } else {
      result = driver.compile({found->second, request["pipeline"].get<std::string>(), {}});
    }
    replies << encodeCompileReply(result) << '\n' << std::flush;
  }
}

}  // namespace mlgo
