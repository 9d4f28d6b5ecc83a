# Tests of usdt-record's perf layer and recording session (no root needed;
# the real recordings are in tests/integration/).
usdt_unit_test(kernel_features_test SOURCES kernel_features_test.cpp LIBS usdt_record_lib)
usdt_unit_test(site_sampling_test SOURCES site_sampling_test.cpp LIBS usdt_record_lib)
usdt_unit_test(sample_decoder_test SOURCES sample_decoder_test.cpp LIBS usdt_record_lib)
usdt_unit_test(ring_buffer_test SOURCES ring_buffer_test.cpp LIBS usdt_record_lib)
usdt_unit_test(drainer_test SOURCES drainer_test.cpp LIBS usdt_record_lib)
usdt_unit_test(writer_thread_test SOURCES writer_thread_test.cpp LIBS usdt_record_lib)
usdt_unit_test(record_support_test SOURCES record_support_test.cpp LIBS usdt_record_lib usdt_fixture_paths)
usdt_unit_test(probe_resolver_test SOURCES probe_resolver_test.cpp LIBS usdt_record_lib usdt_fixture_paths)
usdt_unit_test(uprobe_event_group_test SOURCES uprobe_event_group_test.cpp LIBS usdt_record_lib)
usdt_unit_test(target_processes_test SOURCES target_processes_test.cpp LIBS usdt_record_lib usdt_fixture_paths)
usdt_unit_test(function_params_test SOURCES function_params_test.cpp LIBS usdt_record_lib usdt_params_fixture_paths)
usdt_unit_test(debuginfo_finder_test SOURCES debuginfo_finder_test.cpp LIBS usdt_record_lib usdt_params_fixture_paths)
usdt_unit_test(function_symbols_test SOURCES function_symbols_test.cpp LIBS usdt_record_lib usdt_fixture_paths)
# Tracepoint formats: real format files of this kernel in tests/fixtures/tracepoint_formats.
usdt_unit_test(tracepoint_format_test SOURCES tracepoint_format_test.cpp LIBS usdt_record_lib)
target_compile_definitions(tracepoint_format_test PRIVATE
  TRACEPOINT_FORMAT_DIR="${PROJECT_SOURCE_DIR}/tests/fixtures/tracepoint_formats")
usdt_unit_test(tracepoint_sites_test SOURCES tracepoint_sites_test.cpp LIBS usdt_record_lib)
target_compile_definitions(tracepoint_sites_test PRIVATE
  TRACEPOINT_FORMAT_DIR="${PROJECT_SOURCE_DIR}/tests/fixtures/tracepoint_formats")
usdt_unit_test(process_mappings_test SOURCES process_mappings_test.cpp LIBS usdt_record_lib)
usdt_unit_test(mapping_follower_test SOURCES mapping_follower_test.cpp LIBS usdt_record_lib usdt_fixture_paths ${CMAKE_DL_LIBS})
usdt_unit_test(stack_collector_test SOURCES stack_collector_test.cpp LIBS usdt_record_lib)
usdt_unit_test(object_table_test SOURCES object_table_test.cpp LIBS usdt_record_lib usdt_fixture_paths)
# The unwinder walks this test's own stack: chains built with and without
# frame pointers (unwind_chain_*.cpp), libc frames through qsort.
usdt_unit_test(dwarf_unwinder_test
  SOURCES dwarf_unwinder_test.cpp unwind_chain_fp.cpp unwind_chain_nofp.cpp
  LIBS usdt_record_lib ${CMAKE_DL_LIBS})
set_source_files_properties(unwind_chain_fp.cpp PROPERTIES
  COMPILE_OPTIONS "-O0;-fno-omit-frame-pointer;-fasynchronous-unwind-tables")
set_source_files_properties(unwind_chain_nofp.cpp PROPERTIES
  COMPILE_OPTIONS "-O2;-fomit-frame-pointer;-fasynchronous-unwind-tables")
# Tracefs events of -a sites whose file is gone (root: real tracefs). Its
# cases run one per CTest entry, like the integration tests.
usdt_unit_test(tracefs_definition_test HIDDEN_ONLY SOURCES tracefs_definition_test.cpp
               LIBS usdt_record_lib usdt_fixture_paths)
usdt_tag_tests(TARGET tracefs_definition_test MARKER root PREFIX tracefs_definition LABEL integration
               LAUNCHER ${PROJECT_SOURCE_DIR}/tests/integration/run_integration.sh)
