# Sourced by the arm64 scripts: where their cache is and what the SDK is called.
ARM64_CACHE=${ARM64_CACHE:-/var/cache/splashd-arm64}
ARM64_SDK=splashd-debian12-arm64
ARM64_TRIPLE=aarch64-unknown-linux-gnu
# The build's own directory (the dist build for arm64), beside the host's .build/dist; README's
# test command keeps it in the cache instead (ARM64_SCRATCH, an absolute path under ARM64_CACHE).
ARM64_SCRATCH=${ARM64_SCRATCH:-.build/arm64}
case $ARM64_SCRATCH in /*) ;; *) ARM64_SCRATCH=$PWD/$ARM64_SCRATCH ;; esac
