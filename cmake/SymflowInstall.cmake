# Install rules: headers, the exported symflow::symflow target, symflowConfig.cmake,
# symflowConfigVersion.cmake and symflow_compiled.cpp (the one source that
# symflow::compiled adds to a consumer's target), so that consumers can write
#
#   find_package(symflow 0.1 CONFIG REQUIRED)
#   target_link_libraries(app PRIVATE symflow::symflow)   # header-only
#   target_link_libraries(app PRIVATE symflow::compiled)  # or: heavy parts compiled once
include_guard(GLOBAL)
include(CMakePackageConfigHelpers)

# Header-only: the package is architecture independent, so it lives under share/.
set(SYMFLOW_INSTALL_CMAKEDIR "${CMAKE_INSTALL_DATADIR}/cmake/symflow" CACHE STRING
  "Install directory of symflowConfig.cmake, relative to the prefix")

install(DIRECTORY "${PROJECT_SOURCE_DIR}/include/"
  DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}"
  FILES_MATCHING
    PATTERN "*.hpp" PATTERN "*.h" PATTERN "*.cuh" PATTERN "*.inl" PATTERN "*.ipp")

install(TARGETS symflow EXPORT symflowTargets)
install(EXPORT symflowTargets
  NAMESPACE symflow::
  FILE symflowTargets.cmake
  DESTINATION "${SYMFLOW_INSTALL_CMAKEDIR}")

configure_package_config_file(
  "${PROJECT_SOURCE_DIR}/cmake/symflowConfig.cmake.in"
  "${PROJECT_BINARY_DIR}/symflowConfig.cmake"
  INSTALL_DESTINATION "${SYMFLOW_INSTALL_CMAKEDIR}")

# 0.x: a new minor version may break the API, so only the same major.minor is compatible.
write_basic_package_version_file(
  "${PROJECT_BINARY_DIR}/symflowConfigVersion.cmake"
  VERSION "${PROJECT_VERSION}"
  COMPATIBILITY SameMinorVersion
  ARCH_INDEPENDENT)

install(FILES
  "${PROJECT_BINARY_DIR}/symflowConfig.cmake"
  "${PROJECT_BINARY_DIR}/symflowConfigVersion.cmake"
  "${SYMFLOW_COMPILED_SOURCE}"
  ${SYMFLOW_COMPILED_PART_SOURCES}
  DESTINATION "${SYMFLOW_INSTALL_CMAKEDIR}")
