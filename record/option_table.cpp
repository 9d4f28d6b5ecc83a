#include "record/option_table.h"

#include <sstream>

namespace usdt::record {
namespace po = boost::program_options;

po::options_description make_options(RecordOptions* o, OptionTexts* t) {
  po::options_description desc("Options");
  // clang-format off: one option per line reads as the table it is.
  desc.add_options()("help,h", "show this help")("version", "show the version")(
      "list,l", "list probes instead of recording")(
      "verbose,v",
      "with -l: show locations, semaphores, each argument spec with how it is "
      "read or why it is missing, and call frames")(
      "event,e", po::value<std::vector<std::string>>(&t->probes)->composing(),
      "probe to record (repeatable)")(
      "allow-missing",
      "a PROVIDER:NAME that matches no probe at the start is not an error: "
      "it is attached when a library that has it is loaded (dlopen)")(
      "output,o", po::value<std::string>(&o->output), "trace file (default usdt.trace)")(
      "pid,p", po::value<std::vector<std::string>>(&t->pids)->composing(),
      "trace (or list) PID[,PID...]")("all,a", "trace every process that runs the probed files")(
      "duration", po::value<std::string>(&t->duration), "stop after SECONDS")(
      "quiet,q", "print nothing but errors")(
      "buffer-pages", po::value<std::string>(&t->buffer_pages),
      "per-CPU ring buffer size in pages, a power of 2 (default 1024)")(
      "stack-bytes", po::value<std::string>(&t->stack_bytes),
      "user stack bytes copied per event for stack arguments, multiple of 8 (default 512)")(
      "string", po::value<std::vector<std::string>>(&t->strings)->composing(),
      "PROBE=argN[,argN...]: record those arguments (argN, or a function parameter's name) of "
      "matching probes as strings read at the hit (repeatable; wildcards in PROBE)")(
      "string-bytes", po::value<std::string>(&t->string_bytes),
      "longest string kept, in bytes (default 256, at most 4095); longer ones are cut and "
      "marked truncated")(
      "capture", po::value<std::string>(&t->capture)->value_name("PATH"),
      "how events are captured: bpf (a BPF program reads the arguments at the hit and writes "
      "a BPF ring buffer, with no perf sample written; needs CAP_BPF and CAP_PERFMON, or "
      "root, and Linux 6.12), sample (perf samples of the registers and stack, and kernel "
      "reads through tracefs), or auto (default: bpf where the kernel and permissions allow "
      "it, else sample; one line says which and why)")(
      "max-functions", po::value<std::string>(&t->max_functions),
      "most functions one uprobe/uretprobe pattern may attach (default 1000); a pattern "
      "matching more is refused")(
      ",g",
      "[MODE]: record the user call stack of each event; alone the same as "
      "--call-graph fp, followed by fp[,DEPTH] or dwarf[,BYTES] the same as --call-graph MODE")(
      "call-graph", po::value<std::string>(&t->call_graph)->value_name("MODE"),
      "record the user call stack of each event, as perf does: fp[,DEPTH] (frame "
      "pointers: the kernel's user callchain, at most DEPTH frames, default 127; the caller "
      "of a probe where no frame is set up is read from the stack, where its CFI says) or "
      "dwarf[,BYTES] (the registers and BYTES of the user stack, default 8192, a multiple "
      "of 8 up to 65528, unwound by the recorder with the binaries' CFI; the default "
      "--buffer-pages grows to hold such events)");
  // clang-format on
  add_output_options(desc, &t->output);
  add_live_fleet_options(desc, &t->live_fleet);
  return desc;
}

std::vector<std::string> option_spellings() {
  RecordOptions o;
  OptionTexts t;
  // Named: the options() of a temporary would dangle in the loop.
  const po::options_description desc = make_options(&o, &t);
  std::vector<std::string> out;
  for (const auto& option : desc.options()) {
    if (!option->long_name().empty()) out.push_back("--" + option->long_name());
    // Boost's short name includes its dash ("-e"), or is empty.
    std::string short_name =
        option->canonical_display_name(po::command_line_style::allow_dash_for_short);
    if (short_name.size() == 2 && short_name[0] == '-') out.push_back(short_name);
  }
  return out;
}

namespace {

// Before the options: the forms of the command line and of a PROBE.
const char* const kHelpBefore =
    "usage:\n"
    "  usdt-record -l [-v] [PATTERN...] TARGET...     list the USDT probes of files or "
    "libraries\n"
    "  usdt-record -l [-v] [PATTERN...] -p PID        list the probes of a running process\n"
    "  usdt-record -l [-v] 'uprobe:PATH:PATTERN'      list the functions PATTERN selects\n"
    "  usdt-record [OPTIONS] -e PROBE... -o FILE -- COMMAND [ARG...]\n"
    "  usdt-record [OPTIONS] -e PROBE... -o FILE -p PID[,PID...]\n"
    "  usdt-record [OPTIONS] -e PROBE... -o FILE -a\n"
    "\n"
    "Records USDT probes (sys/sdt.h) through uprobes into a compressed trace file;\n"
    "read it with usdt-report. Ctrl-C or SIGTERM ends a recording cleanly.\n"
    "--duration, Ctrl-C, SIGTERM and a write error (a full disk) end a recording alike:\n"
    "a COMMAND still running gets SIGTERM, then SIGKILL after 2 s (-p processes are\n"
    "left alone); after a write error the file keeps what fitted and the exit status is 1.\n"
    "-p takes process or thread ids; a thread id traces its whole process.\n"
    "\n"
    "TARGET is a path to an ELF file or a library name found as the dynamic loader\n"
    "finds it (ld.so.cache, then the standard directories): ruby, libruby,\n"
    "libruby-3.1.so and libruby-3.1.so.3.1 all name libruby-3.1.so.3.1.2. An\n"
    "executable's listing includes the probes of the libraries it needs (DT_NEEDED),\n"
    "each marked '(library of TARGET)': what PROVIDER:NAME finds when recording it.\n"
    "With -l, an argument that is not an existing file and contains ':' is a PATTERN\n"
    "in the PROBE syntax below that filters the listing (as does -e PROBE).\n"
    "\n"
    "PROBE forms ('*' and '?' wildcards allowed in every part):\n"
    "  usdt:PATH:PROVIDER:NAME      e.g. usdt:/usr/bin/python3.11:python:function__entry\n"
    "  usdt:PATH:NAME               any provider\n"
    "  PROVIDER:NAME                in the command's binary and libraries, or -p's mapped "
    "files\n"
    "                               (-a: every process's); one that matches nothing there is\n"
    "                               an error, unless --allow-missing (then it is attached "
    "when\n"
    "                               a traced process loads a library that has it)\n"
    "  NAME                         any provider, any of those files\n"
    "  uprobe:PATH:SYMBOL[+OFFSET]  function entry (arguments: its parameters, named and "
    "typed\n"
    "                               from DWARF; without DWARF the 6 ABI argument registers)\n"
    "  uretprobe:PATH:SYMBOL        function return (argument 0 = the return value)\n"
    "  tracepoint:SUBSYS:EVENT      a kernel tracepoint; its fields are the arguments\n"
    "SYMBOL is looked up in .symtab and .dynsym; C++ names are matched and shown demangled\n"
    "('uprobe:./server:ns::Server::handle*'; quote a symbol holding a lone ':'). Every\n"
    "function a SYMBOL pattern selects is attached (static functions of one name too), at\n"
    "most --max-functions; aliases at one address are attached once. In traces they are\n"
    "named uprobe:SYMBOL and uretprobe:SYMBOL.\n"
    "PATH may be a library name; a PATH that contains ':' needs the usdt:PATH:PROVIDER:NAME "
    "form.\n"
    "Tracepoints are per traced task with -- and -p (children included), system-wide with "
    "-a;\n"
    "-l 'tracepoint:sched:*' lists them, -v with their fields.\n"
    "\n";

// After the options: long recordings, exit statuses, examples.
const char* const kHelpAfter =
    "\n"
    "The traced COMMAND follows '--' or the last option.\n"
    "\n"
    "Recording for a long time (docs/production.md): --max-size caps the trace file;\n"
    "--switch-output writes a series of complete files (usdt-report reads their directory\n"
    "as one recording) and --max-files keeps the newest; --flight-recorder keeps the recent\n"
    "past in memory and writes it as a snapshot on SIGUSR2, through --control, when a\n"
    "--snapshot-on trigger fires, and at the end. Each file is named NAME.0001.trace, ...\n"
    "(-o without .trace), NAME.000N.trace.partial while it is written.\n"
    "\n"
    "Exit status: 0 success (with -- COMMAND: the command's own status, or 128 + the\n"
    "signal that killed it); 1 failure (a probe that matches nothing, no permission, a\n"
    "write error); 2 misuse (an unknown option, a bad value, a malformed probe).\n"
    "\n"
    "examples:\n"
    "  usdt-record -l /usr/lib/postgresql/15/bin/postgres\n"
    "  usdt-record -l -v 'postgresql:query__*' /usr/lib/postgresql/15/bin/postgres\n"
    "  usdt-record -l ruby\n"
    "  usdt-record -l -p 1234\n"
    "  usdt-record -e 'python:function__*' -o py.trace -- python3.11 script.py\n"
    "  usdt-record -e 'postgresql:query__*' -p 1234 --duration 10\n"
    "  usdt-record -e 'postgresql:query__*' --string 'postgresql:query__start=arg0' -p 1234\n"
    "  usdt-record -e usdt:libstdc++:libstdcxx:throw -a --duration 5\n"
    "  usdt-record -e tracepoint:syscalls:sys_enter_write -e 'demo:*' -- ./demo\n"
    "  usdt-record --call-graph dwarf -e 'postgresql:query__start' -p 1234 --duration 10\n"
    "  usdt-record -e 'hotspot:gc__*' --allow-missing -- java -cp . Main\n"
    "  usdt-record -l 'uprobe:libc.so.6:malloc*'\n"
    "  usdt-record -e uprobe:libc.so.6:malloc -e uretprobe:libc.so.6:malloc -o m.trace -- "
    "ls\n"
    "  usdt-record -e 'postgresql:query__*' -p 1234 -o pg.trace --switch-output 100M "
    "--max-files 3\n"
    "  usdt-record -e 'postgresql:query__*' -p 1234 -o pg.trace --flight-recorder 64M\n"
    "  usdt-record -e 'postgresql:query__*' -p 1234 -o slow.trace --flight-recorder 256M \\\n"
    "      --snapshot-on 'latency postgresql:query__start postgresql:query__done > 500ms' \\\n"
    "      --before 30s --after 5s\n";

}  // namespace

std::string record_help_text() {
  RecordOptions o;
  OptionTexts t;
  std::ostringstream text;
  text << kHelpBefore << make_options(&o, &t) << kHelpAfter;
  return text.str();
}

}  // namespace usdt::record
