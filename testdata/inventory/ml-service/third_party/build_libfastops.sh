#!/bin/sh
# Rebuilds third_party/libfastops.so: a tiny ELF shared object whose DT_NEEDED names
# libcudart.so.12, standing in for a vendor's prebuilt CUDA library. The stub libcudart is
# built in a temporary directory and not kept. Needs a C compiler (cc).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf 'int cudaGetDeviceCount(int *n) { *n = 0; return 0; }\n' > "$tmp/cudart.c"
cc -shared -fPIC -Wl,-soname,libcudart.so.12 -o "$tmp/libcudart.so.12" "$tmp/cudart.c"
printf 'int cudaGetDeviceCount(int *n);\nint fastops_devices(void) { int n = 0; cudaGetDeviceCount(&n); return n; }\n' > "$tmp/fastops.c"
cc -shared -fPIC -o "$here/libfastops.so" "$tmp/fastops.c" -L"$tmp" -Wl,--no-as-needed -l:libcudart.so.12
strip "$here/libfastops.so"
