// Exact argument values at the hit, read back through the trace reader:
// memory operands the kernel reads (heap, globals through %rip, absolute
// addresses, a pointer into an unmapped page), strings (--string,
// --string-bytes), stack operands far from %rsp and %rbp, and the operand
// forms GCC does not emit through <sys/sdt.h>. The expected value of every
// argument at iteration i is the one each fixture program's opening comment
// gives (tests/integration/programs/itest_*.c); `PROGRAM N print` prints them.
// Root only: hidden cases ([.root]) with a CTest entry each.
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "formats/trace_reader.h"
#include "integration_support.h"

using usdt::format::Event;
using namespace usdt::itest;

namespace {

using Texts = std::vector<std::string>;

uint64_t u(long v) { return static_cast<uint64_t>(v); }

// One event with its arguments as text: a number in decimal (signed when
// the site's descriptor says so), a string quoted with \xHH escapes and
// "(cut)" after it when truncated, "null" when missing. Copied out of the
// reader, so that string bytes outlive its next().
struct Hit {
  uint32_t site_id = 0;
  Texts args;
};

struct Recording {
  std::vector<usdt::format::ProbeSite> sites;
  std::vector<Hit> hits;
  uint64_t lost = 0;
  std::optional<usdt::format::TraceSummary> summary;

  std::vector<uint32_t> site_ids(const std::string& provider, const std::string& name) const {
    std::vector<uint32_t> ids;
    for (const auto& site : sites) {
      if (site.provider == provider && site.name == name) ids.push_back(site.id);
    }
    return ids;
  }
};

std::string quoted(std::string_view bytes) {
  std::string text = "\"";
  for (char c : bytes) {
    const auto b = static_cast<unsigned char>(c);
    if (c == '\\' || c == '"') {
      text += '\\';
      text += c;
    } else if (b >= 0x20 && b <= 0x7e) {
      text += c;
    } else {
      char hex[8];
      std::snprintf(hex, sizeof hex, "\\x%02x", b);
      text += hex;
    }
  }
  return text + "\"";
}

// The expected texts.
std::string num(int64_t v) { return std::to_string(v); }
std::string unum(uint64_t v) { return std::to_string(v); }
std::string str(std::string_view bytes, bool cut = false) {
  return quoted(bytes) + (cut ? "(cut)" : "");
}
const std::string kNull = "null";

Recording read_recording(const std::string& path) {
  usdt::Result<usdt::format::TraceReader> reader = usdt::format::TraceReader::open(path);
  if (!reader) FAIL("cannot open trace: " << reader.error().message());
  Recording rec;
  rec.sites = reader->sites();
  while (reader->next()) {
    if (reader->kind() == usdt::format::RecordKind::lost) rec.lost += reader->lost().count;
    if (reader->kind() != usdt::format::RecordKind::event) continue;
    const Event& e = reader->event();
    REQUIRE(e.site_id < rec.sites.size());
    const usdt::format::ProbeSite& site = rec.sites[e.site_id];
    Hit hit;
    hit.site_id = e.site_id;
    for (int j = 0; j < e.arg_count; ++j) {
      if (!e.has_arg(j)) {
        hit.args.push_back(kNull);
      } else if (e.is_string(j)) {
        hit.args.push_back(str(e.string_arg(j).bytes, e.string_arg(j).truncated));
      } else if (static_cast<size_t>(j) < site.args.size() &&
                 site.args[static_cast<size_t>(j)].is_signed) {
        hit.args.push_back(num(static_cast<int64_t>(e.args[j])));
      } else {
        hit.args.push_back(unum(e.args[j]));
      }
    }
    rec.hits.push_back(std::move(hit));
  }
  rec.summary = reader->summary();
  return rec;
}

std::string joined(const std::vector<std::string>& words) {
  std::string text;
  for (const std::string& w : words) text += (text.empty() ? "" : " ") + w;
  return text;
}

// Records PROGRAM N with the options given; the command must end with
// status 0 and nothing may be lost.
Recording record_program(const std::string& name, long n, const std::vector<std::string>& options) {
  std::string out = temp_trace(name);
  std::vector<std::string> argv = {recorder()};
  argv.insert(argv.end(), options.begin(), options.end());
  for (const std::string& a :
       {std::string("-o"), out, std::string("--"), program(name), std::to_string(n)}) {
    argv.push_back(a);
  }
  RunResult r = run(argv);
  INFO("command: " << joined(argv));
  INFO("stderr: " << r.err);
  REQUIRE(r.status == 0);
  Recording rec = read_recording(out);
  unlink(out.c_str());
  CHECK(rec.lost == 0);
  REQUIRE(rec.summary);
  CHECK(rec.summary->events == rec.hits.size());
  return rec;
}

// provider:name fired exactly n times, and at iteration i its arguments are
// expected(i). Each mismatch fails; the first three are shown in full.
template <typename Expected>
void check_probe(const Recording& rec, const std::string& provider, const std::string& name, long n,
                 Expected expected) {
  std::vector<uint32_t> ids = rec.site_ids(provider, name);
  INFO(provider << ":" << name);
  REQUIRE(ids.size() == 1);
  std::vector<std::string> specs;
  for (const auto& arg : rec.sites[ids[0]].args) specs.push_back(arg.spec);
  INFO("arguments: " << joined(specs));
  std::vector<const Hit*> hits;
  for (const Hit& h : rec.hits) {
    if (h.site_id == ids[0]) hits.push_back(&h);
  }
  CHECK(hits.size() == static_cast<size_t>(n));
  long mismatches = 0;
  for (long i = 0; i < n && static_cast<size_t>(i) < hits.size(); ++i) {
    Texts want = expected(i);
    const Texts& got = hits[static_cast<size_t>(i)]->args;
    if (got == want) continue;
    if (++mismatches <= 3) {
      FAIL_CHECK("i=" << i << "\n  expected: " << joined(want) << "\n  got:      " << joined(got));
    }
  }
  INFO("iterations with a wrong value, of " << n);
  CHECK(mismatches == 0);
}

// The displacement of a "N@DISP(%reg)" spec (0 when there is none).
long displacement(const std::string& spec) {
  size_t at = spec.find('@');
  size_t open = spec.find('(');
  if (at == std::string::npos || open == std::string::npos || open == at + 1) return 0;
  return std::stol(spec.substr(at + 1, open - at - 1));
}

// ---- itest_memory ----------------------------------------------------------

void check_memory(const std::string& binary) {
  const long n = 100;
  INFO(binary);
  Recording rec =
      record_program(binary, n,
                     {"-e", "memory:heap", "-e", "memory:global", "-e", "memory:global_off", "-e",
                      "memory:absolute", "-e", "memory:unmapped", "-e", "memory:after"});
  CHECK(rec.hits.size() == static_cast<size_t>(6 * n));

  // heap block p in %rax: -4@60(%rax) 8@8(%rax) 2@(%rax) 8@%rcx
  check_probe(rec, "memory", "heap", n, [](long i) {
    return Texts{num(-3 * (i + 1)), unum(0x100000000ull + u(i)), unum((0xbeefu ^ u(i)) & 0xffffu),
                 unum(u(i))};
  });
  // static_global (.data), counter.0 (function-static), my.dotted.sym, bss_value (.bss)
  check_probe(rec, "memory", "global", n, [](long i) {
    return Texts{num(-1000000 - i), unum(u(7 * i + 1)), unum(0xd0d0000000000000ull + u(i)),
                 unum(u(i * i)), unum(u(i))};
  });
  // static_array[2], static_array[3] through symbol+offset
  check_probe(rec, "memory", "global_off", n, [](long i) {
    return Texts{unum(0x40000000ull + u(i)), num(-40 - i), unum(u(i))};
  });
  // 8@0x20000000
  check_probe(rec, "memory", "absolute", n, [](long i) {
    return Texts{unum(0xabc0000ull + u(i)), unum(u(i))};
  });
  // A read that faults is missing: never 0, never an earlier value.
  check_probe(rec, "memory", "unmapped", n, [](long i) {
    return Texts{kNull, kNull, unum(0x20001040ull), unum(u(i))};
  });
  // The next hit reads good memory again.
  check_probe(rec, "memory", "after", n, [](long i) {
    return Texts{unum(0x5a5a000000000000ull + u(i)), unum(u(i))};
  });
}

// ---- itest_strings ---------------------------------------------------------

std::string pattern(char first, long i, int length) {
  std::string text;
  for (int k = 0; k < length; ++k) text += static_cast<char>(first + (i + k) % 26);
  return text;
}

const std::vector<std::string> kStringOptions = {"-e",       "strings:*",
                                                 "--string", "strings:ascii=arg0",
                                                 "--string", "strings:empty=arg0",
                                                 "--string", "strings:long300=arg0",
                                                 "--string", "strings:long1000=arg0",
                                                 "--string", "strings:invalid=arg0",
                                                 "--string", "strings:null=arg0",
                                                 "--string", "strings:unmapped=arg0",
                                                 "--string", "strings:two=arg0,arg1,arg2"};

// long300 and long1000 with --string-bytes limit: a string of exactly the
// limit is whole, a longer one is cut to the limit and marked.
void check_long_strings(long n, int limit) {
  std::vector<std::string> options = kStringOptions;
  options.push_back("--string-bytes");
  options.push_back(std::to_string(limit));
  INFO("--string-bytes " << limit);
  Recording rec = record_program("itest_strings", n, options);
  check_probe(rec, "strings", "long300", n, [&](long i) {
    return Texts{str(pattern('a', i, std::min(300, limit)), 300 > limit), unum(u(i))};
  });
  check_probe(rec, "strings", "long1000", n, [&](long i) {
    return Texts{str(pattern('A', i, std::min(1000, limit)), 1000 > limit), unum(u(i))};
  });
}

}  // namespace

TEST_CASE("memory operands (PIE): heap, static, dotted and .bss globals, absolute, unmapped",
          "[.root][exact_memory]") {
  check_memory("itest_memory");
}

TEST_CASE("memory operands (non-PIE): heap, static, dotted and .bss globals, absolute, unmapped",
          "[.root][exact_memory_nopie]") {
  check_memory("itest_memory_nopie");
}

TEST_CASE("strings: ASCII, empty, cut at 256, invalid UTF-8, NULL, unmapped, several per probe",
          "[.root][exact_strings]") {
  const long n = 100;
  Recording rec = record_program("itest_strings", n, kStringOptions);
  CHECK(rec.hits.size() == static_cast<size_t>(8 * n));

  // The probe table says which arguments are strings.
  for (const usdt::format::ProbeSite& site : rec.sites) {
    if (site.provider != "strings" || site.name == "anchor") continue;
    INFO(site.name);
    const size_t strings = site.name == "two" ? 3 : 1;
    for (size_t j = 0; j < site.args.size(); ++j) CHECK(site.args[j].is_string == (j < strings));
  }

  check_probe(rec, "strings", "ascii", n, [](long i) {
    return Texts{str("ascii-" + std::to_string(i)), unum(u(i))};
  });
  // Present with 0 bytes, not null.
  check_probe(rec, "strings", "empty", n, [](long i) { return Texts{str(""), unum(u(i))}; });
  // Cut at the default --string-bytes, 256.
  check_probe(rec, "strings", "long300", n, [](long i) {
    return Texts{str(pattern('a', i, 256), true), unum(u(i))};
  });
  check_probe(rec, "strings", "long1000", n, [](long i) {
    return Texts{str(pattern('A', i, 256), true), unum(u(i))};
  });
  // Not UTF-8: the bytes as they are.
  check_probe(rec, "strings", "invalid", n, [](long i) {
    return Texts{str(std::string_view("\xff\xfe abc\xc3(", 8)), unum(u(i))};
  });
  check_probe(rec, "strings", "null", n, [](long i) { return Texts{kNull, unum(u(i))}; });
  check_probe(rec, "strings", "unmapped", n, [](long i) { return Texts{kNull, unum(u(i))}; });
  check_probe(rec, "strings", "two", n, [](long i) {
    return Texts{str("left-" + std::to_string(i)), kNull, str(""), num(i)};
  });
}

TEST_CASE(
    "--string-bytes: a string of exactly the limit is whole, a longer one is cut; 4095 at most",
    "[.root][exact_string_bytes]") {
  const long n = 20;
  check_long_strings(n, 300);   // long300 exactly the limit: whole
  check_long_strings(n, 299);   // one byte over: cut
  check_long_strings(n, 1000);  // long1000 exactly the limit: whole
  check_long_strings(n, 4095);  // the kernel's largest string fetch: both whole

  std::string out = temp_trace("string_bytes_too_big");
  RunResult r = run({recorder(), "-e", "strings:ascii", "--string", "strings:ascii=arg0",
                     "--string-bytes", "4096", "-o", out, "--", program("itest_strings"), "1"});
  INFO(r.err);
  CHECK(r.status == 2);
  CHECK(r.err.find("usdt-record: error: --string-bytes ") == 0);
  CHECK(r.err.find("4095") != std::string::npos);
}

TEST_CASE("stack operands over 4 KiB and 16 KiB above %rsp, and 20 KiB below %rbp at -O0",
          "[.root][exact_deepstack]") {
  const long n = 100;
  Recording rec = record_program("itest_deepstack", n, {"-e", "deep:*"});

  // The operands are as far as the case says (GCC's choice, read from the note).
  auto spec = [&](const std::string& name, size_t j) {
    return rec.sites[rec.site_ids("deep", name).at(0)].args.at(j).spec;
  };
  INFO(spec("rsp4k", 0) << " " << spec("rsp16k", 0) << " " << spec("rsp16k", 1) << " "
                        << spec("rbp20k", 0));
  CHECK(spec("rsp4k", 0).find("(%rsp)") != std::string::npos);
  CHECK(displacement(spec("rsp4k", 0)) > 4096);
  CHECK(spec("rsp16k", 0).find("(%rsp)") != std::string::npos);
  CHECK(displacement(spec("rsp16k", 0)) > 16384);
  CHECK(displacement(spec("rsp16k", 1)) > 16384);
  for (size_t j = 0; j < 3; ++j) {
    CHECK(spec("rbp20k", j).find("(%rbp)") != std::string::npos);
    CHECK(displacement(spec("rbp20k", j)) < -16384);
  }

  auto big = [](long i, long k) { return unum(0xb000000000000000ull + (u(i) << 16) + u(k)); };
  check_probe(rec, "deep", "rsp4k", n, [&](long i) { return Texts{big(i, 525), num(i)}; });
  check_probe(rec, "deep", "rsp16k", n, [&](long i) {
    return Texts{big(i, 2500), big(i, 2049), num(i)};
  });
  check_probe(rec, "deep", "rsp_near", n, [&](long i) { return Texts{big(i, 1), num(i)}; });
  check_probe(rec, "deep", "rbp20k", n, [](long i) {
    return Texts{num(-(i * 1000) - 7), num(static_cast<int32_t>(i * 3) - 5000), num(i)};
  });
}

TEST_CASE("scaled-index stack operands, displacement expressions and size-less operands",
          "[.root][exact_forms]") {
  const long n = 100;
  Recording rec = record_program(
      "itest_forms", n, {"-e", "forms:scaled", "-e", "forms:dispexpr", "-e", "forms:sizeless"});
  CHECK(rec.hits.size() == static_cast<size_t>(3 * n));

  // slot[k] = (uint64_t)-(1000 * k + i + 1); low(k) its low half as int32.
  auto slot = [](long k, long i) { return unum(static_cast<uint64_t>(-(1000 * k + i + 1))); };
  auto low = [](long k, long i) { return num(-(1000 * k + i + 1)); };
  // 8@16(%rsp,%rcx,8) -4@(%rsp,%rcx,8) -4@(%rbp,%rax,4) 8@-8+16(%rbp,%rcx,8) 8@%rdx
  check_probe(rec, "forms", "scaled", n, [&](long i) {
    const long j = i % 4;
    return Texts{slot(2 + j, i), low(j, i), low(j, i), slot(1 + j, i), unum(u(i))};
  });
  // 8@-8+8(%rsp) -4@16-8(%rsp) 8@24+-8(%rbp) -8@0x10+0x18(%rsp) 8@%rdx
  check_probe(rec, "forms", "dispexpr", n, [&](long i) {
    return Texts{slot(0, i), low(1, i), slot(2, i), low(5, i), unum(u(i))};
  });
  // %rdi %esi 16(%rsp) $-5 -8+32(%rbp) %rdx: SystemTap reads a size-less
  // operand as 8 bytes unsigned, a sub-register zero-extended (tapsets.cxx,
  // parse_out_arg_precision).
  check_probe(rec, "forms", "sizeless", n, [&](long i) {
    return Texts{unum(0x8000000000000000ull | u(i)),
                 unum(0xfffffff0ull - u(i)),
                 slot(2, i),
                 unum(18446744073709551611ull),
                 slot(3, i),
                 unum(u(i))};
  });
}
