#include "record/attach/uprobe_event_group.h"

#include <unistd.h>

#include <catch2/catch.hpp>

using namespace usdt::record;

// events/GROUP/NAME/format of "p:g/s0 /tmp/f:0x1126 a0=+0(%r8):s64 a0f=+0(%r8):string
// a1=+0(%di):string", as kernel 6.18 writes it.
static const char* kFormat =
    "name: s0\n"
    "ID: 2326\n"
    "format:\n"
    "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
    "\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
    "\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
    "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
    "\n"
    "\tfield:unsigned long __probe_ip;\toffset:8;\tsize:8;\tsigned:0;\n"
    "\tfield:s64 a0;\toffset:16;\tsize:8;\tsigned:1;\n"
    "\tfield:__data_loc char[] a0f;\toffset:24;\tsize:4;\tsigned:1;\n"
    "\tfield:__data_loc char[] a1;\toffset:28;\tsize:4;\tsigned:1;\n"
    "\n"
    "print fmt: \"(%lx) a0=%Ld\", REC->__probe_ip, REC->a0\n";

TEST_CASE("a tracefs format gives each field's offset, size and kind", "[uprobe_event_group]") {
  auto fields = parse_trace_format(kFormat);
  REQUIRE(fields);
  REQUIRE(fields->size() == 8);
  TracefsEvent event;
  event.fields = *fields;
  const TraceField* a0 = event.field("a0");
  REQUIRE(a0 != nullptr);
  CHECK(a0->offset == 16);
  CHECK(a0->size == 8);
  CHECK(a0->is_signed);
  CHECK_FALSE(a0->data_loc);
  const TraceField* a1 = event.field("a1");
  REQUIRE(a1 != nullptr);
  CHECK(a1->offset == 28);
  CHECK(a1->data_loc);
  CHECK(event.field("__probe_ip")->offset == 8);
  CHECK(event.field("a2") == nullptr);
}

TEST_CASE("a format without fields, or a damaged field line, is an error",
          "[uprobe_event_group]") {
  CHECK_FALSE(parse_trace_format("name: x\nID: 1\n"));
  CHECK_FALSE(parse_trace_format("\tfield:u64 a0;\toffset:x;\tsize:8;\tsigned:0;\n"));
  CHECK_FALSE(parse_trace_format("\tfield:;\toffset:8;\tsize:8;\n"));
}

TEST_CASE("the group name carries the recorder's pid and start time", "[uprobe_event_group]") {
  CHECK(recorder_group_name(1234, 98765) == "usdtrec_1234_98765");
  CHECK(recorder_group_name(1234, 98765, 4026531836) == "usdtrec_1234_98765_4026531836");
  CHECK(own_pid_namespace() != 0);
  CHECK(process_start_ticks(getpid()) != 0);
  CHECK(process_start_ticks(0x7ffffff0) == 0);
}
