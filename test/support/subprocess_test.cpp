#include <catch2/catch.hpp>

#include <atomic>
#include <csignal>
#include <thread>

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mlgo/support/atomic_file.h"
#include "mlgo/support/subprocess.h"
#include "support/test_environment.h"

using namespace mlgo;
using namespace std::chrono_literals;

TEST_CASE("subprocess: exit code, stdout file and stderr text", "[support]") {
  test::ScratchDirectory dir;
  const std::string out = (dir / "out.txt").string();
  ProcessOutcome ok = runProcess({"/bin/sh", "-c", "echo hello; echo oops >&2; exit 3"}, 10s, out);
  CHECK(ok.started);
  CHECK(ok.exitCode == 3);
  CHECK_FALSE(ok.succeeded());
  CHECK(readFile(out) == "hello\n");
  CHECK(ok.stderrText == "oops\n");
  CHECK(runProcess({"/bin/true"}, 10s).succeeded());
}

TEST_CASE("subprocess: glibc's fatal messages go to the captured stderr, the rest of the environment passes",
          "[support]") {
  // Without LIBC_FATAL_STDERR_ glibc writes "double free or corruption" and
  // the like to the terminal, past the stderr we capture.
  test::ScratchDirectory dir;
  const std::string out = (dir / "environment.txt").string();
  ::setenv("MLGO_SUBPROCESS_TEST_VARIABLE", "kept", 1);
  ::setenv("LIBC_FATAL_STDERR_", "", 1);  // an empty value would leave glibc on the terminal
  REQUIRE(runProcess({"/usr/bin/env"}, 10s, out).succeeded());
  ::unsetenv("LIBC_FATAL_STDERR_");
  ::unsetenv("MLGO_SUBPROCESS_TEST_VARIABLE");
  const std::string environment = "\n" + readFile(out);
  CHECK(environment.find("\nLIBC_FATAL_STDERR_=1\n") != std::string::npos);
  CHECK(environment.find("\nLIBC_FATAL_STDERR_=\n") == std::string::npos);
  CHECK(environment.find("\nMLGO_SUBPROCESS_TEST_VARIABLE=kept\n") != std::string::npos);
}

TEST_CASE("subprocess: a program past its timeout is killed", "[support]") {
  const auto start = std::chrono::steady_clock::now();
  ProcessOutcome slow = runProcess({"/bin/sleep", "30"}, 200ms);
  CHECK(slow.timedOut);
  CHECK(std::chrono::steady_clock::now() - start < 10s);
}

TEST_CASE("subprocess: a CPU-time timeout ends a spinning program, not a waiting one", "[support]") {
  const ProcessOutcome spinning = runProcess({"/bin/sh", "-c", "while :; do :; done"}, 300ms, "", TimeoutClock::Cpu);
  CHECK(spinning.timedOut);
  // 0.5 s asleep uses no CPU: within a 200 ms CPU budget, and well within 20 x 200 ms of time.
  const ProcessOutcome waiting = runProcess({"/bin/sleep", "0.5"}, 200ms, "", TimeoutClock::Cpu);
  CHECK(waiting.succeeded());
  // A program that waits forever still ends, at 20 times the timeout.
  const auto start = std::chrono::steady_clock::now();
  CHECK(runProcess({"/bin/sleep", "30"}, 100ms, "", TimeoutClock::Cpu).timedOut);
  CHECK(std::chrono::steady_clock::now() - start < 20s);
}

TEST_CASE("subprocess: a main thread's CPU time leaves out the process's other threads", "[support]") {
  test::ScratchDirectory scratch;
  const std::string program = (scratch / "stuck_beside_watchdog").string();
  REQUIRE(test::runProgram(test::clangPath(), {(test::testData() / "processes/stuck_beside_watchdog.c").string(),
                                              "-pthread", "-o", program})
              .exitCode == 0);
  // Its main thread waits forever while its other thread computes.
  char *argv[] = {const_cast<char *>(program.c_str()), const_cast<char *>("spin"), nullptr};
  pid_t pid = 0;
  REQUIRE(::posix_spawn(&pid, program.c_str(), nullptr, nullptr, argv, environ) == 0);
  const auto giveUp = std::chrono::steady_clock::now() + 60s;
  while (processCpuTime(pid) < 300ms && std::chrono::steady_clock::now() < giveUp) std::this_thread::sleep_for(20ms);
  CHECK(processCpuTime(pid) >= 300ms);
  CHECK(mainThreadCpuTime(pid) < 50ms);
  ::kill(pid, SIGKILL);
  int status = 0;
  ::waitpid(pid, &status, 0);
  // A process that is gone has used nothing.
  CHECK(processCpuTime(pid) == 0ms);
  CHECK(mainThreadCpuTime(pid) == 0ms);
}

TEST_CASE("subprocess: a missing program is an error, not an exception", "[support]") {
  ProcessOutcome missing = runProcess({"/nonexistent/program"}, 1s);
  CHECK_FALSE(missing.started);
  CHECK_THAT(missing.error, Catch::Matchers::Contains("/nonexistent/program"));
}

TEST_CASE("subprocess: many at once from several threads", "[support]") {
  std::vector<std::thread> threads;
  std::atomic<int> succeeded{0};
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&] {
      for (int i = 0; i < 10; ++i) succeeded += runProcess({"/bin/sh", "-c", "exit 0"}, 10s).succeeded();
    });
  for (auto &thread : threads) thread.join();
  CHECK(succeeded == 40);
}
