#include "record/attach/tracepoint_catalog.h"

#include <algorithm>
#include <cerrno>
#include <filesystem>

#include "common/file_io.h"
#include "common/glob_match.h"

namespace usdt::record {
namespace {

// The names of the subdirectories of dir matching pattern, sorted.
Result<std::vector<std::string>> matching_dirs(const std::string& dir, const std::string& pattern) {
  std::vector<std::string> names;
  std::error_code ec;
  std::filesystem::directory_iterator it(dir, ec);
  if (ec) return Error("cannot read " + dir, ec.value());
  for (const auto& entry : it) {
    std::error_code type_ec;
    if (!entry.is_directory(type_ec)) continue;
    std::string name = entry.path().filename().string();
    if (glob_match(pattern, name)) names.push_back(std::move(name));
  }
  std::sort(names.begin(), names.end());
  return names;
}

std::string permission_hint(int err) {
  return err == EACCES || err == EPERM ? "\nhint: run as root (tracefs's events are root's)" : "";
}

}  // namespace

bool is_tracepoint_spec(std::string_view text) { return text.substr(0, 11) == "tracepoint:"; }

Result<TracepointSpec> parse_tracepoint_spec(std::string_view text) {
  TracepointSpec spec;
  spec.text = std::string(text);
  std::string_view rest = text.substr(11);
  size_t colon = rest.find(':');
  if (!is_tracepoint_spec(text) || colon == std::string_view::npos ||
      rest.find(':', colon + 1) != std::string_view::npos || colon == 0 ||
      colon + 1 == rest.size()) {
    return Error("bad probe '" + spec.text +
                 "': expected tracepoint:SUBSYS:EVENT, e.g. tracepoint:sched:sched_switch");
  }
  spec.subsystem = std::string(rest.substr(0, colon));
  spec.event = std::string(rest.substr(colon + 1));
  return spec;
}

Result<std::vector<Tracepoint>> find_tracepoints(const std::string& tracefs_dir,
                                                 const TracepointSpec& spec) {
  const std::string events = tracefs_dir + "/events";
  Result<std::vector<std::string>> subsystems = matching_dirs(events, spec.subsystem);
  if (!subsystems) {
    return Error(subsystems.error().message() + permission_hint(subsystems.error().errno_value()));
  }
  if (subsystems->empty()) {
    if (has_wildcard(spec.subsystem)) {
      return Error(spec.text + " matches no tracepoint subsystem\nhint: ls " + events);
    }
    return Error("tracepoint subsystem '" + spec.subsystem + "' (" + spec.text +
                 ") does not exist\nhint: ls " + events);
  }
  std::vector<Tracepoint> found;
  for (const std::string& subsystem : *subsystems) {
    Result<std::vector<std::string>> names = matching_dirs(events + "/" + subsystem, spec.event);
    if (!names) {
      return Error(names.error().message() + permission_hint(names.error().errno_value()));
    }
    for (const std::string& name : *names) {
      const std::string path = events + "/" + subsystem + "/" + name + "/format";
      Result<std::string> text = read_text_file(path);
      if (!text) {
        // Events without a format (e.g. an empty group) are not tracepoints.
        if (text.error().errno_value() == ENOENT) continue;
        return Error("cannot read the format of tracepoint " + subsystem + ":" + name + ": " +
                     text.error().message() + permission_hint(text.error().errno_value()));
      }
      Result<TracepointFormat> format = parse_tracepoint_format(*text);
      if (!format) {
        return format.error().context("cannot parse " + path);
      }
      found.push_back(Tracepoint{subsystem, name, std::move(*format)});
    }
  }
  if (found.empty()) {
    if (has_wildcard(spec.subsystem) || has_wildcard(spec.event)) {
      return Error(spec.text + " matches no tracepoint\nhint: ls " + events +
                   (has_wildcard(spec.subsystem) ? "" : "/" + spec.subsystem));
    }
    return Error("tracepoint " + spec.subsystem + ":" + spec.event + " does not exist\nhint: ls " +
                 events + "/" + spec.subsystem);
  }
  return found;
}

}  // namespace usdt::record
