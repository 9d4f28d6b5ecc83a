// usdt-report export --format clickhouse-events|clickhouse-pairs: rows in
// ClickHouse's TabSeparated text (report/export/clickhouse_text.h) for the tables
// that clickhouse_schema() creates; docs/clickhouse.md documents both.
//
// Host and wall-clock time come from each event's own file: its hostname,
// and start_realtime_ns + (time_ns - start_monotonic_ns) of its metadata, so
// the rows of many hosts' traces, exported one by one or together, land on
// one time axis (as good as the hosts' clocks agree).
#pragma once

#include <string>

#include "report/input/probe_catalog.h"

namespace usdt::report {

// The CREATE TABLE statements of usdt_events and usdt_pairs, for
// `clickhouse-client --multiquery < schema.sql` (export --schema).
std::string clickhouse_schema();

// The name of argument index of a site in the rows' arg_names: the trace's
// own (format 1.2: a DWARF parameter, a tracepoint field), else "argN".
std::string clickhouse_arg_name(const SiteInfo* site, int index);

}  // namespace usdt::report
