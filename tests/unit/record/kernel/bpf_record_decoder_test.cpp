// The BPF capture records (record/kernel/bpf/capture_abi.h) decoded and
// packed as the sampled path's events; short and unknown records counted,
// never read past their end.
#include "record/kernel/bpf_record_decoder.h"

#include <catch2/catch.hpp>
#include <cstring>
#include <string>
#include <vector>

#include "record/kernel/bpf/capture_abi.h"

using namespace usdt;
using namespace usdt::record;

namespace {

struct RecordBuilder {
  std::vector<uint8_t> bytes;
  template <class T>
  void put(T v) {
    const size_t at = bytes.size();
    bytes.resize(at + sizeof v);
    std::memcpy(bytes.data() + at, &v, sizeof v);
  }
  void head(uint32_t site, uint16_t missing) {
    put<uint64_t>(123456789);  // time
    put<uint32_t>(40);         // pid
    put<uint32_t>(41);         // tid
    put<uint32_t>(site);
    put<uint16_t>(1);  // cpu
    put<uint16_t>(missing);
  }
  void string(const std::string& s, bool cut) {
    put<uint32_t>(static_cast<uint32_t>(s.size()) | (cut ? USDT_BPF_STRING_CUT : 0));
    bytes.insert(bytes.end(), s.begin(), s.end());
  }
  BpfRingRecord record() const { return {bytes.data(), static_cast<uint32_t>(bytes.size())}; }
};

}  // namespace

TEST_CASE("bpf records: numbers pack like the usual sample", "[bpf_record_decoder]") {
  BpfRecordDecoder d;
  d.set_site(3, 2, 0);
  RecordBuilder r;
  r.head(3, 0b10);
  r.put<uint64_t>(7);
  r.put<uint64_t>(0);
  uint64_t words[kPackedMaxWords];
  REQUIRE(d.pack(r.record(), words) == kPackedHeaderWords + 2);
  CHECK(words[0] == 123456789);
  CHECK(packed_pid(words) == 40);
  CHECK(packed_tid(words) == 41);
  CHECK(packed_site(words) == 3);
  CHECK(words[3] == packed_shape(2, 0b10, 0, 0, false));
  CHECK(words[4] == 7);
  REQUIRE(d.decode(r.record()));
  const format::Event& e = d.event();
  CHECK(e.time_ns == 123456789);
  CHECK(e.cpu == 1);
  CHECK(e.site_id == 3);
  CHECK(e.arg_count == 2);
  CHECK(e.args[0] == 7);
  CHECK(e.missing_mask == 0b10);
}

TEST_CASE("bpf records: strings, cut and missing", "[bpf_record_decoder]") {
  BpfRecordDecoder d;
  d.set_site(0, 3, 0b101);
  RecordBuilder r;
  r.head(0, 0b100);
  r.put<uint64_t>(0);
  r.put<uint64_t>(99);
  r.put<uint64_t>(0);
  r.string("SELECT 1", true);
  r.string("", false);  // missing: length 0, its bit set
  uint64_t words[kPackedMaxWords];
  CHECK(d.pack(r.record(), words) == 0);  // strings are decoded
  REQUIRE(d.decode(r.record()));
  const format::Event& e = d.event();
  CHECK(e.string_mask == 0b101);
  CHECK(e.has_arg(0));
  const auto* s = reinterpret_cast<const format::StringArg*>(e.args[0]);
  CHECK(s->bytes == "SELECT 1");
  CHECK(s->truncated);
  CHECK(e.args[1] == 99);
  CHECK_FALSE(e.has_arg(2));
}

TEST_CASE("bpf records: short, unknown and lying records are counted", "[bpf_record_decoder]") {
  BpfRecordDecoder d;
  d.set_site(0, 2, 0b01);
  RecordBuilder r;
  r.head(0, 0);
  r.put<uint64_t>(0);
  r.put<uint64_t>(5);
  r.string("abcdef", false);
  // Every cut of the record is malformed, never read past its end.
  for (uint32_t size = 0; size < r.bytes.size(); ++size) {
    INFO(size);
    std::vector<uint8_t> copy(r.bytes.begin(), r.bytes.begin() + size);
    CHECK_FALSE(d.decode({copy.data(), size}));
  }
  CHECK(d.malformed() == r.bytes.size());
  CHECK(d.decode(r.record()));
  RecordBuilder unknown;
  unknown.head(9, 0);
  CHECK_FALSE(d.decode(unknown.record()));
  uint64_t words[kPackedMaxWords];
  CHECK(d.pack(unknown.record(), words) == 0);
}

namespace {

// The stack part of a record (capture_abi.h), at the next multiple of 8.
void stack_part(RecordBuilder& r, const std::vector<uint64_t>& regs,
                const std::vector<uint8_t>& stack, uint32_t stack_size,
                const std::vector<uint64_t>& frames) {
  while (r.bytes.size() % 8 != 0) r.put<uint8_t>(0xee);
  r.put<uint32_t>(static_cast<uint32_t>(frames.size()));
  r.put<uint32_t>(stack_size);
  r.put<uint32_t>(static_cast<uint32_t>(stack.size()));
  r.put<uint32_t>(static_cast<uint32_t>(regs.size()));
  for (uint64_t v : regs) r.put(v);
  r.bytes.insert(r.bytes.end(), stack.begin(), stack.end());
  for (uint64_t v : frames) r.put(v);
}

}  // namespace

TEST_CASE("bpf records: an fp stack part gives the callchain, %rbp, %rsp and the window",
          "[bpf_record_decoder]") {
  BpfRecordDecoder d;
  d.set_call_graph(USDT_BPF_STACKS_FP);
  CallerRepair repair;
  repair.return_address_at = 8;
  d.set_site(0, 1, 0b1, repair);
  RecordBuilder r;
  r.head(0, 0);
  r.put<uint64_t>(0);
  r.string("abc", false);  // the stack part starts at the next multiple of 8
  std::vector<uint8_t> window(16, 0);
  window[8] = 0x42;
  stack_part(r, {0x7ffd0100, 0x7ffd0000}, window, 16, {0x401000, 0x402000, 0x403000});
  REQUIRE(d.decode(r.record()));
  const StackInputs& in = d.stack_inputs();
  REQUIRE(in.regs->present());
  CHECK(in.regs->get(x86_reg::bp) == 0x7ffd0100u);
  CHECK(in.regs->get(x86_reg::sp) == 0x7ffd0000u);
  CHECK(!in.regs->get(x86_reg::ip).has_value());
  REQUIRE(in.stack.size == 16);
  CHECK(in.stack.data[8] == 0x42);
  REQUIRE(in.callchain.nr == 3);
  CHECK(in.callchain.at(0) == 0x401000);
  CHECK(in.callchain.at(2) == 0x403000);
  CHECK(in.repair->return_address_at == 8);
  CHECK(std::string(d.event().args[0] != 0 ? "string" : "none") == "string");
}

TEST_CASE("bpf records: a dwarf stack part gives the 17 registers and the stack read",
          "[bpf_record_decoder]") {
  BpfRecordDecoder d;
  d.set_call_graph(USDT_BPF_STACKS_DWARF);
  d.set_site(0, 2, 0);
  RecordBuilder r;
  r.head(0, 0);
  r.put<uint64_t>(5);
  r.put<uint64_t>(6);
  std::vector<uint64_t> regs;
  for (uint64_t i = 0; i < USDT_BPF_DWARF_REGS; ++i) regs.push_back(100 + i);
  // 64 bytes of room, 40 read (the stack's mapping ended there).
  stack_part(r, regs, std::vector<uint8_t>(64, 7), 40, {});
  REQUIRE(d.decode(r.record()));
  const StackInputs& in = d.stack_inputs();
  CHECK(in.regs->get(x86_reg::ax) == 100u);
  CHECK(in.regs->get(x86_reg::ip) == 108u);
  CHECK(in.regs->get(16) == 109u);  // r8
  CHECK(in.regs->get(23) == 116u);  // r15
  CHECK(in.stack.size == 40);
  CHECK(in.callchain.nr == 0);
  CHECK(d.event().args[1] == 6);
}

TEST_CASE("bpf records: a stack part that does not fit is malformed, never read past",
          "[bpf_record_decoder]") {
  BpfRecordDecoder d;
  d.set_call_graph(USDT_BPF_STACKS_FP);
  d.set_site(0, 0, 0);
  auto decodes = [&d](const std::vector<uint64_t>& regs, uint32_t room, uint32_t size,
                      const std::vector<uint64_t>& frames, size_t cut) {
    RecordBuilder r;
    r.head(0, 0);
    stack_part(r, regs, std::vector<uint8_t>(room, 0), size, frames);
    r.bytes.resize(r.bytes.size() - cut);
    return d.decode(r.record());
  };
  CHECK(decodes({1, 2}, 16, 16, {3}, 0));
  CHECK(!decodes({1, 2}, 16, 16, {3}, 1));    // the last frame cut short
  CHECK(!decodes({1, 2, 3}, 16, 16, {}, 0));  // dwarf's registers in an fp recording
  CHECK(!decodes({1, 2}, 16, 24, {}, 0));     // more read than the room
  CHECK(!decodes({1, 2}, 12, 12, {}, 0));     // room not a multiple of 8
  RecordBuilder none;
  none.head(0, 0);
  CHECK(!d.decode(none.record()));  // no stack part at all
  CHECK(d.malformed() == 5);
}
