#include "record/attach/uprobe_event_group.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstring>
#include <map>
#include <sstream>
#include <utility>

#include "common/file_io.h"

namespace usdt::record {
namespace {

constexpr std::string_view kGroupPrefix = "usdtrec_";
constexpr const char* kLockDir = "/run/usdt-trace";

std::string lock_path(const std::string& group) {
  return std::string(kLockDir) + "/" + group + ".lock";
}

enum class Owner { alive, gone, unknown };

// Whether the holder of a group's lock file still runs.
Owner lock_owner(const std::string& group) {
  int fd = open(lock_path(group).c_str(), O_RDWR | O_CLOEXEC);
  if (fd < 0) return Owner::unknown;
  UniqueFd owner(fd);
  if (flock(fd, LOCK_EX | LOCK_NB) != 0)
    return errno == EWOULDBLOCK ? Owner::alive : Owner::unknown;
  return Owner::gone;
}

// Appends one command line to uprobe_events. The kernel applies each write
// on its own; an error comes back from the write itself.
Status write_command(const std::string& dir, const std::string& line) {
  Result<UniqueFd> fd = open_file(dir + "/uprobe_events", O_WRONLY | O_APPEND);
  if (!fd) return fd.error();
  std::string text = line + "\n";
  ssize_t n;
  do {
    n = write(fd->get(), text.data(), text.size());
  } while (n < 0 && errno == EINTR);
  if (n < 0) return Error(std::strerror(errno), errno);
  return Status::success();
}

// The kernel's last explanation of a rejected definition, if any.
std::string last_error_log_entry(const std::string& dir) {
  Result<std::string> log = read_text_file(dir + "/error_log");
  if (!log || log->empty()) return "";
  // Entries end with a line holding the command and a line with a caret.
  std::istringstream in(*log);
  std::string line, last;
  while (std::getline(in, line)) {
    size_t pos = line.find("] trace_uprobe: ");
    if (pos != std::string::npos) last = line.substr(pos + 2);
  }
  return last;
}

bool parse_u32(std::string_view s, uint32_t& out) {
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && p == s.data() + s.size();
}

// The number after "key:" up to the next ';'.
bool field_number(const std::string& line, std::string_view key, uint32_t& out) {
  size_t pos = line.find(key);
  if (pos == std::string::npos) return false;
  pos += key.size();
  size_t end = line.find(';', pos);
  if (end == std::string::npos) return false;
  return parse_u32(std::string_view(line).substr(pos, end - pos), out);
}

// "\tfield:__data_loc char[] s;\toffset:24;\tsize:4;\tsigned:1;"
bool parse_field_line(const std::string& line, TraceField& f) {
  size_t start = line.find("field:");
  if (start == std::string::npos) return false;
  start += 6;
  size_t semi = line.find(';', start);
  if (semi == std::string::npos) return false;
  std::string decl = line.substr(start, semi - start);
  f.data_loc = decl.rfind("__data_loc", 0) == 0;
  size_t name_start = decl.find_last_of(' ');
  if (name_start == std::string::npos) return false;
  f.name = decl.substr(name_start + 1);
  if (size_t bracket = f.name.find('['); bracket != std::string::npos) f.name.resize(bracket);
  uint32_t is_signed = 0;
  std::string rest = line.substr(semi);
  if (!field_number(rest, "offset:", f.offset) || !field_number(rest, "size:", f.size)) {
    return false;
  }
  field_number(rest, "signed:", is_signed);
  f.is_signed = is_signed != 0;
  return !f.name.empty();
}

}  // namespace

const TraceField* TracefsEvent::field(const std::string& wanted) const {
  for (const TraceField& f : fields) {
    if (f.name == wanted) return &f;
  }
  return nullptr;
}

Result<std::vector<TraceField>> parse_trace_format(const std::string& text) {
  std::vector<TraceField> fields;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.find("field:") == std::string::npos) continue;
    TraceField f;
    if (!parse_field_line(line, f)) return Error("cannot parse the format line '" + line + "'");
    fields.push_back(std::move(f));
  }
  if (fields.empty()) return Error("the format lists no fields");
  return fields;
}

std::string recorder_group_name(pid_t pid, uint64_t start_ticks, uint64_t pid_namespace) {
  std::string name(kGroupPrefix);
  name += std::to_string(pid);
  name += '_';
  name += std::to_string(start_ticks);
  if (pid_namespace != 0) {
    name += '_';
    name += std::to_string(pid_namespace);
  }
  return name;
}

uint64_t own_pid_namespace() {
  struct stat st {};
  return ::stat("/proc/self/ns/pid", &st) == 0 ? static_cast<uint64_t>(st.st_ino) : 0;
}

uint64_t process_start_ticks(pid_t pid) {
  Result<std::string> stat = read_text_file("/proc/" + std::to_string(pid) + "/stat");
  if (!stat) return 0;
  // The command name (field 2) may hold spaces and parentheses: count the
  // fields after its closing parenthesis. Field 22 is the 20th after it.
  size_t close = stat->rfind(')');
  if (close == std::string::npos) return 0;
  std::istringstream in(stat->substr(close + 1));
  std::string field;
  for (int i = 0; i < 20 && (in >> field); ++i) {
  }
  uint64_t ticks = 0;
  auto [p, ec] = std::from_chars(field.data(), field.data() + field.size(), ticks);
  return ec == std::errc() ? ticks : 0;
}

UprobeEventGroup UprobeEventGroup::for_this_process(std::string tracefs_dir) {
  pid_t self = getpid();
  UprobeEventGroup group(std::move(tracefs_dir),
                         recorder_group_name(self, process_start_ticks(self), own_pid_namespace()));
  group.take_lock();
  return group;
}

void UprobeEventGroup::take_lock() {
  mkdir(kLockDir, 0755);
  int fd = open(lock_path(group_).c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return;  // the pid in the name still tells
  lock_.reset(fd);
  if (flock(fd, LOCK_EX | LOCK_NB) != 0) lock_.reset();
}

UprobeEventGroup::UprobeEventGroup(UprobeEventGroup&& other) noexcept
    : dir_(std::move(other.dir_)),
      group_(std::move(other.group_)),
      names_(std::exchange(other.names_, {})),
      lock_(std::move(other.lock_)) {}

UprobeEventGroup::~UprobeEventGroup() {
  if (delete_all() && lock_) unlink(lock_path(group_).c_str());
}

Result<TracefsEvent> UprobeEventGroup::add(const std::string& name, bool retprobe,
                                           const std::string& probe,
                                           const std::string& fetch_args) {
  std::string line = std::string(retprobe ? "r:" : "p:") + group_ + "/" + name + " " + probe;
  if (!fetch_args.empty()) line += " " + fetch_args;
  if (Status s = write_command(dir_, line); !s) {
    std::string why = last_error_log_entry(dir_);
    return Error("the kernel refused the uprobe event '" + line +
                     "': " + (why.empty() ? s.error().message() : why),
                 s.error().errno_value());
  }
  names_.push_back(name);
  TracefsEvent event;
  event.name = name;
  std::string base = dir_ + "/events/" + group_ + "/" + name;
  Result<std::string> id = read_text_file(base + "/id");
  if (!id) return id.error().context("cannot read the id of " + group_ + "/" + name);
  std::string_view id_text(*id);
  while (!id_text.empty() && (id_text.back() == '\n' || id_text.back() == ' '))
    id_text.remove_suffix(1);
  if (!parse_u32(id_text, event.id)) return Error("bad id '" + *id + "' in " + base + "/id");
  Result<std::string> format = read_text_file(base + "/format");
  if (!format) return format.error();
  Result<std::vector<TraceField>> fields = parse_trace_format(*format);
  if (!fields) return fields.error().context("in " + base + "/format");
  event.fields = std::move(*fields);
  return event;
}

bool UprobeEventGroup::delete_one(const std::string& name) {
  Status s = write_command(dir_, "-:" + group_ + "/" + name);
  return s || s.error().errno_value() == ENOENT;
}

bool UprobeEventGroup::delete_all() {
  std::vector<std::string> left;
  for (const std::string& name : names_) {
    Status s = write_command(dir_, "-:" + group_ + "/" + name);
    // ENOENT: already gone (someone cleaned up for us).
    if (!s && s.error().errno_value() != ENOENT) left.push_back(name);
  }
  names_ = std::move(left);
  if (names_.empty() && lock_) unlink(lock_path(group_).c_str());
  return names_.empty();
}

void UprobeEventGroup::remove_stale_groups_if_mounted(std::ostream& err) {
  for (const char* dir : {"/sys/kernel/tracing", "/sys/kernel/debug/tracing"}) {
    if (access((std::string(dir) + "/uprobe_events").c_str(), W_OK) != 0) continue;
    remove_stale_groups(dir, err);
    return;
  }
}

void UprobeEventGroup::remove_stale_groups(const std::string& tracefs_dir, std::ostream& err) {
  Result<std::string> defined = read_text_file(tracefs_dir + "/uprobe_events");
  if (!defined) return;
  std::istringstream in(*defined);
  std::string line;
  std::map<std::string, size_t> removed;  // by group
  while (std::getline(in, line)) {
    // "p:usdtrec_1234_5678/s0 /bin/x:0x0000000000001126 ..."
    size_t colon = line.find(':');
    size_t slash = line.find('/');
    size_t space = line.find(' ');
    if (colon == std::string::npos || slash == std::string::npos || space == std::string::npos ||
        !(colon < slash && slash < space)) {
      continue;
    }
    std::string group = line.substr(colon + 1, slash - colon - 1);
    std::string name = line.substr(slash + 1, space - slash - 1);
    if (group.rfind(kGroupPrefix, 0) != 0) continue;
    std::string_view rest = std::string_view(group).substr(kGroupPrefix.size());
    size_t sep = rest.find('_');
    uint32_t pid = 0;
    uint64_t ticks = 0;
    if (sep == std::string_view::npos || !parse_u32(rest.substr(0, sep), pid)) continue;
    std::string_view ticks_text = rest.substr(sep + 1);
    const char* end = ticks_text.data() + ticks_text.size();
    auto [p, ec] = std::from_chars(ticks_text.data(), end, ticks);
    if (ec != std::errc()) continue;
    uint64_t pid_namespace = 0;  // absent: a recorder from before the namespace was named
    if (p != end) {
      if (*p != '_') continue;
      auto [q, ec2] = std::from_chars(p + 1, end, pid_namespace);
      if (ec2 != std::errc() || q != end) continue;
    }
    Owner owner = lock_owner(group);
    if (owner == Owner::alive) continue;
    if (owner == Owner::unknown) {
      // Only the pid in our own namespace proves its owner gone.
      if (pid_namespace != 0 && pid_namespace != own_pid_namespace()) continue;
      if (process_start_ticks(static_cast<pid_t>(pid)) == ticks) continue;
    }
    if (write_command(tracefs_dir, "-:" + group + "/" + name)) ++removed[group];
    if (owner == Owner::gone) unlink(lock_path(group).c_str());
  }
  for (const auto& [group, count] : removed) {
    err << "usdt-record: removed " << count << " uprobe event" << (count == 1 ? "" : "s")
        << " left in tracefs by a recorder that was killed (" << group << ")\n";
  }
}

}  // namespace usdt::record
