# cmake/GTestOrSource.cmake - GoogleTest for the stand-alone GPU builds
# (bench/standalone, kernels/probes/standalone, kernels/gemm/standalone): the
# installed package, or a source tree carried to a machine that has none
# (-DMX_GTEST_SRC=<googletest source>, e.g. a copy of Debian's /usr/src/googletest).
set(MX_GTEST_SRC "" CACHE PATH "GoogleTest source tree used when no installed GTest is found")
find_package(GTest QUIET)
if(NOT GTest_FOUND)
  if(NOT MX_GTEST_SRC)
    message(FATAL_ERROR "GoogleTest not found: install it or pass -DMX_GTEST_SRC=<source tree>")
  endif()
  set(INSTALL_GTEST OFF CACHE BOOL "" FORCE)
  set(BUILD_GMOCK OFF CACHE BOOL "" FORCE)
  add_subdirectory(${MX_GTEST_SRC} gtest EXCLUDE_FROM_ALL)
  if(NOT TARGET GTest::gtest)
    add_library(GTest::gtest ALIAS gtest)
    add_library(GTest::gtest_main ALIAS gtest_main)
  endif()
endif()
