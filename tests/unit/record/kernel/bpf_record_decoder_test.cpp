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
