#include "support/postgres_server.h"

#include <csignal>
#include <fstream>
#include <stdexcept>

#include <pwd.h>
#include <unistd.h>

namespace mlgo::test {

namespace fs = std::filesystem;

namespace {

/// The newest PostgreSQL's programs Debian installed (initdb, pg_ctl).
fs::path postgresPrograms() {
  fs::path newest;
  std::error_code error;
  for (fs::directory_iterator entry("/usr/lib/postgresql", error), end; !error && entry != end; entry.increment(error))
    if (fs::exists(entry->path() / "bin" / "initdb") && entry->path() > newest.parent_path())
      newest = entry->path() / "bin";
  if (newest.empty()) throw std::runtime_error("no PostgreSQL server installed (/usr/lib/postgresql/*/bin/initdb)");
  return newest;
}

}  // namespace

PostgresServer::PostgresServer() : bin_(postgresPrograms()), data_(scratch_ / "data"), socket_(scratch_ / "socket") {
  fs::create_directories(socket_);
  // The server refuses to run as root: the cluster belongs to postgres then.
  if (::geteuid() == 0) {
    const passwd *user = ::getpwnam("postgres");
    if (!user) throw std::runtime_error("running as root and there is no user postgres to run the server as");
    for (const fs::path &path : {scratch_.path(), socket_})
      if (::chown(path.c_str(), user->pw_uid, user->pw_gid) != 0)
        throw std::runtime_error("cannot give " + path.string() + " to postgres");
  }
  const CommandOutcome made = run("initdb", {"-D", data_.string(), "-U", "mlgo", "--auth=trust", "--no-sync",
                                             "--encoding=UTF8", "--locale=C"});
  if (made.exitCode != 0) throw std::runtime_error("initdb failed: " + made.out + made.err);
  const std::string options = "-c listen_addresses='' -c unix_socket_directories='" + socket_.string() +
                              "' -c fsync=off -c full_page_writes=off -c max_connections=60";
  const CommandOutcome started =
      run("pg_ctl", {"-D", data_.string(), "-l", (scratch_ / "server.log").string(), "-o", options, "-w", "start"});
  if (started.exitCode != 0)
    throw std::runtime_error("pg_ctl start failed: " + started.out + started.err);
  running_ = true;
}

PostgresServer::~PostgresServer() {
  if (running_) run("pg_ctl", {"-D", data_.string(), "-m", "immediate", "-w", "stop"});
}

CommandOutcome PostgresServer::run(const std::string &tool, const std::vector<std::string> &arguments) const {
  std::vector<std::string> command;
  if (::geteuid() == 0) command = {"runuser", "-u", "postgres", "--"};
  command.push_back((bin_ / tool).string());
  command.insert(command.end(), arguments.begin(), arguments.end());
  return runIn(scratch_.path(), command);
}

std::string PostgresServer::uri(const std::string &database, const std::string &user) const {
  return "postgresql://" + user + "@/" + database + "?host=" + socket_.string();
}

void PostgresServer::createDatabase(const std::string &name) const {
  const CommandOutcome created = run("createdb", {"-h", socket_.string(), "-U", "mlgo", name});
  if (created.exitCode != 0) throw std::runtime_error("createdb failed: " + created.out + created.err);
}

void PostgresServer::kill() {
  std::ifstream pidFile(data_ / "postmaster.pid");
  pid_t pid = 0;
  if (!(pidFile >> pid) || pid <= 0) throw std::runtime_error("no postmaster.pid in " + data_.string());
  ::kill(pid, SIGKILL);
  // Gone, or a zombie no one reaps (a container's first process may not).
  auto gone = [pid] {
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string skip, state;
    return !(stat >> skip >> skip >> state) || state == "Z";
  };
  for (int waited = 0; waited < 500 && !gone(); ++waited) ::usleep(10000);
  // Its backends notice the postmaster's death and leave: no one answers.
  running_ = false;
}

}  // namespace mlgo::test
