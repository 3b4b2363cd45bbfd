#pragma once
// A throwaway PostgreSQL cluster for the tests of the shared store: initdb
// and pg_ctl of Debian's postgresql-15 in a scratch directory, listening on
// a Unix socket only (no TCP port), run as an unprivileged user (postgres,
// when the tests run as root), stopped and removed at scope exit. No mock:
// the real server, as a team's store would run on.
#include <filesystem>
#include <string>

#include "support/test_environment.h"

namespace mlgo::test {

class PostgresServer {
 public:
  /// Makes and starts the cluster; its superuser is "mlgo" (trust
  /// authentication over the socket). Throws std::runtime_error with the
  /// tools' output when it cannot.
  PostgresServer();
  ~PostgresServer();
  PostgresServer(const PostgresServer &) = delete;
  PostgresServer &operator=(const PostgresServer &) = delete;

  /// The URI of `database` on the server, as user `user`.
  std::string uri(const std::string &database = "postgres", const std::string &user = "mlgo") const;
  /// Creates an empty database (a store of its own).
  void createDatabase(const std::string &name) const;
  /// Kills the server at once (SIGKILL to its postmaster), as a machine
  /// that fails does.
  void kill();
  /// The socket's directory.
  const std::filesystem::path &socketDirectory() const { return socket_; }

 private:
  CommandOutcome run(const std::string &tool, const std::vector<std::string> &arguments) const;
  ScratchDirectory scratch_;
  std::filesystem::path bin_, data_, socket_;
  bool running_ = false;
};

}  // namespace mlgo::test
