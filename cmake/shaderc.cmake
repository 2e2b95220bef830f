# vktune::shaderc: libshaderc linked statically with the glslang and SPIRV-Tools archives it
# needs. Debian 12's libshaderc.so leaves those symbols unresolved, and a static link also
# keeps the binaries self-contained for machines without shaderc (the GPU box).
#
# -DVKTUNE_SHADERC_PREFIX=<prefix>: link the newer compiler tools/setup-newer-shaderc.sh builds
# instead (<prefix>/lib/libshaderc_combined.a holds shaderc, glslang and SPIRV-Tools in one
# archive; headers in <prefix>/include). It accepts GL_EXT_integer_dot_product and the
# cooperative-matrix extensions Debian 12's does not, so the families that need them become
# available (kernels/vk/compiler_probe.h). Unset: Debian's, as before.
set(VKTUNE_SHADERC_PREFIX "" CACHE PATH
    "Prefix of a newer static shaderc (tools/setup-newer-shaderc.sh); empty: Debian's")
find_package(Threads REQUIRED)
add_library(vktune_shaderc INTERFACE)
if(VKTUNE_SHADERC_PREFIX)
  set(combined "${VKTUNE_SHADERC_PREFIX}/lib/libshaderc_combined.a")
  if(NOT EXISTS "${combined}" OR NOT EXISTS "${VKTUNE_SHADERC_PREFIX}/include/shaderc/shaderc.hpp")
    message(FATAL_ERROR "VKTUNE_SHADERC_PREFIX=${VKTUNE_SHADERC_PREFIX} holds no "
                        "lib/libshaderc_combined.a and include/shaderc/shaderc.hpp; build it with "
                        "tools/setup-newer-shaderc.sh ${VKTUNE_SHADERC_PREFIX}")
  endif()
  message(STATUS "vktune: shader compiler from ${VKTUNE_SHADERC_PREFIX}")
  # BEFORE: its headers, not Debian's /usr/include/shaderc, whatever else is on the path.
  target_include_directories(vktune_shaderc BEFORE INTERFACE "${VKTUNE_SHADERC_PREFIX}/include")
  target_link_libraries(vktune_shaderc INTERFACE "${combined}" Threads::Threads)
  # Its sources, as tools/setup-newer-shaderc.sh records them.
  set(version_file "${VKTUNE_SHADERC_PREFIX}/VERSIONS.txt")
  set(VKTUNE_SHADERC_VERSION "${VKTUNE_SHADERC_PREFIX}")
  if(EXISTS "${version_file}")
    file(STRINGS "${version_file}" VKTUNE_SHADERC_VERSION LIMIT_COUNT 1)
  endif()
else()
  set(vktune_shaderc_parts shaderc_combined glslang MachineIndependent OSDependent OGLCompiler
      GenericCodeGen SPIRV SPIRV-Tools-opt SPIRV-Tools)
  set(vktune_shaderc_paths "")
  foreach(part IN LISTS vktune_shaderc_parts)
    find_library(VKTUNE_LIB_${part} NAMES lib${part}.a ${part} REQUIRED)
    list(APPEND vktune_shaderc_paths ${VKTUNE_LIB_${part}})
  endforeach()
  # The archives reference each other in cycles: one rescanned group resolves them.
  target_link_libraries(vktune_shaderc INTERFACE
    "$<LINK_GROUP:RESCAN,${vktune_shaderc_paths}>" Threads::Threads)
  find_package(PkgConfig QUIET)
  set(VKTUNE_SHADERC_VERSION "Debian")
  if(PKG_CONFIG_FOUND)
    pkg_check_modules(VKTUNE_SHADERC_PC QUIET shaderc_combined)
    if(VKTUNE_SHADERC_PC_FOUND)
      set(VKTUNE_SHADERC_VERSION "Debian ${VKTUNE_SHADERC_PC_VERSION}")
    endif()
  endif()
endif()
# Part of the disk cache's key (kernels/vk/spirv_disk_cache.h): a binary compiled by one shaderc is
# never served to a build linked with another.
target_compile_definitions(vktune_shaderc INTERFACE
                           "VKTUNE_SHADERC_VERSION=\"${VKTUNE_SHADERC_VERSION}\"")
add_library(vktune::shaderc ALIAS vktune_shaderc)
