# `cmake --install BUILD --prefix PREFIX` lays cortado out as compiler/install_layout.h says, with
# a CMake package, so that another project can do
#   find_package(cortado REQUIRED)            # -Dcortado_DIR=PREFIX/lib/cmake/cortado, or
#   cortado_add_network(net PROTOTXT ...)     # CMAKE_PREFIX_PATH=PREFIX
# Nothing installed refers to the source or build tree: cortado finds libHalide through its
# RPATH ($ORIGIN/../lib) and the rest above its own folder, or under $CORTADO_HOME.
include(CMakePackageConfigHelpers)
install(TARGETS cortado RUNTIME DESTINATION bin)
install(TARGETS cortado_runtime ARCHIVE DESTINATION lib)
if(TARGET cortado_bench_peers)
  install(TARGETS cortado_bench_peers LIBRARY DESTINATION lib)
endif()
install(IMPORTED_RUNTIME_ARTIFACTS Halide::Halide LIBRARY DESTINATION lib)
install(DIRECTORY ${CMAKE_SOURCE_DIR}/targets/ DESTINATION share/cortado/targets)
install(DIRECTORY ${CMAKE_SOURCE_DIR}/runtime/ DESTINATION share/cortado/runtime
        FILES_MATCHING PATTERN "*.h" PATTERN "*.cc")
install(DIRECTORY ${CMAKE_SOURCE_DIR}/ops/ DESTINATION share/cortado/ops
        FILES_MATCHING PATTERN "*.h")
# The scripts `cortado bench exported` runs: the exporter, the onnxruntime peer and its quantizer.
install(PROGRAMS ${CMAKE_SOURCE_DIR}/tools/bench/export_torchvision.py ${CMAKE_SOURCE_DIR}/tools/bench/onnxruntime_peer.py
                 ${CMAKE_SOURCE_DIR}/tools/bench/onnxruntime_quantize.py
        DESTINATION share/cortado/tools)
file(GLOB halide_runtime_headers ${CORTADO_HALIDE_INCLUDE_DIR}/HalideRuntime*.h)
install(FILES ${halide_runtime_headers} DESTINATION share/cortado/halide-include)
write_basic_package_version_file(${CMAKE_BINARY_DIR}/cortadoConfigVersion.cmake VERSION ${PROJECT_VERSION}
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_SOURCE_DIR}/cmake/cortadoConfig.cmake ${CMAKE_SOURCE_DIR}/cmake/CortadoNetwork.cmake
              ${CMAKE_BINARY_DIR}/cortadoConfigVersion.cmake
        DESTINATION lib/cmake/cortado)
