# Tests of usdt-record's perf layer and recording session (no root needed;
# the real recordings are in tests/integration/).
usdt_unit_test(kernel_features_test SOURCES kernel_features_test.cpp LIBS usdt_record_lib)
usdt_unit_test(site_sampling_test SOURCES site_sampling_test.cpp LIBS usdt_record_lib)
usdt_unit_test(sample_decoder_test SOURCES sample_decoder_test.cpp LIBS usdt_record_lib)
usdt_unit_test(ring_buffer_test SOURCES ring_buffer_test.cpp LIBS usdt_record_lib)
usdt_unit_test(record_support_test SOURCES record_support_test.cpp LIBS usdt_record_lib usdt_fixture_paths)
usdt_unit_test(probe_resolver_test SOURCES probe_resolver_test.cpp LIBS usdt_record_lib usdt_fixture_paths)
usdt_unit_test(uprobe_event_group_test SOURCES uprobe_event_group_test.cpp LIBS usdt_record_lib)
usdt_unit_test(target_processes_test SOURCES target_processes_test.cpp LIBS usdt_record_lib usdt_fixture_paths)
usdt_unit_test(function_symbols_test SOURCES function_symbols_test.cpp LIBS usdt_record_lib usdt_fixture_paths)
