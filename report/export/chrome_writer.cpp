#include "report/export/chrome_writer.h"

#include <tuple>

#include "report/output/arg_format.h"

namespace usdt::report {

namespace {

// An event's arguments by name into the object j has open.
void write_event_args(JsonWriter& j, const ProbeCatalog& catalog, uint32_t site,
                      const format::Event& e) {
  const SiteInfo& info = catalog.site(site);
  for (int i = 0; i < e.arg_count && i < format::kMaxArgs; ++i) {
    j.key(info.arg_label(static_cast<size_t>(i)))
        .number_text(event_arg_text(e, i, arg_type_at(&info, i), true));
  }
  write_truncated_args(j, e);
}

// The args of a pair's slice: an argument key's value (a tid or pid key is
// the slice's own tid or pid), the start's and the end's arguments (strings
// included); the duration is the slice's own (dur, in microseconds with
// three decimals: exact to the nanosecond).
void write_pair_args(JsonWriter& j, const ProbeCatalog& catalog, const LatencyPair& p,
                     const KeySpec& key, const format::Event* start, const format::Event* end) {
  j.key("args").begin_object();
  if (p.key_type == ArgType::string) {
    j.key(key.text()).string(p.key_text);
    if (p.key_truncated) j.key("key_truncated").boolean(true);
  } else if (key.kind == KeySpec::Kind::arg) {
    j.key(key.text()).number_text(arg_text(p.key, p.key_type, true));
  }
  for (const auto& [name, event, site] :
       {std::tuple{"start", start, p.start_site}, std::tuple{"end", end, p.end_site}}) {
    if (event == nullptr || event->arg_count == 0) continue;
    j.key(name).begin_object();
    write_event_args(j, catalog, site, *event);
    j.end_object();
  }
  j.end_object();
}

// The async id of an argument-keyed pair: the key's raw value in hex.
std::string async_id(uint64_t key) {
  static const char kHex[] = "0123456789abcdef";
  std::string digits;
  do {
    digits.insert(digits.begin(), kHex[key & 15]);
    key >>= 4;
  } while (key != 0);
  return "0x" + digits;
}

}  // namespace

void write_chrome_end(OutputBuffer& out, const std::string& stack_frames) {
  out.append("\n]");
  if (!stack_frames.empty()) {
    out.append(",\n\"stackFrames\":");
    out.append(stack_frames);
  }
  out.append("}\n");
  out.flush();
}

void write_ids(JsonWriter& j, uint64_t pid, uint64_t tid) {
  j.key("pid").uint(pid).key("tid").uint(tid);
}

void write_instant(ChromeWriter& w, const ProbeCatalog& catalog, uint32_t site, uint32_t domain,
                   const format::Event& e, uint64_t time, const StackRef& sf) {
  JsonWriter& j = w.begin_event();
  j.begin_object().key("ph").string("i");  // "s" is "t" (thread) by default
  j.key("name").string(catalog.probe_of_site(site).shown_name);
  j.key("cat").string(catalog.probe_of_site(site).provider);
  j.key("ts").number_text(w.ts_text(time));
  write_ids(j, chrome_id(domain, e.pid), chrome_id(domain, e.tid));
  w.stack_field("sf", sf);
  j.key("args").begin_object().key("cpu").uint(e.cpu);
  write_event_args(j, catalog, site, e);
  j.end_object().end_object();
  w.end_event();
}

std::string pair_slice_name(const ProbeCatalog& catalog, const LatencyPair& p) {
  const ProbeInfo& start = catalog.probe_of_site(p.start_site);
  const ProbeInfo& end = catalog.probe_of_site(p.end_site);
  if (start.provider == "uprobe" && end.provider == "uretprobe" && start.name == end.name)
    return start.name;
  return start.shown_name + " \u2192 " +
         (start.provider == end.provider && !end.ambiguous() ? end.name : end.shown_name);
}

void write_pair(ChromeWriter& w, const ProbeCatalog& catalog, const LatencyPair& p,
                const KeySpec& key, const StackRef& start_sf, const StackRef& end_sf,
                const format::Event* start, const format::Event* end) {
  const std::string name = pair_slice_name(catalog, p);
  const uint64_t pid = chrome_id(p.domain, p.pid);
  const uint64_t tid = chrome_id(p.domain, p.tid);
  if (key.kind != KeySpec::Kind::arg) {
    JsonWriter& j = w.begin_event();
    // No "cat": the name says what the slice is (async slices below need
    // theirs: cat, id and name match a "b" with its "e").
    j.begin_object().key("ph").string("X").key("name").string(name);
    j.key("ts")
        .number_text(w.ts_text(p.start_time))
        .key("dur")
        .number_text(ChromeWriter::us_text(p.duration));
    write_ids(j, pid, tid);
    w.stack_field("sf", start_sf);
    w.stack_field("esf", end_sf);
    write_pair_args(j, catalog, p, key, start, end);
    j.end_object();
    w.end_event();
    return;
  }
  const std::string id = async_id(p.key);
  JsonWriter& b = w.begin_event();
  b.begin_object()
      .key("ph")
      .string("b")
      .key("name")
      .string(name)
      .key("cat")
      .string("latency")
      .key("id")
      .string(id);
  b.key("ts").number_text(w.ts_text(p.start_time));
  write_ids(b, pid, tid);
  w.stack_field("sf", start_sf);
  write_pair_args(b, catalog, p, key, start, end);
  b.end_object();
  w.end_event();
  JsonWriter& e = w.begin_event();
  e.begin_object()
      .key("ph")
      .string("e")
      .key("name")
      .string(name)
      .key("cat")
      .string("latency")
      .key("id")
      .string(id);
  e.key("ts").number_text(w.ts_text(p.end_time));
  write_ids(e, pid, tid);
  w.stack_field("sf", end_sf);
  e.end_object();
  w.end_event();
}

}  // namespace usdt::report
