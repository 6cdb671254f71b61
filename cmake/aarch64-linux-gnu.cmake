# Cross-compiles NEE's runtime for 64-bit ARM Linux with Debian's cross compilers
# (gcc-aarch64-linux-gnu, g++-aarch64-linux-gnu). The libraries it links come from
# NEE_ARM64_SYSROOT, a folder of Debian's arm64 packages unpacked by scripts/build-arm64.sh;
# the C library and libstdc++ are the cross compilers' own (/usr/aarch64-linux-gnu).
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)
set(CMAKE_LIBRARY_ARCHITECTURE aarch64-linux-gnu)

# try_compile projects read this file again without the cache: pass the folder on.
if(NOT NEE_ARM64_SYSROOT)
  set(NEE_ARM64_SYSROOT $ENV{NEE_ARM64_SYSROOT})
endif()
if(NOT NEE_ARM64_SYSROOT)
  message(FATAL_ERROR "set NEE_ARM64_SYSROOT to the unpacked arm64 packages (scripts/build-arm64.sh makes it)")
endif()
set(ENV{NEE_ARM64_SYSROOT} ${NEE_ARM64_SYSROOT})

set(CMAKE_FIND_ROOT_PATH /usr/aarch64-linux-gnu ${NEE_ARM64_SYSROOT})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)  # protoc and the like run here
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
# OpenSSL's configuration header sits in the multiarch include folder.
set(CMAKE_C_FLAGS_INIT "-isystem ${NEE_ARM64_SYSROOT}/usr/include/aarch64-linux-gnu")
set(CMAKE_CXX_FLAGS_INIT "-isystem ${NEE_ARM64_SYSROOT}/usr/include/aarch64-linux-gnu")
# Libraries that the linked ones need in turn (protobuf's zlib).
set(CMAKE_EXE_LINKER_FLAGS_INIT
    "-Wl,-rpath-link,${NEE_ARM64_SYSROOT}/usr/lib/aarch64-linux-gnu -Wl,-rpath-link,${NEE_ARM64_SYSROOT}/lib/aarch64-linux-gnu")
