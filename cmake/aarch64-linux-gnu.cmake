# Cross-compiles for ARM64 Linux with Debian's GNU cross toolchain (g++-aarch64-linux-gnu).
# Libraries such as libprotobuf come from Debian's arm64 multiarch packages
# (/usr/lib/aarch64-linux-gnu); protoc and other build tools are the host's.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_CROSSCOMPILING_EMULATOR qemu-aarch64)
