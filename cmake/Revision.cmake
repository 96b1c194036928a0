# Writes OUT, a C++ include defining FUSEC_VERSION_STRING and
# FUSEC_GIT_REVISION (the commit of SOURCE_DIR, "-dirty" with uncommitted
# changes; outside a git checkout the contents of SOURCE_DIR/REVISION, which
# copies of the sources such as bench/gpu's bundle carry, else "unknown"),
# only when they change, so that
# a build after a commit rebuilds one file. Run by the fusec-revision target
# on every build: cmake -DSOURCE_DIR=... -DVERSION=... -DOUT=... -P this.
set(revision "unknown")
find_package(Git QUIET)
if(GIT_FOUND AND EXISTS "${SOURCE_DIR}/.git")
  execute_process(COMMAND "${GIT_EXECUTABLE}" -C "${SOURCE_DIR}" rev-parse --short=12 HEAD
                  OUTPUT_VARIABLE head RESULT_VARIABLE failed
                  OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  if(NOT failed AND head)
    set(revision "${head}")
    execute_process(COMMAND "${GIT_EXECUTABLE}" -C "${SOURCE_DIR}" diff --quiet HEAD --
                    RESULT_VARIABLE dirty ERROR_QUIET)
    if(dirty)
      set(revision "${revision}-dirty")
    endif()
  endif()
elseif(EXISTS "${SOURCE_DIR}/REVISION")
  file(STRINGS "${SOURCE_DIR}/REVISION" lines LIMIT_COUNT 1)
  if(lines MATCHES "^[0-9a-f]+(-dirty)?$")
    set(revision "${lines}")
  endif()
endif()
set(text "#define FUSEC_VERSION_STRING \"${VERSION}\"\n#define FUSEC_GIT_REVISION \"${revision}\"\n")
if(EXISTS "${OUT}")
  file(READ "${OUT}" old)
endif()
if(NOT "${old}" STREQUAL "${text}")
  file(WRITE "${OUT}" "${text}")
endif()
