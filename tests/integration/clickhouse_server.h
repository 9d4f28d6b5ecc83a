// A throwaway clickhouse-server for the ClickHouse round-trip test: its
// config, users and data live in a fresh temporary directory, it listens on
// 127.0.0.1 only, on a free TCP port, as the current user (root runs it as
// it is: ClickHouse 18.16 does not refuse root), and it is stopped and its
// directory removed on every way out: the destructor (also when a REQUIRE
// throws) stops it with SIGTERM (SIGKILL after 10 s), and the server gets
// SIGKILL from the kernel if the test process dies first (PR_SET_PDEATHSIG).
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>

#include "integration_support.h"

namespace usdt::itest {

// The path of an installed program (searched in PATH, /usr/sbin, /usr/bin),
// or empty.
std::string find_program(const std::string& name);

class ClickHouseServer {
 public:
  // Starts the server and waits until it answers (at most 30 s). On failure
  // returns nothing and sets *error (with the end of the server's log).
  static std::optional<ClickHouseServer> start(const std::string& server, const std::string& client,
                                               std::string* error);
  ClickHouseServer(ClickHouseServer&& other) noexcept;
  ClickHouseServer& operator=(ClickHouseServer&&) = delete;
  ~ClickHouseServer();

  int port() const { return port_; }
  const std::string& dir() const { return dir_; }

  // clickhouse-client with these arguments, against this server.
  RunResult client(const std::vector<std::string>& args) const;
  // One query; its TabSeparated answer. A failed query fails the test.
  std::string query(const std::string& sql) const;
  // clickhouse-client with these arguments and file on its stdin (the
  // documented `--multiquery < schema.sql` and `--query 'INSERT ...' < rows`).
  RunResult client_reading(const std::vector<std::string>& args, const std::string& file) const;

 private:
  ClickHouseServer() = default;
  void stop();

  std::string client_path_;
  std::string dir_;
  int port_ = 0;
  pid_t pid_ = -1;
};

}  // namespace usdt::itest
