#pragma once
// Compile workers: a process that compiles corpus modules on request, so that
// whatever a compile does to its process (a crash that corrupts the heap, a
// hang no signal ends) stays in that process. The parent
// (isolated_compiler.h) sends one request line and reads one reply line per
// compile; both are JSON objects:
//   request  {"module": NAME, "pipeline": OPT_PIPELINE}   ("" = recorded -Oz)
//            and "object": PATH where the object is wanted (written
//            atomically; the compile then always generates code)
//   reply    {"failure": KIND, "message": ..., "text": N, "data": N,
//             "rodata": N, "bss": N, "ir_instructions": N, "seconds": S}
// A worker whose compile crashes dies with it (crash signals are fatal in a
// worker: after heap corruption nothing in the process can be trusted); the
// parent reports the crash and starts a new worker.
//
// Workers run without address-space randomization: some pass lists make
// LLVM 19 read freed or uninitialized memory, and whether that crashes
// depends on where the heap lies. With the same layout in every worker, such
// a list fails alike in every run and on every thread, which keeps a search
// that meets it deterministic (measured: BENCHMARKS.md, autotune's wall time).
#include <filesystem>
#include <iosfwd>
#include <string>

#include "mlgo/corpus/corpus.h"
#include "mlgo/driver/compiler_driver.h"

namespace mlgo {

/// `object`: where the worker writes the object; empty: nowhere.
std::string encodeCompileRequest(const std::string &module, const std::string &pipeline,
                                 const std::string &object = "");
std::string encodeCompileReply(const CompileResult &result);
/// Throws std::runtime_error for a line that is not a reply.
CompileResult decodeCompileReply(const std::string &line);

/// Compiles `module` under `pipeline` and writes its object to `object`
/// (atomically); a file that cannot be written is the compile's failure.
CompileResult compileToObject(const CompilerDriver &driver, const CorpusModule &module, const std::string &pipeline,
                              const std::filesystem::path &object);

/// Starts this process again (the same program and arguments) with
/// address-space randomization off, when it is on and the kernel lets a
/// process turn it off (some container profiles do not). Returns only when
/// it did not restart: randomization was off already, or cannot be turned
/// off (then `why` says why).
void restartWithoutAddressRandomization(std::string &why);

/// The worker's loop: answers every request line of `requests` on `replies`
/// (flushed per reply) until end of input. Makes crash signals fatal for this
/// process first. A request for a module the corpus does not have, or a
/// malformed request, gets an invalid-input reply.
void serveCompileRequests(const Corpus &corpus, const CompilerDriver &driver, std::istream &requests,
                          std::ostream &replies);

}  // namespace mlgo
