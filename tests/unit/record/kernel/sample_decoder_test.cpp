#include "record/kernel/sample_decoder.h"

#include <catch2/catch.hpp>
#include <cstring>
#include <vector>

using namespace usdt;
using namespace usdt::record;

namespace {

// Builds a perf record byte by byte, as the kernel lays it out.
struct RecordBuilder {
  std::vector<uint8_t> bytes;
  explicit RecordBuilder(uint32_t type, uint16_t misc = 0) {
    bytes.resize(sizeof(perf_event_header));
    perf_event_header h{type, misc, 0};
    std::memcpy(bytes.data(), &h, sizeof h);
  }
  RecordBuilder& u64(uint64_t v) { return raw(&v, 8); }
  RecordBuilder& u32(uint32_t v) { return raw(&v, 4); }
  RecordBuilder& raw(const void* p, size_t n) {
    // resize + memcpy: GCC 12 warns (-Warray-bounds) on an inlined insert.
    size_t at = bytes.size();
    bytes.resize(at + n);
    std::memcpy(bytes.data() + at, p, n);
    return *this;
  }
  // The sample_id_all trailer: pid, tid, time, cpu, res, identifier.
  RecordBuilder& trailer(uint32_t pid, uint32_t tid, uint64_t time, uint32_t cpu, uint64_t id) {
    return u32(pid).u32(tid).u64(time).u32(cpu).u32(0).u64(id);
  }
  const perf_event_header* done() {
    uint16_t size = static_cast<uint16_t>(bytes.size());
    std::memcpy(bytes.data() + 6, &size, 2);
    return reinterpret_cast<const perf_event_header*>(bytes.data());
  }
};

uint64_t bit(int16_t r) { return uint64_t{1} << r; }

SiteDecoding site(uint32_t id, const char* args, uint64_t regs, uint32_t stack) {
  SiteDecoding d;
  d.site_id = id;
  d.args = parse_arg_specs(args, Arch::x86_64);
  for (const ArgSpec& a : d.args) {
    ArgSource s = arg_source(a, Arch::x86_64);
    d.sources.push_back(s);
  }
  d.regs_mask = regs;
  d.stack_bytes = stack;
  return d;
}

}  // namespace

TEST_CASE("decode_arg: sizes, signs and sub-registers", "[sample_decoder]") {
  SampledRegs regs;
  regs.set_layout(bit(x86_reg::ax) | bit(x86_reg::dx));
  uint64_t values[2] = {0xfffffffffffffff6ull /* rax = -10 */, 0x1122334455667788ull};
  regs.set_values(reinterpret_cast<const uint8_t*>(values), true);
  StackDump none;
  auto dec = [&](const char* text) {
    ArgSpec a = parse_arg_spec(text, Arch::x86_64);
    return decode_arg(a, arg_source(a, Arch::x86_64), regs, none, x86_reg::sp);
  };
  CHECK(*dec("-4@%eax") == static_cast<uint64_t>(int64_t{-10}));
  CHECK(*dec("4@%eax") == 0xfffffff6u);
  CHECK(*dec("1@%al") == 0xf6);
  CHECK(*dec("-1@%al") == static_cast<uint64_t>(int64_t{-10}));
  CHECK(*dec("2@%ax") == 0xfff6);
  CHECK(*dec("-2@%ax") == static_cast<uint64_t>(int64_t{-10}));
  CHECK(*dec("1@%ah") == 0xff);
  CHECK(*dec("-8@%rax") == static_cast<uint64_t>(int64_t{-10}));
  CHECK(*dec("8@%rdx") == 0x1122334455667788ull);
  CHECK(*dec("-1@%dl") == 0xffffffffffffff88ull);
  CHECK(*dec("1@%dh") == 0x77);
  CHECK(*dec("-4@$-5") == static_cast<uint64_t>(int64_t{-5}));
  CHECK(*dec("1@$-1") == 0xff);            // GCC writes negative literals for unsigned operands
  CHECK_FALSE(dec("8@%rcx").has_value());  // not sampled
  CHECK_FALSE(dec("4@60(%rax)").has_value());
}

TEST_CASE("decode_arg: no user registers means missing", "[sample_decoder]") {
  SampledRegs regs;
  regs.set_layout(bit(x86_reg::ax));
  regs.set_values(nullptr, false);
  ArgSpec a = parse_arg_spec("8@%rax", Arch::x86_64);
  CHECK_FALSE(decode_arg(a, ArgSource::sampled_register, regs, {}, x86_reg::sp).has_value());
}

TEST_CASE("decode_arg: stack operands read only inside the dump", "[sample_decoder]") {
  SampledRegs regs;
  regs.set_layout(bit(x86_reg::bp) | bit(x86_reg::sp));
  const uint64_t sp = 0x7ffc0000, bp = sp + 32;
  uint64_t values[2] = {bp, sp};
  regs.set_values(reinterpret_cast<const uint8_t*>(values), true);
  uint8_t stack[32];
  for (int i = 0; i < 32; ++i) stack[i] = static_cast<uint8_t>(0xa0 + i);
  StackDump dump{stack, 32};
  auto dec = [&](const char* text, StackDump d) {
    ArgSpec a = parse_arg_spec(text, Arch::x86_64);
    return decode_arg(a, ArgSource::sampled_stack, regs, d, x86_reg::sp);
  };
  CHECK(*dec("1@0(%rsp)", dump) == 0xa0);
  CHECK(*dec("-1@0(%rsp)", dump) == 0xffffffffffffffa0ull);
  CHECK(*dec("2@8(%rsp)", dump) == 0xa9a8);
  CHECK(*dec("8@24(%rsp)", dump) == 0xbfbebdbcbbbab9b8ull);
  CHECK(*dec("8@-8(%rbp)", dump) == 0xbfbebdbcbbbab9b8ull);
  CHECK_FALSE(dec("8@25(%rsp)", dump).has_value());  // runs past the dump
  CHECK_FALSE(dec("8@-8(%rsp)", dump).has_value());  // red zone
  CHECK_FALSE(dec("8@-48(%rbp)", dump).has_value());
  CHECK_FALSE(dec("4@0(%rbp)", dump).has_value());
  // dyn_size shorter than the dump: only dyn_size bytes are valid.
  CHECK_FALSE(dec("8@8(%rsp)", StackDump{stack, 12}).has_value());
  CHECK(*dec("4@8(%rsp)", StackDump{stack, 12}) == 0xabaaa9a8u);
  CHECK_FALSE(dec("1@0(%rsp)", StackDump{}).has_value());
}

TEST_CASE("with one site, records need no identifier", "[sample_decoder]") {
  std::vector<SiteDecoding> sites;
  sites.push_back(site(0, "8@%rdi", bit(x86_reg::di), 0));
  SampleDecoder decoder(std::move(sites), false);
  decoder.add_event(100, 0);
  RecordBuilder r(PERF_RECORD_SAMPLE);
  r.u32(42).u32(43).u64(1000).u32(1).u32(0).u64(PERF_SAMPLE_REGS_ABI_64).u64(5);
  REQUIRE(decoder.decode(r.done()) == SampleDecoder::Kind::event);
  CHECK(decoder.event().site_id == 0);
  CHECK(decoder.event().pid == 42);
  CHECK(decoder.event().args[0] == 5);
  // The trailer is 24 bytes: pid, tid, time, cpu, res.
  RecordBuilder comm(PERF_RECORD_COMM);
  comm.u32(42).u32(43).raw("prog\0\0\0\0", 8).u32(42).u32(43).u64(2000).u32(1).u32(0);
  REQUIRE(decoder.decode(comm.done()) == SampleDecoder::Kind::process);
  CHECK(decoder.record_time(comm.done()) == 2000u);
  CHECK(decoder.record_time(r.done()) == 1000u);  // without identifier
  CHECK(decoder.process().time_ns == 2000);
  CHECK(decoder.process().comm == "prog");
  RecordBuilder lost(PERF_RECORD_LOST);
  lost.u64(100).u64(9).u32(0).u32(0).u64(3000).u32(1).u32(0);
  REQUIRE(decoder.decode(lost.done()) == SampleDecoder::Kind::lost);
  CHECK(decoder.lost().site_id == 0);
  CHECK(decoder.lost().count == 9);
  CHECK(decoder.lost().time_end_ns == 3000);
  CHECK(decoder.lost().cpu == 1);
}

TEST_CASE("a registers-only site decodes as the general path does", "[sample_decoder]") {
  // The same arguments, all in registers; the second site also samples 16
  // bytes of stack, which sends its samples down the general path.
  const char* args = "-4@%eax 8@%rdi 1@%ah 2@%si -1@%al";
  const uint64_t regs = bit(x86_reg::ax) | bit(x86_reg::si) | bit(x86_reg::di);
  std::vector<SiteDecoding> sites;
  sites.push_back(site(0, args, regs, 0));
  sites.push_back(site(1, args, regs, 16));
  SampleDecoder decoder(std::move(sites), true);
  decoder.add_event(100, 0);
  decoder.add_event(101, 1);
  auto sample = [](uint64_t id, uint64_t abi, uint64_t ax, uint64_t si, uint64_t di) {
    RecordBuilder r(PERF_RECORD_SAMPLE);
    r.u64(id).u32(42).u32(43).u64(5000 + id).u32(1).u32(0).u64(abi);
    if (abi != PERF_SAMPLE_REGS_ABI_NONE) r.u64(ax).u64(si).u64(di);  // mask order
    if (id == 101) {
      uint8_t stack[16] = {};
      r.u64(16).raw(stack, 16).u64(16);
    }
    return r;
  };
  for (uint64_t abi : {uint64_t{PERF_SAMPLE_REGS_ABI_64}, uint64_t{PERF_SAMPLE_REGS_ABI_NONE}}) {
    for (uint64_t ax : {uint64_t{0}, uint64_t{0xffffffff8000ff80}, uint64_t{0x1234567f}}) {
      RecordBuilder fast = sample(100, abi, ax, 0xfffe0001, 77);
      RecordBuilder general = sample(101, abi, ax, 0xfffe0001, 77);
      REQUIRE(decoder.decode(fast.done()) == SampleDecoder::Kind::event);
      const format::Event a = decoder.event();
      REQUIRE(decoder.decode(general.done()) == SampleDecoder::Kind::event);
      const format::Event& b = decoder.event();
      CHECK(a.site_id == 0);
      CHECK(b.site_id == 1);
      CHECK(a.pid == b.pid);
      CHECK(a.tid == b.tid);
      CHECK(a.cpu == b.cpu);
      CHECK(a.time_ns + 1 == b.time_ns);
      REQUIRE(a.arg_count == 5);
      CHECK(a.arg_count == b.arg_count);
      CHECK(a.missing_mask == b.missing_mask);
      CHECK(a.string_mask == b.string_mask);
      for (int i = 0; i < format::kMaxArgs; ++i) CHECK(a.args[i] == b.args[i]);
      CHECK(decoder.sample_regs().present() == (abi != PERF_SAMPLE_REGS_ABI_NONE));
    }
  }
  // One case by hand: the values, not only their agreement.
  RecordBuilder r = sample(100, PERF_SAMPLE_REGS_ABI_64, 0xffffffff8000ff80, 0xfffe0001, 77);
  REQUIRE(decoder.decode(r.done()) == SampleDecoder::Kind::event);
  const format::Event& e = decoder.event();
  CHECK(e.args[0] == static_cast<uint64_t>(int64_t{INT32_MIN} + 0xff80));
  CHECK(e.args[1] == 77);
  CHECK(e.args[2] == 0xff);  // %ah: bits 8-15
  CHECK(e.args[3] == 1);     // %si: 2 bytes, unsigned
  CHECK(e.args[4] == static_cast<uint64_t>(int64_t{-128}));
  // Cut anywhere before its registers' end, a registers-only sample is malformed.
  const perf_event_header* h = r.done();
  std::vector<uint8_t> whole(reinterpret_cast<const uint8_t*>(h),
                             reinterpret_cast<const uint8_t*>(h) + h->size);
  const uint64_t malformed = decoder.malformed();
  for (size_t cut = sizeof(perf_event_header) + 8; cut < whole.size(); ++cut) {
    std::vector<uint8_t> t(whole.begin(), whole.begin() + static_cast<std::ptrdiff_t>(cut));
    uint16_t size = static_cast<uint16_t>(cut);
    std::memcpy(t.data() + 6, &size, 2);
    CHECK(decoder.decode(reinterpret_cast<const perf_event_header*>(t.data())) ==
          SampleDecoder::Kind::none);
  }
  CHECK(decoder.malformed() - malformed == whole.size() - sizeof(perf_event_header) - 8);
}

TEST_CASE("the usual sample packs as it decodes, and only the usual sample packs",
          "[sample_decoder]") {
  const char* args = "-4@%eax 8@%rdi 1@%ah 2@%si -1@%al";
  const uint64_t regs = bit(x86_reg::ax) | bit(x86_reg::si) | bit(x86_reg::di);
  std::vector<SiteDecoding> sites;
  sites.push_back(site(0, args, regs, 0));
  sites.push_back(site(1, args, regs, 16));  // samples stack too: not registers-only
  SampleDecoder decoder(std::move(sites), true);
  decoder.add_event(100, 0);
  decoder.add_event(101, 1);
  auto sample = [](uint64_t id, uint64_t abi, uint64_t ax) {
    RecordBuilder r(PERF_RECORD_SAMPLE);
    r.u64(id).u32(42).u32(43).u64(5000 + id).u32(1).u32(0).u64(abi);
    if (abi != PERF_SAMPLE_REGS_ABI_NONE) r.u64(ax).u64(0xfffe0001).u64(77);
    if (id == 101) {
      uint8_t stack[16] = {};
      r.u64(16).raw(stack, 16).u64(16);
    }
    return r;
  };
  uint64_t out[kPackedMaxWords];
  RecordBuilder first = sample(100, PERF_SAMPLE_REGS_ABI_64, 1);
  // Not the last sample's site yet: the decoder has not looked its id up.
  CHECK(decoder.pack_usual(first.done(), out) == 0);
  REQUIRE(decoder.decode(first.done()) == SampleDecoder::Kind::event);
  for (uint64_t ax : {uint64_t{0}, uint64_t{0xffffffff8000ff80}, uint64_t{0x1234567f}}) {
    RecordBuilder r = sample(100, PERF_SAMPLE_REGS_ABI_64, ax);
    REQUIRE(decoder.pack_usual(r.done(), out) == kPackedHeaderWords + 5);
    REQUIRE(decoder.decode(r.done()) == SampleDecoder::Kind::event);
    const format::Event& e = decoder.event();
    CHECK(out[0] == e.time_ns);
    CHECK(packed_pid(out) == e.pid);
    CHECK(packed_tid(out) == e.tid);
    CHECK(static_cast<uint32_t>(out[2]) == e.cpu);
    CHECK(packed_site(out) == e.site_id);
    CHECK(out[3] == packed_shape(5, 0, 0, 0, false));
    for (int i = 0; i < 5; ++i) CHECK(out[kPackedHeaderWords + i] == e.args[i]);
  }
  // Without user registers every argument is missing: decode() says so.
  RecordBuilder none = sample(100, PERF_SAMPLE_REGS_ABI_NONE, 0);
  CHECK(decoder.pack_usual(none.done(), out) == 0);
  // Another site's sample, a short one, another kind of record: not packed.
  RecordBuilder other = sample(101, PERF_SAMPLE_REGS_ABI_64, 1);
  CHECK(decoder.pack_usual(other.done(), out) == 0);
  REQUIRE(decoder.decode(other.done()) == SampleDecoder::Kind::event);
  CHECK(decoder.pack_usual(other.done(), out) == 0);  // its site now, but not registers-only
  RecordBuilder r = sample(100, PERF_SAMPLE_REGS_ABI_64, 1);
  const perf_event_header* h = r.done();
  std::vector<uint8_t> cut(reinterpret_cast<const uint8_t*>(h),
                           reinterpret_cast<const uint8_t*>(h) + h->size - 8);
  uint16_t size = static_cast<uint16_t>(cut.size());
  std::memcpy(cut.data() + 6, &size, 2);
  CHECK(decoder.pack_usual(reinterpret_cast<const perf_event_header*>(cut.data()), out) == 0);
  RecordBuilder lost(PERF_RECORD_LOST);
  lost.u64(100).u64(3);
  CHECK(decoder.pack_usual(lost.done(), out) == 0);
}

TEST_CASE("a sample decodes to an event of its site", "[sample_decoder]") {
  std::vector<SiteDecoding> sites;
  sites.push_back(site(0, "-4@%eax 8@%rdi 4@$7", bit(x86_reg::ax) | bit(x86_reg::di), 0));
  sites.push_back(site(1, "-4@8(%rsp) 8@-8(%rsp)", bit(x86_reg::sp), 16));
  SampleDecoder decoder(std::move(sites), true);
  decoder.add_event(100, 0);
  decoder.add_event(101, 1);
  decoder.add_event(200, format::kNoSite);

  SECTION("registers, in mask order") {
    RecordBuilder r(PERF_RECORD_SAMPLE);
    r.u64(100).u32(42).u32(43).u64(123456789).u32(1).u32(0);
    r.u64(PERF_SAMPLE_REGS_ABI_64).u64(0xffffffff80000000ull /* rax */).u64(77 /* rdi */);
    REQUIRE(decoder.decode(r.done()) == SampleDecoder::Kind::event);
    CHECK(decoder.record_time(r.done()) == 123456789u);
    const format::Event& e = decoder.event();
    CHECK(e.site_id == 0);
    CHECK(e.pid == 42);
    CHECK(e.tid == 43);
    CHECK(e.time_ns == 123456789);
    CHECK(e.cpu == 1);
    REQUIRE(e.arg_count == 3);
    CHECK(e.missing_mask == 0);
    CHECK(e.args[0] == static_cast<uint64_t>(int64_t{INT32_MIN}));
    CHECK(e.args[1] == 77);
    CHECK(e.args[2] == 7);
  }
  SECTION("stack dump") {
    RecordBuilder r(PERF_RECORD_SAMPLE);
    r.u64(101).u32(1).u32(2).u64(5).u32(0).u32(0);
    r.u64(PERF_SAMPLE_REGS_ABI_64).u64(0x1000 /* sp */);
    uint8_t stack[16] = {};
    int32_t v = -99;
    std::memcpy(stack + 8, &v, 4);
    r.u64(16).raw(stack, 16).u64(16);
    REQUIRE(decoder.decode(r.done()) == SampleDecoder::Kind::event);
    const format::Event& e = decoder.event();
    CHECK(e.site_id == 1);
    CHECK(e.args[0] == static_cast<uint64_t>(int64_t{-99}));
    CHECK(e.has_arg(0));
    CHECK_FALSE(e.has_arg(1));  // below %rsp
    CHECK(e.missing_mask == 2);
    CHECK(decoder.stack_misses()[1][1] == 1);
  }
  SECTION("a kernel thread's sample has no registers: all missing") {
    RecordBuilder r(PERF_RECORD_SAMPLE);
    r.u64(100).u32(1).u32(1).u64(5).u32(0).u32(0).u64(PERF_SAMPLE_REGS_ABI_NONE);
    REQUIRE(decoder.decode(r.done()) == SampleDecoder::Kind::event);
    CHECK(decoder.event().missing_mask == 3);
    CHECK(decoder.event().args[2] == 7);
  }
  SECTION("unknown id and truncated samples are skipped and counted") {
    RecordBuilder unknown(PERF_RECORD_SAMPLE);
    unknown.u64(999).u32(1).u32(1).u64(5).u32(0).u32(0);
    CHECK(decoder.decode(unknown.done()) == SampleDecoder::Kind::none);
    CHECK(decoder.unknown_ids() == 1);
    RecordBuilder full(PERF_RECORD_SAMPLE);
    full.u64(100).u32(42).u32(43).u64(1).u32(1).u32(0).u64(2).u64(1).u64(2);
    const perf_event_header* h = full.done();
    std::vector<uint8_t> copy(reinterpret_cast<const uint8_t*>(h),
                              reinterpret_cast<const uint8_t*>(h) + h->size);
    for (size_t cut = sizeof(perf_event_header); cut < copy.size(); ++cut) {
      std::vector<uint8_t> t(copy.begin(), copy.begin() + static_cast<std::ptrdiff_t>(cut));
      uint16_t size = static_cast<uint16_t>(cut);
      std::memcpy(t.data() + 6, &size, 2);
      CHECK(decoder.decode(reinterpret_cast<const perf_event_header*>(t.data())) ==
            SampleDecoder::Kind::none);
    }
    CHECK(decoder.malformed() == copy.size() - sizeof(perf_event_header));
  }
  SECTION("a full ring's losses belong to no site when several share it") {
    RecordBuilder sample(PERF_RECORD_SAMPLE);
    sample.u64(100).u32(1).u32(1).u64(1000).u32(1).u32(0).u64(2).u64(1).u64(2);
    REQUIRE(decoder.decode(sample.done()) == SampleDecoder::Kind::event);
    // The id is that of the event that wrote next (site 1), not of those
    // that lost: the kernel counts per ring.
    RecordBuilder r(PERF_RECORD_LOST);
    r.u64(101).u64(17).trailer(0, 0, 2000, 1, 101);
    REQUIRE(decoder.decode(r.done()) == SampleDecoder::Kind::lost);
    CHECK(decoder.lost().site_id == format::kNoSite);
    CHECK(decoder.lost().count == 17);
    CHECK(decoder.lost().cpu == 1);
    CHECK(decoder.lost().time_begin_ns == 1000);
    CHECK(decoder.lost().time_end_ns == 2000);
    RecordBuilder other(PERF_RECORD_LOST);
    other.u64(555).u64(3).trailer(0, 0, 2500, 0, 555);
    REQUIRE(decoder.decode(other.done()) == SampleDecoder::Kind::lost);
    CHECK(decoder.lost().site_id == format::kNoSite);
    CHECK(decoder.lost().time_begin_ns == 2500);
  }
  SECTION("comm, exec, fork and exit") {
    RecordBuilder comm(PERF_RECORD_COMM, PERF_RECORD_MISC_COMM_EXEC);
    comm.u32(10).u32(11).raw("worker\0\0", 8).trailer(10, 11, 77, 0, 200);
    REQUIRE(decoder.decode(comm.done()) == SampleDecoder::Kind::process);
    CHECK(decoder.process().kind == format::ProcessEventKind::exec);
    CHECK(decoder.process().comm == "worker");
    CHECK(decoder.process().pid == 10);
    CHECK(decoder.process().tid == 11);
    CHECK(decoder.process().time_ns == 77);

    RecordBuilder fork(PERF_RECORD_FORK);
    fork.u32(20).u32(10).u32(21).u32(11).u64(88).trailer(20, 21, 88, 0, 200);
    REQUIRE(decoder.decode(fork.done()) == SampleDecoder::Kind::process);
    CHECK(decoder.process().kind == format::ProcessEventKind::fork);
    CHECK(decoder.process().pid == 20);
    CHECK(decoder.process().parent_pid == 10);
    CHECK(decoder.process().tid == 21);
    CHECK(decoder.process().parent_tid == 11);
    CHECK(decoder.process().time_ns == 88);

    RecordBuilder exit(PERF_RECORD_EXIT);
    exit.u32(20).u32(10).u32(21).u32(11).u64(99).trailer(20, 21, 99, 0, 200);
    REQUIRE(decoder.decode(exit.done()) == SampleDecoder::Kind::process);
    CHECK(decoder.process().kind == format::ProcessEventKind::exit);
    CHECK(decoder.process().parent_pid == 0);
  }
  SECTION("other record kinds are ignored") {
    RecordBuilder r(PERF_RECORD_THROTTLE);
    r.u64(1).u64(100).u64(0).trailer(0, 0, 1, 0, 100);
    CHECK(decoder.decode(r.done()) == SampleDecoder::Kind::none);
    CHECK(decoder.ignored() == 1);
  }
}

namespace {

// A tracefs event's raw data: the 16-byte entry header, then fields placed
// by the test, then the dynamic area.
struct RawBuilder {
  std::vector<uint8_t> data = std::vector<uint8_t>(64, 0);
  void value(size_t at, uint64_t v, size_t size) { std::memcpy(data.data() + at, &v, size); }
  // A __data_loc at `at` for bytes appended to the dynamic area (length as
  // the kernel counts it, NUL included; 0 = a fault).
  void string(size_t at, const std::string& bytes, bool fault = false) {
    uint32_t offset = static_cast<uint32_t>(data.size());
    uint32_t length = fault ? 0 : static_cast<uint32_t>(bytes.size() + 1);
    if (!fault) {
      data.insert(data.end(), bytes.begin(), bytes.end());
      data.push_back(0);
    }
    uint32_t loc = offset | length << 16;
    std::memcpy(data.data() + at, &loc, 4);
  }
};

}  // namespace

TEST_CASE("decode_raw_arg: kernel reads, their faults and strings", "[sample_decoder]") {
  ArgSpec heap = parse_arg_spec("-4@60(%rax)", Arch::x86_64);
  RawArg value;
  value.value = 16;
  value.size = 4;
  value.first = 24;
  value.last = 28;
  format::StringArg s;

  SECTION("a value is sign-extended by its spec") {
    RawBuilder b;
    b.value(16, 0xfffffff6u, 4);
    b.string(24, "\xf6\xff\xff\xff");
    b.string(28, "\xff");
    auto v = decode_raw_arg(heap, value, b.data.data(), b.data.size(), 256, &s);
    REQUIRE(v);
    CHECK(*v == static_cast<uint64_t>(int64_t{-10}));
  }
  SECTION("a real 0 is present: its first and last bytes read as empty strings") {
    RawBuilder b;
    b.string(24, "");
    b.string(28, "");
    auto v = decode_raw_arg(heap, value, b.data.data(), b.data.size(), 256, &s);
    REQUIRE(v);
    CHECK(*v == 0);
  }
  SECTION("a faulted read (0 and a detector of length 0) is missing") {
    RawBuilder b;
    b.string(24, "", true);
    b.string(28, "", true);
    CHECK_FALSE(decode_raw_arg(heap, value, b.data.data(), b.data.size(), 256, &s));
    // The value straddles into an unmapped page: only the last byte faults.
    RawBuilder c;
    c.string(24, "");
    c.string(28, "", true);
    CHECK_FALSE(decode_raw_arg(heap, value, c.data.data(), c.data.size(), 256, &s));
  }
  SECTION("strings: text, empty, NULL or fault, cut at --string-bytes") {
    RawArg str;
    str.value = 16;
    str.string = true;
    ArgSpec ptr = parse_arg_spec("8@%rdi", Arch::x86_64);
    RawBuilder b;
    b.string(16, "SELECT 1");
    auto v = decode_raw_arg(ptr, str, b.data.data(), b.data.size(), 256, &s);
    REQUIRE(v);
    CHECK(*v == reinterpret_cast<uint64_t>(&s));
    CHECK(s.bytes == "SELECT 1");
    CHECK_FALSE(s.truncated);
    REQUIRE(decode_raw_arg(ptr, str, b.data.data(), b.data.size(), 6, &s));
    CHECK(s.bytes == "SELECT");
    CHECK(s.truncated);
    RawBuilder empty;
    empty.string(16, "");
    REQUIRE(decode_raw_arg(ptr, str, empty.data.data(), empty.data.size(), 256, &s));
    CHECK(s.bytes.empty());
    RawBuilder null;
    null.string(16, "", true);
    CHECK_FALSE(decode_raw_arg(ptr, str, null.data.data(), null.data.size(), 256, &s));
  }
  SECTION("offsets outside the record are missing, never read") {
    RawBuilder b;
    RawArg bad = value;
    bad.value = 62;
    CHECK_FALSE(decode_raw_arg(heap, bad, b.data.data(), b.data.size(), 256, &s));
    RawArg str;
    str.value = 16;
    str.string = true;
    uint32_t loc = 60 | 100u << 16;  // runs past the end
    b.value(16, loc, 4);
    CHECK_FALSE(decode_raw_arg(heap, str, b.data.data(), b.data.size(), 256, &s));
  }
}

TEST_CASE("a callchain (-g fp) is read between the period and the registers", "[sample_decoder]") {
  std::vector<SiteDecoding> sites;
  SiteDecoding d = site(0, "8@%rdi", bit(x86_reg::di), 0);
  d.callchain = true;
  sites.push_back(d);
  SampleDecoder decoder(std::move(sites), false);
  RecordBuilder r(PERF_RECORD_SAMPLE);
  r.u32(42).u32(43).u64(1000).u32(1).u32(0);
  r.u64(3).u64(static_cast<uint64_t>(PERF_CONTEXT_USER)).u64(0x401000).u64(0x401234);
  r.u64(PERF_SAMPLE_REGS_ABI_64).u64(5);
  REQUIRE(decoder.decode(r.done()) == SampleDecoder::Kind::event);
  CHECK(decoder.event().args[0] == 5);
  const Callchain& chain = decoder.sample_callchain();
  REQUIRE(chain.nr == 3);
  CHECK(chain.at(0) == static_cast<uint64_t>(PERF_CONTEXT_USER));
  CHECK(chain.at(2) == 0x401234);

  RecordBuilder bad(PERF_RECORD_SAMPLE);
  bad.u32(42).u32(43).u64(1000).u32(1).u32(0).u64(1000).u64(1);  // nr beyond the record
  CHECK(decoder.decode(bad.done()) == SampleDecoder::Kind::none);
  CHECK(decoder.malformed() == 1);
}

TEST_CASE("arguments decode the same with -g dwarf's registers and bigger stack copy",
          "[sample_decoder]") {
  // The site's own plan: %rdi and 16 bytes of stack for 8(%rsp).
  SiteDecoding plain = site(0, "8@%rdi -4@8(%rsp)", bit(x86_reg::di) | bit(x86_reg::sp), 16);
  SiteDecoding dwarf = plain;
  dwarf.regs_mask |= 0x1ffull | (0xffull << 16);  // kUnwindRegsMask
  dwarf.stack_bytes = 8192;
  SampleDecoder decoder({dwarf}, false);
  RecordBuilder r(PERF_RECORD_SAMPLE);
  r.u32(42).u32(43).u64(1000).u32(1).u32(0).u64(PERF_SAMPLE_REGS_ABI_64);
  // 17 registers in perf order: ax bx cx dx si di bp sp ip r8..r15.
  for (int reg = 0; reg < 24; ++reg) {
    if (reg >= 9 && reg < 16) continue;
    uint64_t v = reg == x86_reg::di ? 77 : reg == x86_reg::sp ? 0x7ffc0000 : 1000 + reg;
    r.u64(v);
  }
  std::vector<uint8_t> stack(8192, 0xee);
  int32_t v = -99;
  std::memcpy(stack.data() + 8, &v, 4);
  r.u64(8192).raw(stack.data(), stack.size()).u64(8192);
  REQUIRE(decoder.decode(r.done()) == SampleDecoder::Kind::event);
  CHECK(decoder.event().missing_mask == 0);
  CHECK(decoder.event().args[0] == 77);
  CHECK(decoder.event().args[1] == static_cast<uint64_t>(int64_t{-99}));
  CHECK(decoder.sample_regs().get(x86_reg::ip) == 1008u);
  CHECK(decoder.sample_regs().get(x86_reg::r8 + 7) == 1023u);
  CHECK(decoder.sample_stack().size == 8192);
}

TEST_CASE("executable MMAP2 records become mmap process events", "[sample_decoder]") {
  SampleDecoder decoder({site(0, "", 0, 0)}, true);
  auto mmap2 = [](uint16_t misc, uint32_t prot, const char* name, size_t name_bytes) {
    RecordBuilder r(PERF_RECORD_MMAP2, misc);
    r.u32(7).u32(8).u64(0x7f0000001000).u64(0x2000).u64(0x1000);
    uint8_t id[24] = {20};
    for (int i = 0; i < 20; ++i) id[4 + i] = static_cast<uint8_t>(0xa0 + i);
    r.raw(id, sizeof id).u32(prot).u32(2 /* MAP_PRIVATE */).raw(name, name_bytes);
    r.trailer(7, 8, 555, 1, 0);
    return r;
  };
  RecordBuilder with_id = mmap2(PERF_RECORD_MISC_MMAP_BUILD_ID, 5, "/lib/libx.so\0\0\0\0", 16);
  REQUIRE(decoder.decode(with_id.done()) == SampleDecoder::Kind::process);
  const format::ProcessEvent& p = decoder.process();
  CHECK(p.kind == format::ProcessEventKind::mmap);
  CHECK(p.pid == 7);
  CHECK(p.tid == 8);
  CHECK(p.time_ns == 555);
  CHECK(p.map_address == 0x7f0000001000);
  CHECK(p.map_length == 0x2000);
  CHECK(p.map_file_offset == 0x1000);
  CHECK(p.path == "/lib/libx.so");
  CHECK(p.build_id == "a0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3");

  RecordBuilder no_id = mmap2(0, 5, "/lib/liby.so\0\0\0\0", 16);
  REQUIRE(decoder.decode(no_id.done()) == SampleDecoder::Kind::process);
  CHECK(decoder.process().build_id.empty());  // maj/min/inode instead

  RecordBuilder data = mmap2(0, 3, "/lib/liby.so\0\0\0\0", 16);  // not PROT_EXEC
  CHECK(decoder.decode(data.done()) == SampleDecoder::Kind::none);
  RecordBuilder cut(PERF_RECORD_MMAP2);
  cut.u32(7).u32(8).u64(1);
  CHECK(decoder.decode(cut.done()) == SampleDecoder::Kind::none);
  CHECK(decoder.malformed() == 1);
}
