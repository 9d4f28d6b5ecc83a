# Tests of formats/ (the trace file).
usdt_unit_test(trace_reader_test SOURCES trace_reader_test.cpp LIBS usdt_formats)
usdt_unit_test(trace_reader_damage_test SOURCES trace_reader_damage_test.cpp LIBS usdt_formats)
