#!/usr/bin/env bash
# Builds libsrdnic_shim.so into $1. Called by Maven (compile phase); needs gcc and libdpdk-dev.
set -euo pipefail
out=${1:?usage: build-shim.sh OUTPUT_DIR}
src=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
if ! pkg-config --exists libdpdk; then
  echo "build-shim: libdpdk not found by pkg-config; run scripts/setup (installs dpdk and libdpdk-dev)" >&2
  exit 1
fi
# --no-as-needed keeps every library we bind in DT_NEEDED, so one dlopen of the shim
# resolves all DPDK symbols the Java bindings look up (see Dpdk.java).
gcc -O3 -fPIC -shared -Wall -Werror \
  $(pkg-config --cflags libdpdk) \
  -o "$out/libsrdnic_shim.so" "$src/srdnic_shim.c" "$src/srdnic_intr_thread.c" \
  -Wl,--no-as-needed -lrte_eal -lrte_mempool -lrte_mbuf -lrte_ring -lrte_ethdev -lrte_net_ring \
  $(pkg-config --libs libdpdk)
