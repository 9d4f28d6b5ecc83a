// The command line: words, options, misuse, --help and --version.
#include <catch2/catch.hpp>
#include <cstdio>
#include <string>

#include "report/command_line.h"
#include "report/input/query.h"
#include "tests/unit/report/support/command_runner.h"

using namespace usdt::report;
using namespace usdt::report::test;
namespace fmt = usdt::format;

TEST_CASE("command line parsing", "[command_line]") {
  auto parse = [](std::vector<const char*> words) {
    words.insert(words.begin(), "usdt-report");
    return parse_command_line(static_cast<int>(words.size()), words.data());
  };
  ParsedCommandLine p = parse({"memory.trace"});
  CHECK(p.action == ParsedCommandLine::Action::run);
  CHECK(p.options.command == Command::summary);
  p = parse({"latency", "--start", "a", "--end", "b", "--key", "arg2", "--by", "pid", "--linear", "0,100,10", "x.trace"});
  REQUIRE(p.action == ParsedCommandLine::Action::run);
  CHECK(p.options.key.kind == KeySpec::Kind::arg);
  CHECK(p.options.key.arg.index == 2);
  CHECK(p.options.by->kind == KeySpec::Kind::pid);
  CHECK(p.options.linear_hist);
  p = parse({"dump", "--since", "1.5s", "--probe", "a:*", "--probe", "b", "x.trace"});
  REQUIRE(p.action == ParsedCommandLine::Action::run);
  CHECK(*p.options.filter.since_ns == 1500000000);
  CHECK(p.options.filter.probes.size() == 2);

  p = parse({"dump", "--bogus", "x.trace"});
  CHECK(p.exit_code == 2);
  CHECK(p.text.find("usdt-report: error: ") == 0);
  CHECK(p.text.find("hint: see 'usdt-report dump --help'") != std::string::npos);
  CHECK(parse({"latency", "--start", "a", "x.trace"}).exit_code == 2);
  CHECK(parse({"dump", "--pid", "-1", "x.trace"}).exit_code == 2);
  CHECK(parse({"dump", "--since", "5q", "x.trace"}).exit_code == 2);
  p = parse({"dump"});  // no TRACE: the recorder's default output
  REQUIRE(p.action == ParsedCommandLine::Action::run);
  CHECK(p.options.traces == std::vector<std::string>{"usdt.trace"});
  CHECK(parse({"hist", "--probe", "a", "x.trace"}).exit_code == 2);
  CHECK(parse({"latency", "--start", "a", "--end", "b", "--key", "arg12", "x.trace"}).exit_code == 2);
  CHECK(parse({"latency", "--start", "a", "--end", "b", "--key", "a b", "x.trace"}).exit_code == 2);
  CHECK(parse({"latency", "--start", "a", "--end", "b", "--key", "9lives", "x.trace"}).exit_code == 2);
  // Argument names (format 1.2), resolved per probe later.
  p = parse({"latency", "--start", "a", "--end", "b", "--key", "query", "--by", "client.port", "x.trace"});
  REQUIRE(p.action == ParsedCommandLine::Action::run);
  CHECK(p.options.key.kind == KeySpec::Kind::arg);
  CHECK(p.options.key.arg.name == "query");
  CHECK(p.options.key.text() == "query");
  CHECK(p.options.by->arg.name == "client.port");
  p = parse({"hist", "--probe", "a", "--arg", "3", "x.trace"});
  REQUIRE(p.action == ParsedCommandLine::Action::run);
  CHECK(p.options.arg->index == 3);
  CHECK(p.options.arg->name.empty());
  p = parse({"hist", "--probe", "a", "--arg", "arg4", "x.trace"});
  CHECK(p.options.arg->index == 4);
  p = parse({"hist", "--probe", "a", "--arg", "size", "x.trace"});
  CHECK(p.options.arg->name == "size");
  CHECK(parse({"hist", "--probe", "a", "--arg", "12", "x.trace"}).exit_code == 2);
  p = parse({"sumary", "x.trace"});
  CHECK(p.exit_code == 2);
  CHECK(p.text.find("unknown command 'sumary' (did you mean 'summary'?)") != std::string::npos);
  p = parse({"hist", "--probe", "a", "--arg", "0", "--by", "arg1", "x.trace"});
  CHECK(p.action == ParsedCommandLine::Action::run);
  CHECK(p.options.by->kind == KeySpec::Kind::arg);
  CHECK(p.options.by->arg.index == 1);
  CHECK(parse({"hist", "--probe", "a", "--arg", "0", "--by", "arg12", "x.trace"}).exit_code == 2);
}

TEST_CASE("an unknown command word is a misuse, a path is a trace", "[command_line]") {
  auto parse = [](std::vector<const char*> words) {
    words.insert(words.begin(), "usdt-report");
    return parse_command_line(static_cast<int>(words.size()), words.data());
  };
  ParsedCommandLine p = parse({"frobnicate", "x.trace"});
  CHECK(p.action == ParsedCommandLine::Action::print_and_exit);
  CHECK(p.exit_code == 2);
  CHECK(p.to_stderr);
  CHECK(p.text.find("usdt-report: error: unknown command 'frobnicate'; the commands are summary, dump, latency, "
                    "hist, export, stacks, flamegraph, heatmap, html, top\n") == 0);
  CHECK(p.text.find("did you mean") == std::string::npos);
  // A word that looks like a path is a trace, even when missing: the
  // missing file is reported when it is opened.
  p = parse({"gone.trace"});
  CHECK(p.action == ParsedCommandLine::Action::run);
  CHECK(p.options.command == Command::summary);
  CHECK(p.options.traces == std::vector<std::string>{"gone.trace"});
  p = parse({"./frobnicate"});
  CHECK(p.action == ParsedCommandLine::Action::run);
  p = parse({"/dev/null"});
  CHECK(p.action == ParsedCommandLine::Action::run);
  p = parse({"--help"});
  CHECK(p.text.find("exit status: 0 done; 1 failure") != std::string::npos);
  p = parse({"latency", "--help"});
  CHECK(p.exit_code == 0);
  CHECK(p.text.find("--start") != std::string::npos);
  p = parse({"--version"});
  CHECK(p.text.find("usdt-report ") == 0);
}
