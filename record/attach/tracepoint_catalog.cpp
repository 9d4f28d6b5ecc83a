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

Result<std::vector<Tracepoint>> find_tracepoints(const std::string& tracefs_dir, const ProbeSpec& spec) {
  const std::string events = tracefs_dir + "/events";
  Result<std::vector<std::string>> subsystems = matching_dirs(events, spec.provider);
  if (!subsystems) {
    return Error(subsystems.error().message() + permission_hint(subsystems.error().errno_value()));
  }
  if (subsystems->empty()) {
    if (has_wildcard(spec.provider)) {
      return Error(spec.text + " matches no tracepoint subsystem\nhint: ls " + events);
    }
    return Error("tracepoint subsystem '" + spec.provider + "' (" + spec.text +
                 ") does not exist\nhint: ls " + events);
  }
  std::vector<Tracepoint> found;
  for (const std::string& subsystem : *subsystems) {
    Result<std::vector<std::string>> names = matching_dirs(events + "/" + subsystem, spec.name);
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
    if (has_wildcard(spec.provider) || has_wildcard(spec.name)) {
      return Error(spec.text + " matches no tracepoint\nhint: ls " + events +
                   (has_wildcard(spec.provider) ? "" : "/" + spec.provider));
    }
    return Error("tracepoint " + spec.provider + ":" + spec.name + " does not exist\nhint: ls " +
                 events + "/" + spec.provider);
  }
  return found;
}

}  // namespace usdt::record
