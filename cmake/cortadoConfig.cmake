# The installed cortado package: find_package(cortado) gives cortado_add_network() with the
# cortado of this prefix (PREFIX/lib/cmake/cortado/ -> PREFIX/bin/cortado).
get_filename_component(_cortado_prefix "${CMAKE_CURRENT_LIST_DIR}/../../.." ABSOLUTE)
set(CORTADO_EXECUTABLE "${_cortado_prefix}/bin/cortado" CACHE FILEPATH "The cortado compiler")
unset(_cortado_prefix)
include("${CMAKE_CURRENT_LIST_DIR}/CortadoNetwork.cmake")
