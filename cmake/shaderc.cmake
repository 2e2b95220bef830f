# vktune::shaderc: libshaderc linked statically with the glslang and SPIRV-Tools archives it
# needs. Debian 12's libshaderc.so leaves those symbols unresolved, and a static link also
# keeps the binaries self-contained for machines without shaderc (the GPU box).
set(vktune_shaderc_parts shaderc_combined glslang MachineIndependent OSDependent OGLCompiler
    GenericCodeGen SPIRV SPIRV-Tools-opt SPIRV-Tools)
set(vktune_shaderc_paths "")
foreach(part IN LISTS vktune_shaderc_parts)
  find_library(VKTUNE_LIB_${part} NAMES lib${part}.a ${part} REQUIRED)
  list(APPEND vktune_shaderc_paths ${VKTUNE_LIB_${part}})
endforeach()
find_package(Threads REQUIRED)
add_library(vktune_shaderc INTERFACE)
# The archives reference each other in cycles: one rescanned group resolves them.
target_link_libraries(vktune_shaderc INTERFACE
  "$<LINK_GROUP:RESCAN,${vktune_shaderc_paths}>" Threads::Threads)
add_library(vktune::shaderc ALIAS vktune_shaderc)
