# Tests of formats/ (the trace file).
usdt_unit_test(byte_cursor_test SOURCES byte_cursor_test.cpp LIBS usdt_formats)
usdt_unit_test(zstd_codec_test SOURCES zstd_codec_test.cpp LIBS usdt_formats)
usdt_unit_test(chunk_codec_test SOURCES chunk_codec_test.cpp LIBS usdt_formats)
usdt_unit_test(trace_writer_test SOURCES trace_writer_test.cpp LIBS usdt_formats)
usdt_unit_test(trace_reader_test SOURCES trace_reader_test.cpp LIBS usdt_formats)
usdt_unit_test(trace_reader_damage_test SOURCES trace_reader_damage_test.cpp LIBS usdt_formats)
usdt_unit_test(trace_reader_compat_test SOURCES trace_reader_compat_test.cpp LIBS usdt_formats)
usdt_unit_test(table_codec_test SOURCES table_codec_test.cpp LIBS usdt_formats)
