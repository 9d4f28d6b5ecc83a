// Helpers shared by the formats/ tests: sample metadata and probe tables,
// random records, and reading a whole trace back.
#pragma once

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <deque>
#include <random>
#include <string>
#include <variant>
#include <vector>

#include "formats/trace_reader.h"
#include "formats/trace_writer.h"

namespace usdt::format::test {

inline TraceMetadata sample_metadata() {
  TraceMetadata m;
  m.hostname = "testhost";
  m.kernel_release = "6.18.0-test";
  m.arch = "x86_64";
  m.page_size = 4096;
  m.command_line = "usdt-record -o t.trace -- ./prog";
  m.recorder_version = "0.1.0";
  m.start_monotonic_ns = 1000000;
  m.start_realtime_ns = 1700000000000000000ull;
  return m;
}

// Site i has (i % 13) arguments, so every argument count 0..12 occurs.
inline std::vector<ProbeSite> sample_sites(int n) {
  std::vector<ProbeSite> sites;
  for (int i = 0; i < n; ++i) {
    ProbeSite s;
    s.id = static_cast<uint32_t>(i);
    s.kind = static_cast<ProbeKind>(1 + i % 3);
    s.path = "/usr/lib/libtest" + std::to_string(i) + ".so";
    s.build_id = i % 2 ? "" : "0123456789abcdef";
    s.provider = "prov";
    s.name = "probe" + std::to_string(i);
    s.file_offset = 0x1000 + static_cast<uint64_t>(i);
    s.semaphore_offset = i % 2 ? 0 : 0x4000 + static_cast<uint64_t>(i);
    for (int a = 0; a < i % 13; ++a) {
      ArgDescriptor d;
      d.spec = "-4@%eax";
      d.size = static_cast<uint8_t>(1u << (a % 4));
      d.is_signed = a % 2;
      d.is_float = a == 5;
      d.location = static_cast<ArgLocation>(a % 4);
      d.source = static_cast<ArgSource>((a + 1) % 4);
      s.args.push_back(d);
    }
    sites.push_back(std::move(s));
  }
  return sites;
}

using Record = std::variant<Event, ProcessEvent, LostEvent>;

inline uint64_t record_time(const Record& r) {
  if (auto* e = std::get_if<Event>(&r)) return e->time_ns;
  if (auto* p = std::get_if<ProcessEvent>(&r)) return p->time_ns;
  return std::get<LostEvent>(r).time_begin_ns;
}
inline int record_rank(const Record& r) { return r.index() == 0 ? 1 : r.index() == 1 ? 0 : 2; }

// Owns string arguments for events that must outlive their producer: test
// input for the writer (make) and copies of what the reader returned (keep).
class StringKeeper {
 public:
  uint64_t make(std::string_view bytes, bool truncated = false) {
    strings_.emplace_back(bytes);
    args_.push_back(StringArg{strings_.back(), truncated});
    return reinterpret_cast<uint64_t>(&args_.back());
  }
  // A copy of e whose string arguments point to copies owned here.
  Event keep(const Event& e) {
    Event c = e;
    for (int i = 0; i < e.arg_count; ++i) {
      if (e.is_string(i) && e.has_arg(i)) {
        c.args[i] = make(e.string_arg(i).bytes, e.string_arg(i).truncated);
      }
    }
    return c;
  }

 private:
  std::deque<std::string> strings_;
  std::deque<StringArg> args_;
};

inline bool same(const Event& a, const Event& b) {
  if (a.time_ns != b.time_ns || a.pid != b.pid || a.tid != b.tid || a.cpu != b.cpu ||
      a.site_id != b.site_id || a.arg_count != b.arg_count || a.missing_mask != b.missing_mask ||
      a.string_mask != b.string_mask) {
    return false;
  }
  for (int i = 0; i < a.arg_count; ++i) {
    if (!a.has_arg(i)) continue;
    if (a.is_string(i)) {
      if (a.string_arg(i).bytes != b.string_arg(i).bytes ||
          a.string_arg(i).truncated != b.string_arg(i).truncated) {
        return false;
      }
    } else if (a.args[i] != b.args[i]) {
      return false;
    }
  }
  return true;
}
inline bool same(const ProcessEvent& a, const ProcessEvent& b) {
  return a.time_ns == b.time_ns && a.kind == b.kind && a.pid == b.pid && a.tid == b.tid &&
         a.parent_pid == b.parent_pid && a.parent_tid == b.parent_tid && a.comm == b.comm;
}
inline bool same(const LostEvent& a, const LostEvent& b) {
  return a.time_begin_ns == b.time_begin_ns && a.time_end_ns == b.time_end_ns && a.cpu == b.cpu &&
         a.site_id == b.site_id && a.count == b.count;
}
inline bool same(const Record& a, const Record& b) {
  if (a.index() != b.index()) return false;
  return std::visit([&](const auto& x) { return same(x, std::get<std::decay_t<decltype(x)>>(b)); },
                    a);
}

inline std::string describe(const Record& r) {
  char buf[256];
  if (auto* e = std::get_if<Event>(&r)) {
    snprintf(buf, sizeof buf, "event t=%llu site=%u pid=%u tid=%u cpu=%u n=%u miss=%x",
             (unsigned long long)e->time_ns, e->site_id, e->pid, e->tid, e->cpu, e->arg_count,
             e->missing_mask);
    std::string out = buf;
    if (e->string_mask != 0) {
      snprintf(buf, sizeof buf, " str=%x", e->string_mask);
      out += buf;
      for (int i = 0; i < e->arg_count; ++i) {
        if (!e->is_string(i) || !e->has_arg(i)) continue;
        out += " \"" + std::string(e->string_arg(i).bytes) + "\"";
        if (e->string_arg(i).truncated) out += "...";
      }
    }
    return out;
  } else if (auto* p = std::get_if<ProcessEvent>(&r)) {
    snprintf(buf, sizeof buf, "process t=%llu kind=%d pid=%u comm=%s",
             (unsigned long long)p->time_ns, int(p->kind), p->pid, p->comm.c_str());
  } else {
    auto& l = std::get<LostEvent>(r);
    snprintf(buf, sizeof buf, "lost t=%llu..%llu cpu=%u site=%u count=%llu",
             (unsigned long long)l.time_begin_ns, (unsigned long long)l.time_end_ns, l.cpu,
             l.site_id, (unsigned long long)l.count);
  }
  return buf;
}

// Reads every record the reader returns; with strings, the events' string
// arguments are copied into it (they live only until the next next()).
inline std::vector<Record> read_all(TraceReader& reader, StringKeeper* strings = nullptr) {
  std::vector<Record> out;
  while (reader.next()) {
    switch (reader.kind()) {
      case RecordKind::event:
        if (strings && reader.event().string_mask != 0) {
          out.emplace_back(strings->keep(reader.event()));
        } else {
          out.emplace_back(reader.event());
        }
        break;
      case RecordKind::process:
        out.emplace_back(reader.process());
        break;
      case RecordKind::lost:
        out.emplace_back(reader.lost());
        break;
    }
  }
  return out;
}

// A temporary file path, removed at scope exit.
class TempPath {
 public:
  TempPath() {
    char name[] = "/tmp/usdt-format-test-XXXXXX";
    int fd = mkstemp(name);
    if (fd >= 0) close(fd);
    path_ = name;
  }
  ~TempPath() { unlink(path_.c_str()); }
  const std::string& str() const { return path_; }

 private:
  std::string path_;
};

inline std::string read_file_bytes(const std::string& path) {
  std::string out;
  FILE* f = fopen(path.c_str(), "rb");
  if (!f) return out;
  char buf[65536];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, f)) > 0) out.append(buf, n);
  fclose(f);
  return out;
}

// bytes as a C array named name, 16 bytes a line: what a compatibility
// test stores of a trace written once.
inline std::string c_array_text(const std::string& name, const std::string& bytes) {
  std::string out = "const char " + name + "[] =\n";
  for (size_t i = 0; i < bytes.size(); i += 16) {
    out += "    \"";
    for (size_t j = i; j < std::min(bytes.size(), i + 16); ++j) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", static_cast<unsigned char>(bytes[j]));
      out += buf;
    }
    out += i + 16 >= bytes.size() ? "\";\n" : "\"\n";
  }
  return out;
}

inline void write_file_bytes(const std::string& path, const std::string& bytes) {
  FILE* f = fopen(path.c_str(), "wb");
  if (!f) return;
  fwrite(bytes.data(), 1, bytes.size(), f);
  fclose(f);
}

}  // namespace usdt::format::test
