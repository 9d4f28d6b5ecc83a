#include "clickhouse_server.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>
#include <utility>

namespace usdt::itest {

namespace {

namespace fs = std::filesystem;

// A TCP port on 127.0.0.1 that nothing listens on now (the kernel's choice).
int free_port() {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return 0;
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof a;
  int port = 0;
  if (bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0 &&
      getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) == 0) {
    port = ntohs(a.sin_port);
  }
  close(fd);
  return port;
}

// Only the native TCP port is configured: no HTTP, interserver or MySQL
// port is opened. <yandex> is the root element 18.16 needs; current
// releases still accept it. @DIR@ and @PORT@ are filled in by config_xml.
const char* kConfigXml = R"(<?xml version="1.0"?>
<yandex>
  <logger><level>warning</level><log>@DIR@/server.log</log><errorlog>@DIR@/server.err.log</errorlog><console>0</console></logger>
  <listen_host>127.0.0.1</listen_host>
  <tcp_port>@PORT@</tcp_port>
  <path>@DIR@/data/</path>
  <tmp_path>@DIR@/data/tmp/</tmp_path>
  <user_files_path>@DIR@/data/user_files/</user_files_path>
  <format_schema_path>@DIR@/data/format_schemas/</format_schema_path>
  <users_config>@DIR@/users.xml</users_config>
  <default_profile>default</default_profile>
  <default_database>default</default_database>
  <mark_cache_size>268435456</mark_cache_size>
  <timezone>UTC</timezone>
</yandex>
)";

std::string config_xml(const std::string& dir, int port) {
  std::string text = kConfigXml;
  for (const auto& [name, value] :
       {std::pair<std::string, std::string>{"@DIR@", dir}, {"@PORT@", std::to_string(port)}}) {
    for (size_t at = text.find(name); at != std::string::npos;
         at = text.find(name, at + value.size())) {
      text.replace(at, name.size(), value);
    }
  }
  return text;
}

const char* kUsersXml =
    "<?xml version=\"1.0\"?>\n<yandex>\n"
    "  <profiles><default></default></profiles>\n"
    "  <users><default><password></password><networks><ip>127.0.0.1</ip></networks>"
    "<profile>default</profile><quota>default</quota></default></users>\n"
    "  <quotas><default></default></quotas>\n"
    "</yandex>\n";

std::string tail_of(const std::string& path, size_t bytes) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  std::string text = s.str();
  return text.size() > bytes ? text.substr(text.size() - bytes) : text;
}

}  // namespace

std::string find_program(const std::string& name) {
  std::string path = std::getenv("PATH") != nullptr ? std::getenv("PATH") : "";
  path += ":/usr/sbin:/usr/bin";
  std::stringstream dirs(path);
  for (std::string d; std::getline(dirs, d, ':');) {
    if (d.empty()) continue;
    std::string candidate = d + "/" + name;
    if (access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return "";
}

std::optional<ClickHouseServer> ClickHouseServer::start(const std::string& server,
                                                        const std::string& client,
                                                        std::string* error) {
  ClickHouseServer s;
  s.client_path_ = client;
  char dir[] = "/tmp/usdt_clickhouse_XXXXXX";
  if (mkdtemp(dir) == nullptr) {
    *error = "cannot create a temporary directory";
    return std::nullopt;
  }
  s.dir_ = dir;
  s.port_ = free_port();
  if (s.port_ == 0) {
    *error = "no free TCP port on 127.0.0.1";
    return std::nullopt;  // s removes its directory
  }
  std::ofstream(s.dir_ + "/config.xml") << config_xml(s.dir_, s.port_);
  std::ofstream(s.dir_ + "/users.xml") << kUsersXml;
  std::string config = "--config-file=" + s.dir_ + "/config.xml";
  std::string console = s.dir_ + "/console.log";
  pid_t parent = getpid();
  pid_t pid = fork();
  if (pid < 0) {
    *error = "fork failed";
    return std::nullopt;
  }
  if (pid == 0) {
    // Dies with the test, whatever ends it.
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(127);
    int null_fd = open("/dev/null", O_RDONLY);
    if (null_fd >= 0) dup2(null_fd, 0);
    int log = open(console.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (log >= 0) {
      dup2(log, 1);
      dup2(log, 2);
    }
    execl(server.c_str(), server.c_str(), config.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  s.pid_ = pid;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (std::chrono::steady_clock::now() < deadline) {
    int status = 0;
    if (waitpid(pid, &status, WNOHANG) == pid) {
      s.pid_ = -1;
      *error = "clickhouse-server exited at start (status " + std::to_string(status) +
               "): " + tail_of(console, 1000) + tail_of(s.dir_ + "/server.err.log", 2000);
      return std::nullopt;
    }
    if (s.client({"--query", "SELECT 1"}).status == 0) return s;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  *error =
      "clickhouse-server did not answer within 30 s: " + tail_of(s.dir_ + "/server.err.log", 2000);
  return std::nullopt;
}

ClickHouseServer::ClickHouseServer(ClickHouseServer&& other) noexcept
    : client_path_(std::move(other.client_path_)),
      dir_(std::exchange(other.dir_, std::string())),
      port_(other.port_),
      pid_(std::exchange(other.pid_, -1)) {}

ClickHouseServer::~ClickHouseServer() {
  stop();
  if (!dir_.empty()) {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
}

void ClickHouseServer::stop() {
  if (pid_ <= 0) return;
  kill(pid_, SIGTERM);
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  int status = 0;
  while (waitpid(pid_, &status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() > deadline) {
      kill(pid_, SIGKILL);
      waitpid(pid_, &status, 0);
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  pid_ = -1;
}

RunResult ClickHouseServer::client(const std::vector<std::string>& args) const {
  std::vector<std::string> argv{client_path_, "--host", "127.0.0.1", "--port",
                                std::to_string(port_)};
  argv.insert(argv.end(), args.begin(), args.end());
  return run(argv);
}

std::string ClickHouseServer::query(const std::string& sql) const {
  RunResult r = client({"--query", sql + " FORMAT TabSeparated"});
  INFO("query: " << sql << "\n" << r.err);
  REQUIRE(r.status == 0);
  return r.out;
}

RunResult ClickHouseServer::client_reading(const std::vector<std::string>& args,
                                           const std::string& file) const {
  // clickhouse-client ARGS < FILE, as the documented commands run it.
  std::vector<std::string> argv{"/bin/sh",
                                "-c",
                                "file=$1; shift; exec \"$@\" < \"$file\"",
                                "sh",
                                file,
                                client_path_,
                                "--host",
                                "127.0.0.1",
                                "--port",
                                std::to_string(port_)};
  argv.insert(argv.end(), args.begin(), args.end());
  return run(argv);
}

}  // namespace usdt::itest
