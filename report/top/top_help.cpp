#include "report/top/top_help.h"

namespace usdt::report {

const char* top_usage() {
  return "usage: usdt-report top [--start PROBE --end PROBE]... [--key tid|pid|argN]\n"
         "                       [--interval TIME] [--once] [--format text|json]\n"
         "                       [OPTIONS] TRACE\n\n"
         "A live view of a recording in progress, read from the trace file while\n"
         "usdt-record writes it (the chunks it has flushed): every second, for each probe\n"
         "its events per second and since the start, the events the kernel lost, and for\n"
         "each --start/--end pair the pairs that ended per second with their p50, p99 and\n"
         "maximum duration. A second is shown once the file holds all of it: the recorder\n"
         "says up to which time the file is complete after each flush (usdt-record\n"
         "--flush-interval, default 1s; the view trails the recording by that and a\n"
         "fraction of a second). It ends when the recording ends, with the figures of the\n"
         "whole recording; a trace whose recording has ended shows that screen at once.\n"
         "--once prints one screen of what the file holds now and exits.\n\n"
         "On a terminal each screen replaces the last (80 columns); into a pipe or a file\n"
         "every screen is written, one after another. --format json writes one JSON\n"
         "object per screen and line (complete_before_ns: the time, on the trace's clock,\n"
         "before which every event is counted).\n"
         "When the recorder stops without writing its end (killed), the view says so\n"
         "after a few seconds without progress and goes on waiting: Ctrl-C ends it.\n";
}

}  // namespace usdt::report
