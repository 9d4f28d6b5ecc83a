# usdt_tag_tests(TARGET exe MARKER marker PREFIX prefix LABEL label [SOURCES files...]
#                [LAUNCHER cmd...] [ENVIRONMENT VAR=value...] [EXTRA_LABELS labels...]
#                [EXCLUDE_TAGS regex])
#
# One CTest entry per hidden Catch2 case of SOURCES (default: the *_test.cpp
# sources of TARGET), found in the files at configure time rather than
# listed by hand: a case tagged "[.MARKER][TAG]..."
# becomes the entry PREFIX_TAG, which runs `LAUNCHER exe "[TAG]" -w NoTests`
# (a tag that selects nothing fails). TAG must be unique. A case that also
# carries [itest_control] gets RESOURCE_LOCK itest_control. Exit status 77 is
# a skip (tests/skip_case.h). ENVIRONMENT is set for every entry, which
# also carries EXTRA_LABELS; tags that match EXCLUDE_TAGS get no entry.
# Editing a source re-runs the configure step.
function(usdt_tag_tests)
  cmake_parse_arguments(T "" "TARGET;MARKER;PREFIX;LABEL;EXCLUDE_TAGS"
                        "SOURCES;LAUNCHER;ENVIRONMENT;EXTRA_LABELS" ${ARGN})
  if(NOT T_SOURCES)
    # By default, the target's own *_test.cpp files.
    get_target_property(T_SOURCES ${T_TARGET} SOURCES)
    list(FILTER T_SOURCES INCLUDE REGEX "_test\\.cpp$")
  endif()
  set(word "[A-Za-z0-9_]+")
  set(seen "")
  foreach(src IN LISTS T_SOURCES)
    set(path ${CMAKE_CURRENT_SOURCE_DIR}/${src})
    set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${path})
    file(READ ${path} text)
    # Brackets would confuse CMake lists: rewrite "[.m][a][b]" as "<.m><a><b>".
    string(REGEX MATCHALL "\"\\[\\.${T_MARKER}\\](\\[${word}\\])+\"" cases "${text}")
    string(REPLACE "[" "<" cases "${cases}")
    string(REPLACE "]" ">" cases "${cases}")
    foreach(tags IN LISTS cases)
      if(NOT tags MATCHES "^\"<\\.${T_MARKER}><(${word})>")
        message(FATAL_ERROR "${src}: cannot read the tags ${tags}")
      endif()
      set(tag ${CMAKE_MATCH_1})
      if(tag IN_LIST seen)
        message(FATAL_ERROR "${src}: the tag [${tag}] names two [.${T_MARKER}] cases")
      endif()
      list(APPEND seen ${tag})
      if(T_EXCLUDE_TAGS AND tag MATCHES "^(${T_EXCLUDE_TAGS})$")
        continue()
      endif()
      set(name ${T_PREFIX}_${tag})
      add_test(NAME ${name} COMMAND ${T_LAUNCHER} $<TARGET_FILE:${T_TARGET}> "[${tag}]" -w NoTests)
      set_tests_properties(${name} PROPERTIES LABELS "${T_LABEL};${T_EXTRA_LABELS}"
                           SKIP_RETURN_CODE 77 TIMEOUT 120)
      if(T_ENVIRONMENT)
        set_tests_properties(${name} PROPERTIES ENVIRONMENT "${T_ENVIRONMENT}")
      endif()
      if(tags MATCHES "<itest_control>")
        set_tests_properties(${name} PROPERTIES RESOURCE_LOCK itest_control)
      endif()
    endforeach()
  endforeach()
  if(NOT seen)
    message(FATAL_ERROR "no [.${T_MARKER}] case found in ${T_SOURCES}")
  endif()
endfunction()
