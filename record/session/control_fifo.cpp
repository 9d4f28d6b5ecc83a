#include "record/session/control_fifo.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

namespace usdt::record {
namespace {

// Opens path as a FIFO, making it when missing; made says whether we did.
Result<UniqueFd> open_fifo(const std::string& path, bool* made) {
  *made = false;
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    if (errno != ENOENT) return errno_error("--control: cannot use '" + path + "'");
    if (::mkfifo(path.c_str(), 0600) != 0) {
      return errno_error("--control: cannot make the FIFO '" + path + "'");
    }
    *made = true;
  } else if (!S_ISFIFO(st.st_mode)) {
    return Error("--control: '" + path + "' is not a FIFO");
  }
  UniqueFd fd(::open(path.c_str(), O_RDWR | O_NONBLOCK | O_CLOEXEC));
  if (!fd) {
    Error e = errno_error("--control: cannot open '" + path + "'");
    if (*made) ::unlink(path.c_str());
    return e;
  }
  return fd;
}

std::string trimmed(const std::string& s) {
  const size_t b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return {};
  const size_t e = s.find_last_not_of(" \t\r");
  return s.substr(b, e - b + 1);
}

}  // namespace

Status ControlFifo::open(const ControlSpec& spec, std::optional<ControlFifo>& out) {
  ControlFifo& c = out.emplace(ControlFifo());
  bool made = false;
  Result<UniqueFd> fd = open_fifo(spec.path, &made);
  if (!fd) {
    out.reset();
    return fd.error();
  }
  c.fd_ = std::move(*fd);
  if (made) c.made_.push_back(spec.path);
  if (!spec.ack_path.empty()) {
    Result<UniqueFd> ack = open_fifo(spec.ack_path, &made);
    if (!ack) {
      out.reset();
      return ack.error();
    }
    c.ack_fd_ = std::move(*ack);
    if (made) c.made_.push_back(spec.ack_path);
  }
  return Status::success();
}

ControlFifo::~ControlFifo() {
  for (const std::string& path : made_) ::unlink(path.c_str());
}

std::vector<std::string> ControlFifo::read_commands() {
  std::vector<std::string> out;
  char buf[512];
  for (;;) {
    const ssize_t n = ::read(fd_.get(), buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    partial_.append(buf, static_cast<size_t>(n));
    // A line longer than any command is dropped rather than kept growing.
    if (partial_.size() > 4096 && partial_.find('\n') == std::string::npos) partial_.clear();
  }
  size_t nl;
  while ((nl = partial_.find('\n')) != std::string::npos) {
    std::string line = trimmed(partial_.substr(0, nl));
    partial_.erase(0, nl + 1);
    if (!line.empty()) out.push_back(std::move(line));
  }
  return out;
}

void ControlFifo::ack() {
  if (!ack_fd_) return;
  static const char kAck[] = "ack\n";
  ssize_t n;
  do {
    n = ::write(ack_fd_.get(), kAck, sizeof kAck - 1);
  } while (n < 0 && errno == EINTR);
}

}  // namespace usdt::record
