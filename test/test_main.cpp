// Catch2's own signal handlers would replace the crash guard's (LLVM's
// CrashRecoveryContext) when several test cases run in one process, and the
// containment tests deliberately crash: let the guard own the signals.
#define CATCH_CONFIG_NO_POSIX_SIGNALS
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
