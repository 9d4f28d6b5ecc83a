// A probe as the user names it on the command line (-e, --string, listing
// patterns; docs/CLI.md), parsed once where it is read and passed on as such:
//
//   usdt:PATH:PROVIDER:NAME      usdt:/usr/bin/python3.11:python:function__entry
//   usdt:PATH:NAME               any provider
//   PROVIDER:NAME                any file (the command's binary and libraries, or -p's maps)
//   NAME                         any file, any provider
//   uprobe:PATH:SYMBOL[+OFFSET]  function entry
//   uretprobe:PATH:SYMBOL        function return
//   tracepoint:SUBSYS:EVENT      a kernel tracepoint (provider = SUBSYS, name = EVENT)
//
// SYMBOL may be a C++ name with "::" (ns::Server::handle*) and may be quoted
// ('ns::f(int)', needed when it holds a ':' that is not part of "::" or
// ends in "+digits"); PATH then ends at the last ':' before it that is not
// part of a "::".
// '*' and '?' are wildcards in every part. PATH is split off from the right:
// the last one (usdt:PATH:NAME) or two (usdt:PATH:PROVIDER:NAME) fields are
// the probe, so a path may contain '+' or '++' (libstdc++) freely; a path
// that contains ':' needs the four-field form (usdt:/a:b/x:prov:name), and in
// the three-field form the path is everything before the last ':'.
// PATH is an absolute path, a relative path (matched as a suffix of the
// file's path, at a '/' boundary) or a bare file/library name without '/'
// (matched against the file name; "libstdc++" also matches
// "libstdc++.so.6").
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "common/probe_kind.h"
#include "common/result.h"

namespace usdt {

struct ProbeSpec {
  ProbeKind kind = ProbeKind::usdt;
  std::string text;      // as the user wrote it
  std::string path;      // empty: any file
  std::string provider;  // usdt: "*" when any provider; tracepoint: the subsystem
  std::string name;      // usdt: the probe name; uprobe/uretprobe: the symbol; tracepoint: the event
  uint64_t offset = 0;   // uprobe: the +OFFSET after the symbol
  bool has_offset = false;  // "+0" was written (the name then keeps it)

  // Parses one probe; fails with a message that quotes the text and says
  // which form was expected.
  static Result<ProbeSpec> parse(std::string_view text);

  // Whether a file (as /proc/PID/maps or the user names it) is selected.
  bool matches_path(std::string_view file_path) const;
  // Whether a recorded probe of that file is selected: a USDT probe by a
  // usdt spec, a function probe (provider "uprobe"/"uretprobe", name the
  // demangled SYMBOL[+OFFSET], with or without its parameters) by a
  // uprobe/uretprobe spec.
  bool matches(std::string_view file_path, std::string_view probe_provider,
               std::string_view probe_name) const;
};

}  // namespace usdt
