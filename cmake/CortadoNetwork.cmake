# cortado_add_network(NAME PROTOTXT file [TARGET t] [BATCH n] [INPUT_SHAPE n,c,h,w]
#                     [EMBED_WEIGHTS [WEIGHTS w.caffemodel]])
#
# Compiles a Caffe network (or an ONNX model, given as PROTOTXT) at build time into an imported
# static library target NAME whose header NAME.h declares NAME_create(), NAME_forward() and the
# rest of the C API. EMBED_WEIGHTS links the weights into the library (an ONNX model's own, or
# the WEIGHTS caffemodel) for NAME_create_embedded():
#
#   cortado_add_network(alexnet PROTOTXT models/alexnet.prototxt TARGET host BATCH 1)
#   target_link_libraries(my_app PRIVATE alexnet)
#
# Inside the cortado build the compiler target is used. From an installed cortado,
# find_package(cortado) sets CORTADO_EXECUTABLE to its compiler; otherwise `cortado` is looked up
# on PATH.
find_package(Threads REQUIRED)

function(cortado_add_network name)
  cmake_parse_arguments(ARG "EMBED_WEIGHTS" "PROTOTXT;TARGET;BATCH;INPUT_SHAPE;WEIGHTS" "" ${ARGN})
  if(NOT ARG_PROTOTXT)
    message(FATAL_ERROR "cortado_add_network(${name}): PROTOTXT is required")
  endif()
  if(NOT ARG_TARGET)
    set(ARG_TARGET host)
  endif()
  get_filename_component(prototxt "${ARG_PROTOTXT}" ABSOLUTE)
  if(TARGET cortado)
    set(compiler $<TARGET_FILE:cortado>)
    set(compiler_dependency cortado)
  else()
    find_program(CORTADO_EXECUTABLE cortado REQUIRED)
    set(compiler ${CORTADO_EXECUTABLE})
    set(compiler_dependency ${CORTADO_EXECUTABLE})
  endif()
  set(options --name ${name} --target ${ARG_TARGET})
  if(ARG_BATCH)
    list(APPEND options --batch ${ARG_BATCH})
  endif()
  if(ARG_INPUT_SHAPE)
    list(APPEND options --input-shape ${ARG_INPUT_SHAPE})
  endif()
  set(weights_dependency)
  if(ARG_WEIGHTS AND NOT ARG_EMBED_WEIGHTS)
    message(FATAL_ERROR "cortado_add_network(${name}): WEIGHTS is read only with EMBED_WEIGHTS; "
                        "otherwise pass the file to ${name}_create() at run time")
  endif()
  if(ARG_EMBED_WEIGHTS)
    list(APPEND options --embed-weights)
    if(ARG_WEIGHTS)
      get_filename_component(weights "${ARG_WEIGHTS}" ABSOLUTE)
      list(APPEND options --weights ${weights})
      set(weights_dependency ${weights})
    endif()
  endif()
  set(out ${CMAKE_CURRENT_BINARY_DIR}/cortado_${name})
  file(MAKE_DIRECTORY ${out})
  add_custom_command(
    OUTPUT ${out}/lib${name}.a ${out}/${name}.h
    COMMAND ${CMAKE_COMMAND} -E env CORTADO_CACHE=${CMAKE_BINARY_DIR}/kernel-cache
            ${compiler} compile ${prototxt} ${options} -o ${out}
    DEPENDS ${compiler_dependency} ${prototxt} ${weights_dependency}
    COMMENT "cortado: compiling ${name} for ${ARG_TARGET}"
    VERBATIM)
  add_custom_target(${name}_library DEPENDS ${out}/lib${name}.a ${out}/${name}.h)
  add_library(${name} STATIC IMPORTED GLOBAL)
  set_target_properties(${name} PROPERTIES
    IMPORTED_LOCATION ${out}/lib${name}.a
    INTERFACE_INCLUDE_DIRECTORIES ${out}
    INTERFACE_LINK_LIBRARIES "Threads::Threads;${CMAKE_DL_LIBS};m;stdc++")
  add_dependencies(${name} ${name}_library)
endfunction()
