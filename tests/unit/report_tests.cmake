# usdt-report: analysis pieces and commands on in-memory traces.
usdt_unit_test(report_unit_tests
  SOURCES
    ${CMAKE_CURRENT_LIST_DIR}/log_linear_histogram_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/histogram_text_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/report_text_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/string_text_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/latency_analyzer_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/arg_histogram_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/report_commands_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/report_robustness_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/json_writer_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/trace_set_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/stack_symbolizer_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/stacks_report_test.cpp
  LIBS usdt_report_lib)

# export --format clickhouse-*: the TSV text and the rows.
usdt_unit_test(clickhouse_unit_tests
  SOURCES
    ${CMAKE_CURRENT_LIST_DIR}/clickhouse_text_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/clickhouse_export_test.cpp
  LIBS usdt_report_lib)

# -j N against -j 1, hosts, duplicates, windows (issue 13).
usdt_unit_test(report_parallel_test SOURCES ${CMAKE_CURRENT_LIST_DIR}/report_parallel_test.cpp LIBS usdt_report_lib)
