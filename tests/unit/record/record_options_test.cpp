#include "record/record_options.h"

#include <catch2/catch.hpp>

using usdt::Result;
using usdt::record::parse_record_options;
using usdt::record::RecordOptions;

namespace {

Result<RecordOptions> parse(std::vector<const char*> args) {
  args.insert(args.begin(), "usdt-record");
  return parse_record_options(static_cast<int>(args.size()), args.data());
}

RecordOptions parse_ok(std::vector<const char*> args) {
  auto r = parse(args);
  if (!r.ok()) FAIL(r.error().message());
  return *r;
}

std::string parse_error(std::vector<const char*> args) {
  auto r = parse(args);
  REQUIRE_FALSE(r.ok());
  return r.error().message();
}

}  // namespace

namespace {

std::vector<std::string> texts(const std::vector<usdt::ProbeSpec>& specs) {
  std::vector<std::string> out;
  for (const usdt::ProbeSpec& s : specs) out.push_back(s.text);
  return out;
}

}  // namespace

TEST_CASE("defaults", "[record_options]") {
  auto o = parse_ok({"-e", "demo:tick", "--", "./demo"});
  CHECK_FALSE(o.list);
  CHECK(o.output == "usdt.trace");
  CHECK(o.buffer_pages == 1024);
  CHECK(o.stack_bytes == 512);
  CHECK_FALSE(o.duration_seconds.has_value());
  CHECK_FALSE(o.quiet);
  CHECK_FALSE(o.all);
  CHECK(o.pids.empty());
  CHECK(texts(o.probes) == std::vector<std::string>{"demo:tick"});
  CHECK(o.command == std::vector<std::string>{"./demo"});
}

TEST_CASE("every recording option", "[record_options]") {
  auto o = parse_ok({"-e", "a:b", "--event", "usdt:/x:c:d", "-o", "out.trace", "--duration", "2.5", "-q",
                     "--buffer-pages", "64", "--stack-bytes", "1024", "-p", "12,34", "-p", "56"});
  CHECK(texts(o.probes) == std::vector<std::string>{"a:b", "usdt:/x:c:d"});
  CHECK(o.output == "out.trace");
  REQUIRE(o.duration_seconds.has_value());
  CHECK(*o.duration_seconds == 2.5);
  CHECK(o.quiet);
  CHECK(o.buffer_pages == 64);
  CHECK(o.stack_bytes == 1024);
  CHECK(o.pids == std::vector<pid_t>{12, 34, 56});
  CHECK(o.command.empty());
  auto a = parse_ok({"-e", "a:b", "-a"});
  CHECK(a.all);
}

TEST_CASE("the command's own options are not ours", "[record_options]") {
  auto o = parse_ok({"-e", "a:b", "--", "ls", "-l", "-e", "x"});
  CHECK(o.command == std::vector<std::string>{"ls", "-l", "-e", "x"});
  CHECK(texts(o.probes) == std::vector<std::string>{"a:b"});
  CHECK_FALSE(o.list);
  auto no_dashes = parse_ok({"-e", "a:b", "-o", "t.trace", "python3", "-c", "print(1)"});
  CHECK(no_dashes.command == std::vector<std::string>{"python3", "-c", "print(1)"});
  CHECK(no_dashes.output == "t.trace");
  auto eq = parse_ok({"--event=a:b", "--output=x.trace", "prog"});
  CHECK(texts(eq.probes) == std::vector<std::string>{"a:b"});
  CHECK(eq.output == "x.trace");
  CHECK(eq.command == std::vector<std::string>{"prog"});
}

TEST_CASE("listing", "[record_options]") {
  auto o = parse_ok({"-l", "-v", "postgresql:query__*", "/usr/bin/x"});
  CHECK(o.list);
  CHECK(o.verbose);
  CHECK(o.list_args == std::vector<std::string>{"postgresql:query__*", "/usr/bin/x"});
  auto lv = parse_ok({"-lv", "/bin/x", "-e", "p:n"});
  CHECK(lv.list);
  CHECK(lv.verbose);
  CHECK(lv.list_args == std::vector<std::string>{"/bin/x"});
  CHECK(texts(lv.probes) == std::vector<std::string>{"p:n"});
  auto pid = parse_ok({"-l", "-p", "42"});
  CHECK(pid.pids == std::vector<pid_t>{42});
  CHECK(pid.list_args.empty());
}

TEST_CASE("help and version", "[record_options]") {
  CHECK(parse_ok({"--help"}).help);
  CHECK(parse_ok({"-h"}).help);
  CHECK(parse_ok({"--version"}).version);
  auto text = usdt::record::record_help_text();
  CHECK(text.find("usage:") != std::string::npos);
  CHECK(text.find("usdt:PATH:PROVIDER:NAME") != std::string::npos);
  CHECK(text.find("--buffer-pages") != std::string::npos);
  CHECK(text.find("examples:") != std::string::npos);
  CHECK(text.find("a write error (a full disk) end a recording alike") != std::string::npos);
  CHECK(text.find("SIGTERM, then SIGKILL after 2 s") != std::string::npos);
}

TEST_CASE("usage errors", "[record_options]") {
  CHECK(parse_error({"--bogus"}) == "unrecognised option '--bogus'");
  CHECK(parse_error({}) == "no probe given: use -e PROBE (or -l to list probes)");
  CHECK(parse_error({"-e", "a:b"}) == "nothing to trace: give -- COMMAND, -p PID or -a");
  CHECK(parse_error({"-e", "a:b", "-a", "-p", "1"}) == "give only one of -- COMMAND, -p PID and -a");
  CHECK(parse_error({"-e", "a:b", "-p", "x"}) == "invalid PID 'x' in -p x");
  CHECK(parse_error({"-e", "a:b", "-p", "1,,2"}) == "invalid PID '' in -p 1,,2");
  CHECK(parse_error({"-e", "a:b", "-p", "-5"}).find("-p") != std::string::npos);
  CHECK(parse_error({"-e", "a:b", "-a", "--buffer-pages", "100"}) ==
        "--buffer-pages must be a power of 2, not 100");
  CHECK(parse_error({"-e", "a:b", "-a", "--stack-bytes", "12"}) ==
        "--stack-bytes must be a multiple of 8 up to 65528, not 12");
  CHECK(parse_error({"-e", "a:b", "-a", "--duration", "0"}) ==
        "--duration must be a number of seconds above 0 and at most 315576000 (ten years), not '0'");
  CHECK_FALSE(parse({"-e", "a:b", "-a", "--duration", "abc"}).ok());
  CHECK_FALSE(parse({"-e"}).ok());
  CHECK(parse_error({"-l"}) == "-l needs a TARGET (file or library name) or -p PID");
  CHECK(parse_error({"-l", "-a", "/bin/x"}) == "-a cannot be combined with -l");
}

TEST_CASE("numbers are checked before anything runs, named as typed", "[record_options]") {
  // Every bad --duration is a usage error of the parser, also with a command
  // to run: nothing may start before it is rejected.
  for (const char* bad : {"1e30", "-1", "nan", "NaN", "inf", "0", "0.0", "-0", "", "2s", "1e-400"}) {
    INFO(bad);
    std::string error = parse_error({"-e", "a:b", "--duration", bad, "--", "./demo"});
    CHECK(error.find("--duration must be") == 0);
    CHECK(error.find(std::string("not '") + bad + "'") != std::string::npos);
  }
  CHECK(*parse_ok({"-e", "a:b", "--duration", "0.001", "-a"}).duration_seconds == 0.001);
  CHECK(*parse_ok({"-e", "a:b", "--duration=3600", "-a"}).duration_seconds == 3600);

  CHECK(parse_error({"-e", "a:b", "-a", "--buffer-pages", "-1"}) ==
        "--buffer-pages must be a whole number up to 1073741824, not '-1'");
  CHECK(parse_error({"-e", "a:b", "-a", "--buffer-pages=-64"}) ==
        "--buffer-pages must be a whole number up to 1073741824, not '-64'");
  CHECK(parse_error({"-e", "a:b", "-a", "--buffer-pages", "4294967296"}) ==
        "--buffer-pages must be a whole number up to 1073741824, not '4294967296'");
  CHECK(parse_error({"-e", "a:b", "-a", "--stack-bytes", "-8"}) ==
        "--stack-bytes must be a whole number up to 65528, not '-8'");
  CHECK(parse_error({"-e", "a:b", "-a", "--stack-bytes", "8x"}) ==
        "--stack-bytes must be a whole number up to 65528, not '8x'");
  CHECK(parse_ok({"-e", "a:b", "-a", "--stack-bytes", "0"}).stack_bytes == 0);
}

TEST_CASE("--string takes argN and parameter names", "[record_options]") {
  auto o = parse_ok({"-e", "uprobe:./server:work", "--string", "uprobe:./server:work=arg2,query,_x1",
                     "--", "./server"});
  REQUIRE(o.strings.size() == 1);
  CHECK(o.strings[0].probe.text == "uprobe:./server:work");
  CHECK(o.strings[0].arg_mask == 4u);
  CHECK(o.strings[0].arg_names == std::vector<std::string>{"query", "_x1"});
  CHECK(parse_error({"-e", "a:b", "--string", "a:b=arg12", "--", "x"}).find("arg0 to arg11") !=
        std::string::npos);
  CHECK(parse_error({"-e", "a:b", "--string", "a:b=9lives", "--", "x"}).find("not an argument") !=
        std::string::npos);
  CHECK(parse_error({"-e", "a:b", "--string", "a:b=a-b", "--", "x"}).find("not an argument") !=
        std::string::npos);
}

TEST_CASE("-g and --call-graph take perf's modes", "[record_options]") {
  using usdt::record::CallGraphMode;
  CHECK(parse_ok({"-e", "a:b", "ls"}).call_graph.mode == CallGraphMode::none);
  auto plain = parse_ok({"-g", "-e", "a:b", "ls"});
  CHECK(plain.call_graph.mode == CallGraphMode::fp);
  CHECK(plain.call_graph.depth == 127);
  CHECK(plain.command == std::vector<std::string>{"ls"});
  auto fp = parse_ok({"--call-graph", "fp,16", "-e", "a:b", "--", "ls"});
  CHECK(fp.call_graph.mode == CallGraphMode::fp);
  CHECK(fp.call_graph.depth == 16);
  auto dwarf = parse_ok({"--call-graph", "dwarf", "-e", "a:b", "ls", "-g"});
  CHECK(dwarf.call_graph.mode == CallGraphMode::dwarf);
  CHECK(dwarf.call_graph.stack_bytes == 8192);
  CHECK(dwarf.command == std::vector<std::string>{"ls", "-g"});  // the command's own -g
  CHECK(parse_ok({"--call-graph=dwarf,65528", "-e", "a:b", "ls"}).call_graph.stack_bytes == 65528);
  CHECK_FALSE(dwarf.buffer_pages_given);
  CHECK(parse_ok({"--call-graph", "dwarf", "--buffer-pages", "8", "-e", "a:b", "ls"})
            .buffer_pages_given);

  CHECK(parse_error({"--call-graph", "lbr", "-e", "a:b", "ls"}).find("fp[,DEPTH] or dwarf") !=
        std::string::npos);
  CHECK(parse_error({"--call-graph", "dwarf,100", "-e", "a:b", "ls"}).find("multiple of 8") !=
        std::string::npos);
  CHECK(parse_error({"--call-graph", "dwarf,65536", "-e", "a:b", "ls"}).find("65528") !=
        std::string::npos);
  CHECK(parse_error({"--call-graph", "dwarf,0", "-e", "a:b", "ls"}).find("multiple of 8") !=
        std::string::npos);
  CHECK(parse_error({"--call-graph", "fp,0", "-e", "a:b", "ls"}).find("at least 1") !=
        std::string::npos);
  CHECK(parse_error({"--call-graph", "fp,x", "-e", "a:b", "ls"}).find("DEPTH") !=
        std::string::npos);
  CHECK(parse_error({"--call-graph", "-e", "a:b", "ls"}).find("--call-graph") != std::string::npos);
}

TEST_CASE("-g takes a MODE when one follows", "[record_options]") {
  using usdt::record::CallGraphMode;
  auto dwarf = parse_ok({"-e", "a:b", "-g", "dwarf", "ls"});
  CHECK(dwarf.call_graph.mode == CallGraphMode::dwarf);
  CHECK(dwarf.command == std::vector<std::string>{"ls"});
  auto fp = parse_ok({"-g", "fp,8", "-e", "a:b", "--", "ls"});
  CHECK(fp.call_graph.mode == CallGraphMode::fp);
  CHECK(fp.call_graph.depth == 8);
  auto plain = parse_ok({"-g", "-e", "a:b", "ls"});
  CHECK(plain.call_graph.mode == CallGraphMode::fp);
  auto command = parse_ok({"-e", "a:b", "-g", "./dwarfish"});
  CHECK(command.call_graph.mode == CallGraphMode::fp);
  CHECK(command.command == std::vector<std::string>{"./dwarfish"});
  CHECK(parse_error({"-g", "dwarf,7", "-e", "a:b", "ls"}).find("multiple of 8") !=
        std::string::npos);
}

TEST_CASE("--capture names the path", "[record_options]") {
  using usdt::record::CaptureMode;
  CHECK(parse_ok({"-e", "a:b", "--", "./x"}).capture == CaptureMode::automatic);
  CHECK(parse_ok({"--capture", "bpf", "-e", "a:b", "--", "./x"}).capture == CaptureMode::bpf);
  CHECK(parse_ok({"--capture=sample", "-e", "a:b", "./x"}).capture == CaptureMode::sample);
  CHECK(parse_ok({"--capture", "auto", "-e", "a:b", "./x", "--capture", "y"}).command ==
        std::vector<std::string>{"./x", "--capture", "y"});
  CHECK(parse_error({"--capture", "ebpf", "-e", "a:b", "./x"}) ==
        "--capture takes bpf, sample or auto, not 'ebpf'");
}
