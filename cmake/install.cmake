# What `cmake --install` puts under the prefix: NEE's programs, libnee with its headers
# and its ONNX front end, a CMake package (find_package(nee) gives nee::nee) and a
# pkg-config file (nee.pc).
include(CMakePackageConfigHelpers)

# Installed programs find libraries in the prefix's library folder, and the tuner and the
# bench find libHalide where the project's venv keeps it (scripts/install-deps.sh).
file(RELATIVE_PATH nee_bin_to_lib /${CMAKE_INSTALL_BINDIR} /${CMAKE_INSTALL_LIBDIR})
set(nee_programs nee-run nee-measure)
set_target_properties(${nee_programs} PROPERTIES INSTALL_RPATH "$ORIGIN/${nee_bin_to_lib}")
if(TARGET nee-tune)
  set(halide_library_dir "")
  foreach(property IMPORTED_LOCATION_RELEASE IMPORTED_LOCATION_NOCONFIG IMPORTED_LOCATION)
    get_target_property(halide_library Halide::Halide ${property})
    if(halide_library AND NOT halide_library_dir)
      get_filename_component(halide_library_dir ${halide_library} DIRECTORY)
    endif()
  endforeach()
  set_target_properties(nee-tune nee-bench PROPERTIES INSTALL_RPATH "$ORIGIN/${nee_bin_to_lib};${halide_library_dir}")
  list(APPEND nee_programs nee-tune nee-bench)
endif()
install(TARGETS ${nee_programs} RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(TARGETS nee EXPORT neeTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
# libnee loads its ONNX front end from its own folder (api/onnx_frontend.h).
install(TARGETS nee_onnx_frontend LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/nee DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})

set(nee_cmake_dir ${CMAKE_INSTALL_LIBDIR}/cmake/nee)
install(EXPORT neeTargets NAMESPACE nee:: DESTINATION ${nee_cmake_dir})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/neeConfig.cmake.in
  ${PROJECT_BINARY_DIR}/neeConfig.cmake INSTALL_DESTINATION ${nee_cmake_dir})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/neeConfigVersion.cmake COMPATIBILITY SameMajorVersion)
install(FILES ${PROJECT_BINARY_DIR}/neeConfig.cmake ${PROJECT_BINARY_DIR}/neeConfigVersion.cmake
  DESTINATION ${nee_cmake_dir})

# nee.pc finds the prefix from its own folder, so a prefix can be moved or chosen at
# install time (cmake --install --prefix).
file(RELATIVE_PATH NEE_PC_TO_PREFIX /${CMAKE_INSTALL_LIBDIR}/pkgconfig /)
string(REGEX REPLACE "/$" "" NEE_PC_TO_PREFIX "${NEE_PC_TO_PREFIX}")
configure_file(${PROJECT_SOURCE_DIR}/cmake/nee.pc.in ${PROJECT_BINARY_DIR}/nee.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/nee.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
