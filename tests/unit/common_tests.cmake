# Tests of common/ (discovery) and of usdt-record's options and listing.
usdt_unit_test(arg_spec_test SOURCES arg_spec_test.cpp LIBS usdt_common)
usdt_unit_test(glob_match_test SOURCES glob_match_test.cpp LIBS usdt_common)
usdt_unit_test(probe_spec_test SOURCES probe_spec_test.cpp LIBS usdt_common)
usdt_unit_test(library_finder_test SOURCES library_finder_test.cpp LIBS usdt_common)
usdt_unit_test(proc_maps_test SOURCES proc_maps_test.cpp LIBS usdt_common)
usdt_unit_test(usdt_probe_test SOURCES usdt_probe_test.cpp LIBS usdt_common usdt_fixture_paths)
# Checks read_usdt_file against binutils' readelf on real programs.
usdt_unit_test(usdt_probe_readelf_test HIDDEN_ONLY SOURCES usdt_probe_readelf_test.cpp LIBS usdt_common)
# The cases on real programs ([.real][TAG]) run one per CTest entry, skipped
# (exit 77) when the program is not installed (tests/skip_case.h).
usdt_tag_tests(TARGET usdt_probe_test MARKER real PREFIX usdt_probe_test LABEL unit)
usdt_tag_tests(TARGET usdt_probe_readelf_test MARKER real PREFIX usdt_probe_readelf_test LABEL unit)
usdt_unit_test(record_options_test SOURCES record_options_test.cpp LIBS usdt_record_lib)
# Runs the built usdt-record -l on fixtures and on bad input.
usdt_unit_test(list_command_test SOURCES list_command_test.cpp LIBS usdt_common usdt_fixture_paths usdt_params_fixture_paths)
target_compile_definitions(list_command_test PRIVATE USDT_RECORD_BINARY="$<TARGET_FILE:usdt-record>")
add_dependencies(list_command_test usdt-record)
usdt_unit_test(demangle_test SOURCES demangle_test.cpp LIBS usdt_common)
