// Every operand form, exact or missing: itest_operands (programs/
// itest_operands.c) built by GCC and clang at -O0 and -O2, PIE, non-PIE,
// -fno-pic, -static, -static-pie and as a shared object, recorded for real.
// Each argument must equal what the program passed, or be null where its form
// is documented as missing (docs/CLI.md, "How arguments are read"): an index
// register outside the stack, %fs:/%gs: (thread-local), %xmm, and a symbol
// plus a register (or a symbol's address as a constant) in a
// position-independent file; on the BPF capture path (--capture bpf) only
// %xmm and %fs:/%gs: (the others are exact there). Never a value read from another address: the
// program gives every element of its arrays, at every iteration, a value of
// its own. Each case also checks that the build wrote the forms it is there
// for (the note's spec text) and that `usdt-record -l -v` says how each
// argument is read or why it is missing.
//
// Which builds carry which forms (GCC 12, clang 14; each case checks its own):
//   symbol plus base register, fixed address  gcc O2 nopie/nopic/static, clang O2 nopie/static
//   (mem:) symbol plus base register, moved by bias  gcc O2 pie_nopic and lib_nopic base plus
//   index, symbol plus index        gcc O2 (ops:heap), gcc O2 pie, clang (mem:) registers and
//   sub-registers               gcc O0, ops:consts everywhere red zone, slots above %rsp, frame
//   slots   clang O2, clang O2 lib_pic, clang O0 memory through one register               gcc O0
//   nopie and clang O0 (mem:), GOT
//                                             pointers in gcc O2 pie and lib_pic
//   sym(%rip), sym+off(%rip), off+sym(%rip)   gcc everywhere (ops:glob), gcc O0 pie (mem:)
//   %fs: thread-local                         every build but -fPIC
//   %xmm, a bare symbol, flat %ds:, $sym,     mem:xmm and hand:forms, every build
//   sym(,%idx,1)
// Root only: hidden cases ([.root]) with a CTest entry each.
#include <fcntl.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cctype>
#include <cstdint>
#include <cstring>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "../skip_case.h"
#include "integration_support.h"

using namespace usdt::itest;

namespace {

enum class Form {
  reg,
  xmm,
  constant,
  symbol_constant,
  stack,
  base,
  symbol_rip,
  symbol_alone,
  symbol_base,
  indexed,
  thread,
  absolute,
};

const char* form_name(Form f) {
  static const char* const names[] = {"register",  "xmm",          "constant",
                                      "$symbol",   "stack",        "base register",
                                      "sym(%rip)", "bare symbol",  "symbol plus register",
                                      "indexed",   "thread-local", "absolute"};
  return names[static_cast<int>(f)];
}

bool names_symbol(const std::string& displacement) {
  for (char c : displacement) {
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') return true;
  }
  return false;
}

// The form of "SIZE@OPERAND", read from the text alone.
Form form_of(const std::string& spec) {
  std::string op = spec.substr(spec.find('@') + 1);
  if (op.rfind("%fs:", 0) == 0 || op.rfind("%gs:", 0) == 0) return Form::thread;
  if (op.rfind("%ds:", 0) == 0) op = op.substr(4);
  if (op.rfind("%xmm", 0) == 0) return Form::xmm;
  if (op[0] == '%') return Form::reg;
  if (op[0] == '$') return names_symbol(op.substr(1)) ? Form::symbol_constant : Form::constant;
  const size_t open = op.find('(');
  const bool symbol = names_symbol(op.substr(0, open));
  if (open == std::string::npos) return symbol ? Form::symbol_alone : Form::absolute;
  std::string inside = op.substr(open + 1, op.size() - open - 2);
  std::vector<std::string> parts;
  for (size_t start = 0;;) {
    size_t comma = inside.find(',', start);
    parts.push_back(inside.substr(start, comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  std::string base = parts[0];
  if (parts.size() == 3 && base.empty() && parts[2] == "1") base = parts[1];  // (,%idx,1)
  const bool frame = base == "%rsp" || base == "%rbp";
  if (parts.size() > 1 && base != parts[1]) return frame && !symbol ? Form::stack : Form::indexed;
  if (base == "%rip") return Form::symbol_rip;
  if (symbol) return Form::symbol_base;
  return frame ? Form::stack : Form::base;
}

// The documented rule: which forms are missing, in which files, on which
// capture path. The BPF path reads an index register and adds the load
// bias itself: only %xmm and thread-local operands stay missing there.
bool is_missing(Form f, bool position_independent) {
  switch (f) {
    case Form::xmm:
    case Form::thread:
      return true;
    case Form::indexed:
      return !on_bpf_path();
    case Form::symbol_base:
    case Form::symbol_constant:
      return position_independent && !on_bpf_path();
    default:
      return false;
  }
}

uint64_t s(int64_t v) { return static_cast<uint64_t>(v); }
std::string text(uint64_t raw, bool sign) {
  return sign ? std::to_string(static_cast<int64_t>(raw)) : std::to_string(raw);
}
uint64_t bits(double d) {
  uint64_t b;
  std::memcpy(&b, &d, sizeof b);
  return b;
}

// What the program passed at iteration i (itest_operands.c's opening comment).
std::map<std::string, std::vector<uint64_t>> expected(long i, uint64_t address) {
  const long k = i % 16;
  auto a = [&](long j) { return s(static_cast<int32_t>(-100000 * j - i - 1)); };
  auto b = [&](long j) { return s(static_cast<int16_t>(-100 * j - i % 100 - 1)); };
  auto c = [&](long j) { return s(static_cast<int8_t>(-4 * j - i % 4 - 1)); };
  auto d = [&](long j) { return 0xd000000000000000ull + (uint64_t(j) << 32) + uint64_t(i); };
  const uint64_t st_a = s(7000000 + 1000 * k + i);
  const uint64_t st_d = 0x5000000000000000ull + (uint64_t(k) << 24) + uint64_t(i);
  const uint64_t gval = s(-(int64_t(k) << 40) - i - 1);
  const uint64_t heap_a = s(static_cast<int32_t>(-3000 * k - i - 1));
  const uint64_t heap_b = s(static_cast<int16_t>(-50 * k - i % 50 - 1));
  const uint64_t heap_d = 0x4000000000000000ull + (uint64_t(k) << 32) + uint64_t(i);
  return {
      {"ops:aos", {a(k), b(k), c(k), d(k)}},
      {"ops:statics", {st_a, st_d}},
      {"ops:idx", {gval, uint64_t(k)}},
      {"ops:heap", {heap_a, heap_d, s(5000 * k + i)}},
      {"ops:glob", {s(123456 + i), b(3), bits(double(i) + 0.5)}},
      {"ops:tls", {uint64_t(i), 0}},
      {"ops:consts", {s(-5), 7, uint64_t(k)}},
      {"mem:aos", {a(k), b(k), d(k)}},
      {"mem:idx", {gval}},
      {"mem:glob", {d(2)}},
      {"mem:heap", {heap_b}},
      {"mem:tls", {uint64_t(i)}},
      {"mem:xmm", {bits(double(i) + 0.25)}},
      {"hand:forms", {a(k), b(1), heap_d, address}},
  };
}

// ET_DYN (a PIE, a static PIE, a shared object) or ET_EXEC.
bool is_position_independent(const std::string& path) {
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  REQUIRE(fd >= 0);
  uint16_t type = 0;
  REQUIRE(pread(fd, &type, sizeof type, 16) == 2);
  close(fd);
  REQUIRE((type == 2 || type == 3));  // ET_EXEC, ET_DYN
  return type == 3;
}

// `-l -v`: per "PROVIDER:NAME", each argument's "[HOW]".
std::map<std::string, std::vector<std::string>> listed_sources(const std::string& file) {
  RunResult r = run({recorder(), "-l", "-v", file});
  INFO(r.err);
  REQUIRE(r.status == 0);
  std::map<std::string, std::vector<std::string>> sources;
  std::string probe;
  for (const std::string& line : lines(r.out)) {
    if (line.rfind("usdt:", 0) == 0) {
      size_t name = line.rfind(':');
      probe = line.substr(line.rfind(':', name - 1) + 1);
    } else if (line.rfind("    arg", 0) == 0) {
      size_t open = line.rfind("  [");
      REQUIRE(open != std::string::npos);
      sources[probe].push_back(line.substr(open + 3, line.size() - open - 4));
    }
  }
  return sources;
}

void check_listing(const std::string& probe, const std::string& spec, size_t j, Form form,
                   bool missing, const std::vector<std::string>& how) {
  INFO(probe << " arg" << j << " " << spec << " (" << form_name(form) << ")");
  REQUIRE(j < how.size());
  INFO("-l -v: [" << how[j] << "]");
  CHECK((how[j].rfind("not recorded: ", 0) == 0) == missing);
  if (on_bpf_path()) {
    CHECK(how[j].rfind(missing ? "not recorded: " : "BPF: ", 0) == 0);
    return;
  }
  if (form == Form::symbol_base && !missing) {
    CHECK(how[j].find("=+0x") != std::string::npos);  // "+ADDR(%reg)", never "@+"
    CHECK(how[j].find("@+") == std::string::npos);
  }
  if (form == Form::symbol_base && missing) CHECK(how[j].find("load bias") != std::string::npos);
}

// Records the build and checks every argument of every hit; `required` maps
// probes to the form their first argument must have in this build.
void check_build(const std::string& build, bool position_independent,
                 const std::map<std::string, Form>& required) {
  const std::string exe = program("itest_operands_" + build);
  if (access(exe.c_str(), X_OK) != 0) {
    usdt::test::skip_case(exe + " was not built (is clang installed? scripts/install-deps.sh)");
  }
  const bool shared = build.find("_lib_") != std::string::npos;
  const std::string probed = shared ? program("libitest_operands_" + build + ".so") : exe;
  REQUIRE(is_position_independent(probed) == position_independent);

  const long n = 64;
  std::string out = temp_trace("operands_" + build);
  std::vector<std::string> argv = {recorder(), "-e", "ops:*", "-e", "mem:*", "-e",
                                   "hand:*",   "-o", out,     "--", exe,     std::to_string(n)};
  RunResult r = run(argv);
  INFO("stderr: " << r.err);
  REQUIRE(r.status == 0);
  const size_t at = r.out.find("ho_recs+32=0x");
  REQUIRE(at != std::string::npos);
  const uint64_t address = std::stoull(r.out.substr(at + 11), nullptr, 16);
  Trace trace = read_trace(out);
  unlink(out.c_str());
  CHECK(trace.lost_count() == 0);

  const auto listing = listed_sources(probed);
  std::map<std::string, Form> first_forms;
  for (const auto& [probe, values] : expected(0, address)) {
    const size_t colon = probe.find(':');
    std::vector<uint32_t> ids = trace.site_ids(probe.substr(0, colon), probe.substr(colon + 1));
    INFO(probe);
    REQUIRE(ids.size() == 1);
    const usdt::format::ProbeSite& site = trace.sites.at(ids[0]);
    REQUIRE(site.args.size() == values.size());
    std::vector<bool> missing;
    for (size_t j = 0; j < site.args.size(); ++j) {
      const Form form = form_of(site.args[j].spec);
      if (j == 0) first_forms[probe] = form;
      missing.push_back(is_missing(form, position_independent));
      check_listing(probe, site.args[j].spec, j, form, missing[j],
                    listing.count(probe) ? listing.at(probe) : std::vector<std::string>{});
    }
    std::vector<usdt::format::Event> hits =
        trace.of(probe.substr(0, colon), probe.substr(colon + 1));
    REQUIRE(hits.size() == static_cast<size_t>(n));
    long wrong = 0;
    for (long i = 0; i < n; ++i) {
      const std::vector<uint64_t> want = expected(i, address).at(probe);
      for (size_t j = 0; j < want.size(); ++j) {
        const usdt::format::Event& e = hits[static_cast<size_t>(i)];
        const bool present = e.has_arg(static_cast<int>(j));
        if (present != !missing[j] || (present && e.args[j] != want[j])) {
          if (++wrong <= 3) {
            const bool sign = site.args[j].is_signed && !site.args[j].is_float;
            FAIL_CHECK("i=" << i << " arg" << j << " " << site.args[j].spec << " ("
                            << form_name(form_of(site.args[j].spec)) << "): expected "
                            << (missing[j] ? "null" : text(want[j], sign)) << ", got "
                            << (present ? text(e.args[j], sign) : "null"));
          }
        }
      }
    }
    CHECK(wrong == 0);
  }
  for (const auto& [probe, form] : required) {
    INFO(probe << ": the build must write " << form_name(form) << " operands");
    CHECK(form_name(first_forms.at(probe)) == std::string(form_name(form)));
  }
}

// Every build: the hand-written forms.
std::map<std::string, Form> with_hand(std::map<std::string, Form> required) {
  required["hand:forms"] = Form::symbol_base;  // ho_recs(,%rax,1)
  required["mem:xmm"] = Form::xmm;
  return required;
}

}  // namespace

TEST_CASE("operands: GCC -O2 non-PIE, symbol plus base register",
          "[.root][operands_gcc_O2_nopie]") {
  check_build("gcc_O2_nopie", false,
              with_hand({{"ops:aos", Form::symbol_base},
                         {"ops:statics", Form::symbol_base},
                         {"ops:idx", Form::indexed},
                         {"ops:glob", Form::symbol_rip},
                         {"ops:heap", Form::indexed},
                         {"ops:tls", Form::thread},
                         {"ops:consts", Form::constant}}));
}

TEST_CASE("operands: GCC -O2 -fno-pic non-PIE", "[.root][operands_gcc_O2_nopic]") {
  check_build("gcc_O2_nopic", false,
              with_hand({{"ops:aos", Form::symbol_base}, {"mem:aos", Form::symbol_base}}));
}

TEST_CASE("operands: GCC -O2 -static", "[.root][operands_gcc_O2_static]") {
  check_build("gcc_O2_static", false,
              with_hand({{"ops:aos", Form::symbol_base}, {"ops:tls", Form::thread}}));
}

TEST_CASE("operands: GCC -O2 PIE, base plus index", "[.root][operands_gcc_O2_pie]") {
  check_build(
      "gcc_O2_pie", true,
      with_hand(
          {{"ops:aos", Form::indexed}, {"ops:glob", Form::symbol_rip}, {"mem:glob", Form::base}}));
}

TEST_CASE("operands: GCC -O2 -static-pie", "[.root][operands_gcc_O2_static_pie]") {
  check_build("gcc_O2_static_pie", true, with_hand({{"ops:aos", Form::indexed}}));
}

TEST_CASE("operands: GCC -O2 -fno-pic in a PIE, symbol plus register moved by the load bias",
          "[.root][operands_gcc_O2_pie_nopic]") {
  check_build("gcc_O2_pie_nopic", true,
              with_hand({{"ops:aos", Form::symbol_base},
                         {"ops:statics", Form::symbol_base},
                         {"ops:glob", Form::symbol_rip}}));
}

TEST_CASE("operands: GCC -O2 -fno-pic in a shared object", "[.root][operands_gcc_O2_lib_nopic]") {
  check_build("gcc_O2_lib_nopic", true,
              with_hand({{"ops:aos", Form::symbol_base}, {"mem:aos", Form::symbol_base}}));
}

TEST_CASE("operands: GCC -O2 -fPIC shared object", "[.root][operands_gcc_O2_lib_pic]") {
  check_build(
      "gcc_O2_lib_pic", true,
      with_hand({{"ops:aos", Form::indexed}, {"ops:tls", Form::stack}, {"ops:glob", Form::base}}));
}

TEST_CASE("operands: GCC -O0 PIE, registers", "[.root][operands_gcc_O0_pie]") {
  check_build("gcc_O0_pie", true,
              with_hand({{"ops:aos", Form::reg},
                         {"mem:aos", Form::indexed},
                         {"mem:glob", Form::symbol_rip},
                         {"mem:heap", Form::base}}));
}

TEST_CASE("operands: GCC -O0 non-PIE", "[.root][operands_gcc_O0_nopie]") {
  check_build("gcc_O0_nopie", false,
              with_hand({{"ops:aos", Form::reg},
                         {"ops:idx", Form::reg},
                         {"mem:aos", Form::base},
                         {"mem:idx", Form::indexed},
                         {"mem:glob", Form::symbol_rip}}));
}

TEST_CASE("operands: clang -O2 PIE, the red zone", "[.root][operands_clang_O2_pie]") {
  check_build("clang_O2_pie", true,
              with_hand({{"ops:aos", Form::stack}, {"mem:aos", Form::indexed}}));
}

TEST_CASE("operands: clang -O2 non-PIE", "[.root][operands_clang_O2_nopie]") {
  check_build("clang_O2_nopie", false,
              with_hand({{"ops:aos", Form::stack},
                         {"mem:aos", Form::symbol_base},
                         {"mem:idx", Form::indexed},
                         {"mem:glob", Form::symbol_rip}}));
}

TEST_CASE("operands: clang -O2 -static", "[.root][operands_clang_O2_static]") {
  check_build("clang_O2_static", false,
              with_hand({{"ops:aos", Form::stack}, {"mem:aos", Form::symbol_base}}));
}

TEST_CASE("operands: clang -O0 PIE, frame slots", "[.root][operands_clang_O0_pie]") {
  check_build("clang_O0_pie", true, with_hand({{"ops:aos", Form::stack}, {"mem:aos", Form::base}}));
}

TEST_CASE("operands: clang -O0 non-PIE", "[.root][operands_clang_O0_nopie]") {
  check_build(
      "clang_O0_nopie", false,
      with_hand(
          {{"ops:aos", Form::stack}, {"mem:aos", Form::base}, {"mem:glob", Form::symbol_rip}}));
}

TEST_CASE("operands: clang -O2 -fPIC shared object", "[.root][operands_clang_O2_lib_pic]") {
  // Its slots are above %rsp: the sampled stack.
  check_build(
      "clang_O2_lib_pic", true,
      with_hand({{"ops:aos", Form::stack}, {"mem:aos", Form::indexed}, {"mem:glob", Form::base}}));
}
