# `cmake --install`: the runtime as a package. Headers under include/vktune/ (runtime/, db/,
# kernels/constraints.h, kernels/device_type.h, kernels/output_tile.h, kernels/shader_spec.h),
# the libraries, vktuneConfig.cmake with vktune::runtime (and vktune::db, vktune::catalogue,
# which it links) and vktune.pc for pkg-config.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set_target_properties(vktune_runtime PROPERTIES EXPORT_NAME runtime)
set_target_properties(vktune_db PROPERTIES EXPORT_NAME db)
set_target_properties(vktune_catalogue PROPERTIES EXPORT_NAME catalogue)
install(TARGETS vktune_runtime vktune_db vktune_catalogue EXPORT vktuneTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
# The public headers and the ones they include (kernels/constraints.h, and its
# kernels/output_tile.h, kernels/device_type.h and kernels/shader_spec.h: selection.h's). Consumers
# include <vktune/runtime/...>; the headers themselves include "runtime/...", "db/..." and
# "kernels/...", which include/vktune resolves.
install(FILES runtime/vktune_runtime.h runtime/selection.h runtime/snapshot.h runtime/dispatch.h
              runtime/builtin.h runtime/describe.h runtime/layers.h runtime/environment.h
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/vktune/runtime)
install(FILES db/records.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/vktune/db)
install(FILES kernels/constraints.h kernels/device_type.h kernels/output_tile.h kernels/shader_spec.h
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/vktune/kernels)

set(config_dir ${CMAKE_INSTALL_LIBDIR}/cmake/vktune)
install(EXPORT vktuneTargets NAMESPACE vktune:: DESTINATION ${config_dir})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/vktuneConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/vktuneConfig.cmake
                              INSTALL_DESTINATION ${config_dir})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/vktuneConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/vktuneConfig.cmake
              ${PROJECT_BINARY_DIR}/vktuneConfigVersion.cmake
        DESTINATION ${config_dir})
configure_file(${PROJECT_SOURCE_DIR}/cmake/vktune.pc.in ${PROJECT_BINARY_DIR}/vktune.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/vktune.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
