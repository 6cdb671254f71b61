# The operator families, read from NEE_FAMILIES in core/family.h, the one list the C++
# tables are built from: each layer compiles its families' files by their names, so a
# new family's files are found here, not listed in every CMakeLists.txt. Editing
# core/family.h reconfigures.
set(nee_family_header ${PROJECT_SOURCE_DIR}/core/family.h)
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${nee_family_header})
file(STRINGS ${nee_family_header} nee_family_list REGEX "^#define NEE_FAMILIES\\(X\\)")
string(REGEX MATCHALL "X\\([a-z0-9_]+\\)" nee_family_entries "${nee_family_list}")
set(NEE_FAMILY_NAMES)
foreach(entry ${nee_family_entries})
  string(REGEX REPLACE "X\\(([a-z0-9_]+)\\)" "\\1" name ${entry})
  list(APPEND NEE_FAMILY_NAMES ${name})
endforeach()
if(NOT NEE_FAMILY_NAMES)
  message(FATAL_ERROR "no operator families found in ${nee_family_header} (#define NEE_FAMILIES(X) X(name) ...)")
endif()

# Sets `out` to each pattern with <family> replaced by every family's name, e.g.
# nee_family_sources(sources <family>_algorithm.cpp) in kernels/.
function(nee_family_sources out)
  set(files)
  foreach(family ${NEE_FAMILY_NAMES})
    foreach(pattern ${ARGN})
      string(REPLACE "<family>" ${family} file ${pattern})
      list(APPEND files ${file})
    endforeach()
  endforeach()
  set(${out} ${files} PARENT_SCOPE)
endfunction()
