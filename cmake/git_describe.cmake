# Writes OUTPUT, a header defining CORTADO_GIT_DESCRIBE as the checkout's `git describe` (empty
# outside a checkout). Run at every build, it rewrites the header only when the text changes, so
# `cortado --version` follows commits without recompiling anything else.
set(describe "")
# Only the source tree's own checkout: a tarball unpacked inside another repository is not one.
if(EXISTS ${SOURCE_DIR}/.git)
  execute_process(COMMAND git describe --always --dirty --tags WORKING_DIRECTORY ${SOURCE_DIR}
                  OUTPUT_VARIABLE describe OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE failed)
  if(failed)
    set(describe "")
  endif()
endif()
set(text "#define CORTADO_GIT_DESCRIBE \"${describe}\"\n")
if(EXISTS ${OUTPUT})
  file(READ ${OUTPUT} previous)
endif()
if(NOT "${text}" STREQUAL "${previous}")
  file(WRITE ${OUTPUT} "${text}")
endif()
