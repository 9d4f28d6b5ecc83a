# Sets USDT_GIT_REVISION to the short hash of the commit the source tree is
# at (`git rev-parse --short HEAD`), or "unknown" outside a git checkout (a
# source tarball) or without git. Read at configure time; HEAD's reflog is
# made a configure dependency, so the next build after a commit or checkout
# re-runs CMake and the tools' --version stays true.
set(USDT_GIT_REVISION unknown)
find_package(Git QUIET)
if(GIT_FOUND)
  execute_process(
    COMMAND ${GIT_EXECUTABLE} rev-parse --short HEAD
    WORKING_DIRECTORY ${PROJECT_SOURCE_DIR}
    OUTPUT_VARIABLE revision
    OUTPUT_STRIP_TRAILING_WHITESPACE
    ERROR_QUIET
    RESULT_VARIABLE status)
  if(status EQUAL 0 AND revision MATCHES "^[0-9a-f]+$")
    set(USDT_GIT_REVISION ${revision})
    execute_process(
      COMMAND ${GIT_EXECUTABLE} rev-parse --path-format=absolute --git-path logs/HEAD
      WORKING_DIRECTORY ${PROJECT_SOURCE_DIR}
      OUTPUT_VARIABLE head_log
      OUTPUT_STRIP_TRAILING_WHITESPACE
      ERROR_QUIET)
    if(head_log AND EXISTS "${head_log}")
      set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${head_log}")
    endif()
  endif()
endif()
