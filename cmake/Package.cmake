# cmake/Package.cmake - the installable CMake package (issue 8 point 2).
#
# `cmake --install <build> --prefix P` installs
#   P/lib/libmxref.a                     mxconform::ref      (the reference, C1-C13)
#   P/lib/libmxkernels.a                 mxconform::kernels  (only when built with CUDA)
#   P/include/mx/*.hpp                   the reference's headers
#   P/include/mx/testing/{diff,gtest}.hpp  mxconform::testing (header-only gtest helpers)
#   P/include/mxk/*.hpp                  the kernels' API (with CUDA)
#   P/bin/mxconform                      the command line
#   P/lib/cmake/mxconform/mxconformConfig.cmake (+ version, targets)
# so that a consumer writes find_package(mxconform CONFIG REQUIRED) and links
# mxconform::ref (conformance/package/consumer/ is the example, tested by
# conformance/package/).
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)
set(MX_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/mxconform)

set_target_properties(mxref PROPERTIES EXPORT_NAME ref)
install(TARGETS mxref EXPORT mxconformTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/reference/include/mx DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})

# Header-only test helpers (first-difference diagnostics, gtest macros).
add_library(mxtesting INTERFACE)
target_include_directories(mxtesting INTERFACE
  $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/conformance/package/include>
  $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
target_link_libraries(mxtesting INTERFACE mxref)
set_target_properties(mxtesting PROPERTIES EXPORT_NAME testing)
add_library(mxconform::testing ALIAS mxtesting)
add_library(mxconform::ref ALIAS mxref)
install(TARGETS mxtesting EXPORT mxconformTargets)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/conformance/package/include/mx/testing
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/mx)

set(MX_PACKAGE_HAS_KERNELS OFF)
if(MX_HAVE_CUDA AND TARGET mxkernels)
  set(MX_PACKAGE_HAS_KERNELS ON)
  set_target_properties(mxkernels PROPERTIES EXPORT_NAME kernels)
  install(TARGETS mxkernels EXPORT mxconformTargets
    ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
    INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/kernels/include/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
endif()

if(TARGET mxconform)
  install(TARGETS mxconform RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endif()

install(EXPORT mxconformTargets NAMESPACE mxconform:: DESTINATION ${MX_CMAKE_DIR})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/mxconformConfig.cmake.in
  ${PROJECT_BINARY_DIR}/cmake/mxconformConfig.cmake INSTALL_DESTINATION ${MX_CMAKE_DIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/cmake/mxconformConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/cmake/mxconformConfig.cmake ${PROJECT_BINARY_DIR}/cmake/mxconformConfigVersion.cmake
  DESTINATION ${MX_CMAKE_DIR})
