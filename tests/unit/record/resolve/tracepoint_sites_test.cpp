// Tracepoint sites (record/resolve/tracepoint_sites.h) and the decoding of their raw
// records (record/kernel/sample_decoder.h): every field form of FORMAT.md 3.4.1,
// from a record laid out as the kernel would for a real format file.
#include "record/resolve/tracepoint_sites.h"

#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "record/plan/planned_site.h"

using namespace usdt::record;
using usdt::format::StringArg;

namespace {

Tracepoint load(const std::string& subsystem, const std::string& event) {
  std::ifstream in(std::string(TRACEPOINT_FORMAT_DIR) + "/" + subsystem + "_" + event + ".format");
  REQUIRE(in);
  std::ostringstream text;
  text << in.rdbuf();
  auto format = parse_tracepoint_format(text.str());
  REQUIRE(format);
  return Tracepoint{subsystem, event, *format};
}

template <typename T>
void put(std::vector<uint8_t>& raw, size_t offset, T value) {
  if (raw.size() < offset + sizeof value) raw.resize(offset + sizeof value);
  std::memcpy(raw.data() + offset, &value, sizeof value);
}

struct Decoded {
  std::optional<uint64_t> value;
  StringArg string;
  std::string hex;
};

Decoded decode(const ResolvedSite& site, size_t arg, const std::vector<uint8_t>& raw,
               uint32_t string_bytes = 256) {
  std::vector<RawArg> layout = tracepoint_raw_layout(site);
  Decoded d;
  d.value = decode_raw_arg(site.args[arg], layout[arg], raw.data(), raw.size(), string_bytes,
                           &d.string, &d.hex);
  return d;
}

}  // namespace

TEST_CASE("a tracepoint site: common fields left out, names, descriptors") {
  ResolvedSite site = tracepoint_site(load("sched", "sched_switch"));
  CHECK(site.kind == usdt::format::ProbeKind::tracepoint);
  CHECK(site.provider == "sched");
  CHECK(site.name == "sched_switch");
  CHECK(site.tracepoint_id == 372);
  REQUIRE(site.fields.size() == 7);
  CHECK(site.fields[0].name == "prev_comm");
  CHECK(site.fields_left_out.empty());
  auto comm = tracepoint_arg_descriptor(site, 0);
  CHECK(comm.name == "prev_comm");
  CHECK(comm.is_string);
  CHECK(comm.size == 8);
  CHECK(comm.spec == "field:char prev_comm[16]; offset:8; size:16; signed:0;");
  CHECK(comm.source == usdt::ArgSource::kernel_read);
  auto pid = tracepoint_arg_descriptor(site, 1);
  CHECK(pid.name == "prev_pid");
  CHECK_FALSE(pid.is_string);
  CHECK(pid.size == 4);
  CHECK(pid.is_signed);
}

TEST_CASE("more than 12 fields: the first 12 are kept, the rest named") {
  Tracepoint t;
  t.subsystem = "x";
  t.event = "wide";
  t.format.id = 9;
  for (int i = 0; i < 15; ++i) {
    TracepointField f;
    f.name = "f";
    f.name += std::to_string(i);
    f.offset = 8 + 4 * i;
    f.size = 4;
    t.format.fields.push_back(f);
  }
  ResolvedSite site = tracepoint_site(t);
  CHECK(site.fields.size() == 12);
  CHECK(site.fields_left_out == std::vector<std::string>{"f12", "f13", "f14"});
  std::ostringstream err;
  warn_fields_left_out({site}, err);
  CHECK(err.str() ==
        "usdt-record: warning: x:wide has 15 fields, a probe holds at most 12: left out f12, "
        "f13, f14\n");
}

TEST_CASE("integers of every size and sign from the raw record") {
  Tracepoint t;
  t.subsystem = "x";
  t.event = "ints";
  const struct {
    uint32_t size;
    bool is_signed;
  } kinds[] = {{1, true}, {1, false}, {2, true}, {2, false},
               {4, true}, {4, false}, {8, true}, {8, false}};
  uint32_t offset = 8;
  for (const auto& k : kinds) {
    TracepointField f;
    f.name = "f";
    f.name += std::to_string(offset);
    f.offset = offset;
    f.size = k.size;
    f.is_signed = k.is_signed;
    t.format.fields.push_back(f);
    offset += 8;
  }
  ResolvedSite site = tracepoint_site(t);
  std::vector<uint8_t> raw(offset, 0);
  put<int8_t>(raw, 8, -3);
  put<uint8_t>(raw, 16, 200);
  put<int16_t>(raw, 24, -300);
  put<uint16_t>(raw, 32, 65000);
  put<int32_t>(raw, 40, -70000);
  put<uint32_t>(raw, 48, 4000000000u);
  put<int64_t>(raw, 56, -5000000000LL);
  put<uint64_t>(raw, 64, 18000000000000000000ULL);
  // Bytes after each field are garbage that must not leak in.
  for (uint32_t o = 9; o < 16; ++o) raw[o] = 0xee;
  CHECK(decode(site, 0, raw).value == static_cast<uint64_t>(int64_t{-3}));
  CHECK(decode(site, 1, raw).value == 200u);
  CHECK(decode(site, 2, raw).value == static_cast<uint64_t>(int64_t{-300}));
  CHECK(decode(site, 3, raw).value == 65000u);
  CHECK(decode(site, 4, raw).value == static_cast<uint64_t>(int64_t{-70000}));
  CHECK(decode(site, 5, raw).value == 4000000000u);
  CHECK(decode(site, 6, raw).value == static_cast<uint64_t>(int64_t{-5000000000LL}));
  CHECK(decode(site, 7, raw).value == 18000000000000000000ULL);
  // A record too short for the field: missing, never a guess.
  std::vector<uint8_t> short_raw(raw.begin(), raw.begin() + 60);
  CHECK_FALSE(decode(site, 7, short_raw).value);
}

TEST_CASE("fixed char arrays are strings up to their NUL") {
  ResolvedSite site = tracepoint_site(load("sched", "sched_switch"));
  std::vector<uint8_t> raw(64, 0);
  std::memcpy(raw.data() + 8, "itest_writes", 12);
  // A full array without NUL stays within its 16 bytes.
  std::memcpy(raw.data() + 40, "0123456789abcdefXYZ", 19);
  put<int32_t>(raw, 56, 77);
  Decoded prev = decode(site, 0, raw);
  REQUIRE(prev.value);
  CHECK(prev.string.bytes == "itest_writes");
  CHECK_FALSE(prev.string.truncated);
  Decoded next = decode(site, 4, raw);
  REQUIRE(next.value);
  CHECK(next.string.bytes == "0123456789abcdef");
  CHECK(decode(site, 5, raw).value == 77u);  // next_pid: overwritten X.. only up to 56
  CHECK(decode(site, 0, raw, 4).string.bytes == "ites");
  CHECK(decode(site, 0, raw, 4).string.truncated);
}

TEST_CASE("__data_loc strings and arrays, and byte arrays as hex") {
  ResolvedSite exec = tracepoint_site(load("sched", "sched_process_exec"));
  std::vector<uint8_t> raw(20, 0);
  const char path[] = "/bin/true";
  put<uint32_t>(raw, 8, 20u | (uint32_t{sizeof path} << 16));
  raw.insert(raw.end(), path, path + sizeof path);
  Decoded filename = decode(exec, 0, raw);
  REQUIRE(filename.value);
  CHECK(filename.string.bytes == "/bin/true");
  // A __data_loc pointing past the record: missing.
  put<uint32_t>(raw, 8, 25u | (20u << 16));
  CHECK_FALSE(decode(exec, 0, raw).value);

  ResolvedSite dma = tracepoint_site(load("dma", "dma_map_sg"));
  std::vector<RawArg> layout = tracepoint_raw_layout(dma);
  REQUIRE(dma.fields[4].name == "phys_addrs");
  CHECK(layout[4].hex);
  CHECK(tracepoint_arg_descriptor(dma, 4).is_string);
  std::vector<uint8_t> rec(48, 0);
  put<uint32_t>(rec, 24, 48u | (16u << 16));
  put<uint64_t>(rec, 48, 0x1122334455667788ULL);
  put<uint64_t>(rec, 56, 0xabULL);
  Decoded phys = decode(dma, 4, rec);
  REQUIRE(phys.value);
  CHECK(phys.string.bytes == "8877665544332211ab00000000000000");
  CHECK_FALSE(phys.string.truncated);
  // Cut at whole bytes within --string-bytes.
  Decoded cut = decode(dma, 4, rec, 5);
  CHECK(cut.string.bytes == "8877");
  CHECK(cut.string.truncated);
  // An empty dynamic array is an empty string, not missing.
  put<uint32_t>(rec, 24, 48u);
  Decoded empty = decode(dma, 4, rec);
  REQUIRE(empty.value);
  CHECK(empty.string.bytes.empty());

  ResolvedSite sock = tracepoint_site(load("sock", "inet_sock_set_state"));
  size_t saddr = 0;
  while (sock.fields[saddr].name != "saddr") ++saddr;
  std::vector<uint8_t> s(72, 0);
  const uint8_t ip[4] = {192, 168, 0, 1};
  std::memcpy(s.data() + 32, ip, 4);
  Decoded addr = decode(sock, saddr, s);
  REQUIRE(addr.value);
  CHECK(addr.string.bytes == "c0a80001");
}

TEST_CASE("__rel_loc counts from the end of its u32") {
  auto format = parse_tracepoint_format(
      "ID: 3\n\tfield:__rel_loc char[] s;\toffset:8;\tsize:4;\tsigned:0;\n");
  REQUIRE(format);
  ResolvedSite site = tracepoint_site(Tracepoint{"x", "rel", *format});
  std::vector<uint8_t> raw(16, 0);
  put<uint32_t>(raw, 8, 4u | (3u << 16));  // at 8 + 4 + 4 = 16
  raw.insert(raw.end(), {'a', 'b', 0});
  Decoded d = decode(site, 0, raw);
  REQUIRE(d.value);
  CHECK(d.string.bytes == "ab");
}

TEST_CASE("specs are split, and bad ones fail with the form expected") {
  std::vector<usdt::ProbeSpec> specs, tp, other;
  for (const char* text : {"a:b", "tracepoint:sched:*", "usdt:/x:p:n", "tracepoint:x:y"}) {
    specs.push_back(*usdt::ProbeSpec::parse(text));
  }
  split_tracepoint_specs(specs, tp, other);
  auto texts = [](const std::vector<usdt::ProbeSpec>& v) {
    std::vector<std::string> out;
    for (const usdt::ProbeSpec& s : v) out.push_back(s.text);
    return out;
  };
  CHECK(texts(tp) == std::vector<std::string>{"tracepoint:sched:*", "tracepoint:x:y"});
  CHECK(texts(other) == std::vector<std::string>{"a:b", "usdt:/x:p:n"});
  for (const char* bad :
       {"tracepoint:", "tracepoint:sched", "tracepoint::x", "tracepoint:a:", "tracepoint:a:b:c"}) {
    auto spec = usdt::ProbeSpec::parse(bad);
    REQUIRE_FALSE(spec);
    CHECK(spec.error().message().find("expected tracepoint:SUBSYS:EVENT") != std::string::npos);
  }
  auto spec = usdt::ProbeSpec::parse("tracepoint:sched:sched_*");
  REQUIRE(spec);
  CHECK(spec->kind == usdt::ProbeKind::tracepoint);
  CHECK(spec->provider == "sched");
  CHECK(spec->name == "sched_*");
  CHECK(spec->matches("", "sched", "sched_switch"));
  CHECK_FALSE(spec->matches("", "irq", "sched_switch"));
}

TEST_CASE("find_tracepoints in a made-up tracefs") {
  std::string dir = "/tmp/usdt_tp_test_" + std::to_string(getpid());
  std::string events = dir + "/events";
  std::filesystem::create_directories(events + "/sched/sched_switch");
  std::filesystem::create_directories(events + "/sched/sched_wakeup");
  std::filesystem::create_directories(events + "/sched/broken");
  std::ofstream(events + "/sched/enable") << "0\n";
  std::ofstream(events + "/sched/sched_switch/format") << "name: sched_switch\nID: 5\n";
  std::ofstream(events + "/sched/sched_wakeup/format") << "name: sched_wakeup\nID: 6\n";
  std::ofstream(events + "/sched/broken/format") << "name: broken\nID: x\n";
  auto all = find_tracepoints(dir, *usdt::ProbeSpec::parse("tracepoint:s*:sched_*"));
  REQUIRE(all);
  REQUIRE(all->size() == 2);
  CHECK((*all)[0].event == "sched_switch");
  CHECK((*all)[1].format.id == 6);
  auto missing = find_tracepoints(dir, *usdt::ProbeSpec::parse("tracepoint:sched:nope"));
  REQUIRE_FALSE(missing);
  CHECK(missing.error().message() ==
        "tracepoint sched:nope does not exist\nhint: ls " + events + "/sched");
  auto none = find_tracepoints(dir, *usdt::ProbeSpec::parse("tracepoint:sched:x*"));
  REQUIRE_FALSE(none);
  CHECK(none.error().message().find("tracepoint:sched:x* matches no tracepoint") == 0);
  auto subsystem = find_tracepoints(dir, *usdt::ProbeSpec::parse("tracepoint:nosuch:x"));
  REQUIRE_FALSE(subsystem);
  CHECK(subsystem.error().message().find("tracepoint subsystem 'nosuch'") == 0);
  auto broken = find_tracepoints(dir, *usdt::ProbeSpec::parse("tracepoint:sched:broken"));
  REQUIRE_FALSE(broken);
  CHECK(broken.error().message().find("cannot parse") != std::string::npos);
  std::filesystem::remove_all(dir);
}

TEST_CASE("a whole tracepoint sample: id, tid, time, cpu, period, raw", "[tracepoint_sites]") {
  PlannedSite planned;
  planned.resolved = tracepoint_site(load("sched", "sched_switch"));
  planned.sampling.sources.assign(planned.resolved.args.size(), usdt::ArgSource::kernel_read);
  SiteAttach attach = to_site_attach(planned, 0);
  CHECK(attach.config.tracepoint_id == 372);
  CHECK(attach.config.raw);
  CHECK(attach.config.period);
  CHECK(attach.config.label == "tracepoint sched:sched_switch");
  std::vector<SiteDecoding> decodings = {to_site_decoding(planned, 0)};
  SampleDecoder decoder(std::move(decodings), true);
  decoder.add_event(500, 0);

  // The raw data as the kernel writes it: common fields, then the event's.
  std::vector<uint8_t> raw(64, 0);
  put<uint16_t>(raw, 0, 372);
  put<int32_t>(raw, 4, 4242);  // common_pid
  std::memcpy(raw.data() + 8, "itest", 5);
  put<int32_t>(raw, 24, 4242);
  put<int32_t>(raw, 28, 120);
  put<int64_t>(raw, 32, 1);
  std::memcpy(raw.data() + 40, "swapper/1", 9);
  put<int32_t>(raw, 56, 0);
  put<int32_t>(raw, 60, -1);
  std::vector<uint8_t> sample(sizeof(perf_event_header), 0);
  auto append = [&](const void* p, size_t n) {
    const uint8_t* b = static_cast<const uint8_t*>(p);
    sample.insert(sample.end(), b, b + n);
  };
  uint64_t id = 500, time = 123456, period = 1;
  uint32_t pid = 4242, tid = 4243, cpu = 1, res = 0, raw_size = 68;
  append(&id, 8);
  append(&pid, 4);
  append(&tid, 4);
  append(&time, 8);
  append(&cpu, 4);
  append(&res, 4);
  append(&period, 8);
  append(&raw_size, 4);
  append(raw.data(), raw.size());
  append("\0\0\0\0", 4);  // the kernel pads raw data to 8 bytes with its size
  perf_event_header h{PERF_RECORD_SAMPLE, 0, static_cast<uint16_t>(sample.size())};
  std::memcpy(sample.data(), &h, sizeof h);
  REQUIRE(decoder.decode(reinterpret_cast<const perf_event_header*>(sample.data())) ==
          SampleDecoder::Kind::event);
  const usdt::format::Event& e = decoder.event();
  CHECK(e.pid == 4242);
  CHECK(e.tid == 4243);
  CHECK(e.time_ns == 123456);
  REQUIRE(e.arg_count == 7);
  CHECK(e.missing_mask == 0);
  CHECK(e.string_mask == 0b10001);
  CHECK(e.string_arg(0).bytes == "itest");
  CHECK(e.args[1] == 4242);
  CHECK(e.args[2] == 120);
  CHECK(e.args[3] == 1);
  CHECK(e.string_arg(4).bytes == "swapper/1");
  CHECK(e.args[6] == static_cast<uint64_t>(int64_t{-1}));
  // Cut short inside the raw data: skipped and counted, never a crash.
  for (size_t n = sizeof(perf_event_header); n < sample.size(); ++n) {
    std::vector<uint8_t> cut(sample.begin(), sample.begin() + static_cast<long>(n));
    perf_event_header ch{PERF_RECORD_SAMPLE, 0, static_cast<uint16_t>(n)};
    std::memcpy(cut.data(), &ch, sizeof ch);
    (void)decoder.decode(reinterpret_cast<const perf_event_header*>(cut.data()));
  }
  CHECK(decoder.malformed() > 0);
}
