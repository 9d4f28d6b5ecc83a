// Parsing tracefs format files (record/attach/tracepoint_format.h): real
// files of kernel 6.18 (tests/fixtures/tracepoint_formats), then malformed
// ones.
#include "record/attach/tracepoint_format.h"

#include <catch2/catch.hpp>
#include <fstream>
#include <sstream>

using namespace usdt::record;

namespace {

std::string fixture(const std::string& name) {
  std::ifstream in(std::string(TRACEPOINT_FORMAT_DIR) + "/" + name + ".format");
  REQUIRE(in);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

TracepointFormat parsed(const std::string& name) {
  auto format = parse_tracepoint_format(fixture(name));
  REQUIRE(format);
  return *format;
}

const TracepointField& field(const TracepointFormat& f, const std::string& name) {
  for (const auto& x : f.fields) {
    if (x.name == name) return x;
  }
  FAIL("no field " << name);
  return f.fields.front();
}

}  // namespace

TEST_CASE("sched_switch: fixed char arrays, signed integers of 4 and 8 bytes") {
  TracepointFormat f = parsed("sched_sched_switch");
  CHECK(f.name == "sched_switch");
  CHECK(f.id == 372);
  REQUIRE(f.fields.size() == 11);
  CHECK(f.fields[0].name == "common_type");
  CHECK(f.fields[0].common());
  CHECK(f.fields[0].size == 2);
  CHECK_FALSE(f.fields[0].is_signed);
  CHECK(f.fields[1].size == 1);  // common_flags: unsigned char
  const auto& comm = field(f, "prev_comm");
  CHECK_FALSE(comm.common());
  CHECK(comm.form == FieldForm::char_array);
  CHECK(comm.type == "char");
  CHECK(comm.offset == 8);
  CHECK(comm.size == 16);
  CHECK(comm.line == "field:char prev_comm[16]; offset:8; size:16; signed:0;");
  const auto& pid = field(f, "prev_pid");
  CHECK(pid.form == FieldForm::integer);
  CHECK(pid.type == "pid_t");
  CHECK(pid.offset == 24);
  CHECK(pid.size == 4);
  CHECK(pid.is_signed);
  CHECK(pid.line == "field:pid_t prev_pid; offset:24; size:4; signed:1;");
  const auto& state = field(f, "prev_state");
  CHECK(state.size == 8);
  CHECK(state.is_signed);
  CHECK(field(f, "next_prio").offset == 60);
}

TEST_CASE("sys_enter_write: the declared type and the size may disagree; pointers") {
  TracepointFormat f = parsed("syscalls_sys_enter_write");
  CHECK(f.id == 840);
  const auto& fd = field(f, "fd");
  CHECK(fd.type == "unsigned int");
  CHECK(fd.size == 8);  // the size line wins: syscall arguments are longs
  CHECK_FALSE(fd.is_signed);
  CHECK(fd.form == FieldForm::integer);
  const auto& buf = field(f, "buf");
  CHECK(buf.type == "const char *");
  CHECK(buf.form == FieldForm::integer);  // a pointer, not an array
  CHECK(field(f, "count").offset == 32);
  CHECK(field(f, "__syscall_nr").is_signed);
}

TEST_CASE("__data_loc strings and arrays") {
  TracepointFormat exec = parsed("sched_sched_process_exec");
  const auto& filename = field(exec, "filename");
  CHECK(filename.form == FieldForm::data_loc_string);
  CHECK(filename.type == "__data_loc char[]");
  CHECK(filename.size == 4);
  CHECK_FALSE(filename.rel_loc);

  TracepointFormat dma = parsed("dma_dma_map_sg");
  CHECK(field(dma, "device").form == FieldForm::data_loc_string);
  CHECK(field(dma, "phys_addrs").form == FieldForm::data_loc_bytes);
  CHECK(field(dma, "lengths").form == FieldForm::data_loc_bytes);  // unsigned int[]
  CHECK(field(dma, "lengths").type == "__data_loc unsigned int[]");
  CHECK(field(dma, "truncated").size == 1);  // bool
  CHECK(field(dma, "dir").type == "enum dma_data_direction");
}

TEST_CASE("fixed byte arrays are bytes, not text; arrays of longs too") {
  TracepointFormat sock = parsed("sock_inet_sock_set_state");
  CHECK(field(sock, "saddr").form == FieldForm::byte_array);
  CHECK(field(sock, "saddr").size == 4);
  CHECK(field(sock, "saddr_v6").size == 16);
  CHECK(field(sock, "sport").size == 2);
  CHECK_FALSE(field(sock, "sport").is_signed);
  TracepointFormat raw = parsed("raw_syscalls_sys_enter");
  CHECK(field(raw, "args").form == FieldForm::byte_array);
  CHECK(field(raw, "args").size == 48);
  CHECK(field(raw, "id").is_signed);
}

TEST_CASE("signed 1- and 2-byte fields") {
  TracepointFormat kvm = parsed("kvm_kvm_pvclock_update");
  CHECK(field(kvm, "tsc_shift").size == 1);
  CHECK(field(kvm, "tsc_shift").is_signed);
  CHECK(field(kvm, "tsc_shift").form == FieldForm::integer);
  TracepointFormat oom = parsed("oom_mark_victim");
  CHECK(field(oom, "oom_score_adj").size == 2);
  CHECK(field(oom, "oom_score_adj").is_signed);
}

TEST_CASE("__rel_loc, odd sizes, unknown lines") {
  auto f = parse_tracepoint_format(
      "name: x\nID: 7\nformat:\n"
      "\tfield:__rel_loc char[] s;\toffset:8;\tsize:4;\tsigned:0;\n"
      "\tfield:struct foo blob;\toffset:12;\tsize:12;\tsigned:0;\n"
      "\tsomething new: 1\n"
      "\tfield:signed char c[4];\toffset:24;\tsize:4;\tsigned:1;\n"
      "\n"
      "print fmt: \"field:int nope; offset:0;\"\n");
  REQUIRE(f);
  REQUIRE(f->fields.size() == 3);
  CHECK(f->fields[0].rel_loc);
  CHECK(f->fields[0].form == FieldForm::data_loc_string);
  CHECK(f->fields[1].form == FieldForm::byte_array);
  CHECK(f->fields[1].type == "struct foo");
  CHECK(f->fields[2].form == FieldForm::char_array);
}

TEST_CASE("malformed formats are errors naming the line") {
  CHECK_FALSE(parse_tracepoint_format("name: x\nformat:\n"));  // no ID
  CHECK_FALSE(parse_tracepoint_format("name: x\nID: abc\n"));
  auto no_offset = parse_tracepoint_format("ID: 1\n\tfield:int a;\tsize:4;\tsigned:1;\n");
  REQUIRE_FALSE(no_offset);
  CHECK(no_offset.error().message().find("field:int a;") != std::string::npos);
  CHECK_FALSE(parse_tracepoint_format("ID: 1\n\tfield:int a\n"));
  CHECK_FALSE(parse_tracepoint_format("ID: 1\n\tfield:a;\toffset:0;\tsize:4;\n"));
  CHECK_FALSE(parse_tracepoint_format("ID: 1\n\tfield:int a;\toffset:0;\tsize:0;\n"));
  CHECK_FALSE(parse_tracepoint_format("ID: 1\n\tfield:__data_loc char[] s;\toffset:0;\tsize:8;\n"));
  // Every prefix of a real file either parses or fails cleanly.
  std::string text = fixture("sched_sched_switch");
  for (size_t n = 0; n <= text.size(); ++n) (void)parse_tracepoint_format(text.substr(0, n));
}
