# The VM's way to its root for the initramfs test (Tests/vm/test_kms_initramfs.py): an
# initramfs-tools boot script (boot=splashdtest, installed as /scripts/splashdtest) that mounts
# this machine's root file system read-only over 9p under a tmpfs overlay at $rootmnt, as
# guest-init.sh does, then holds the initramfs until the test has captured the screen: it says
# "initramfs: holding" on the second serial port and waits for a line back (not with
# splashd.nohold on the kernel's command line: Tests/vm/power_on.py boots on to systemd).

mountroot() {
    for module in 9pnet_virtio 9p overlay; do modprobe "$module"; done
    mkdir -p /host /rw
    mount -t 9p -o trans=virtio,version=9p2000.L,ro,cache=loose host /host || panic "cannot mount the host"
    mount -t tmpfs -o mode=0755 tmpfs /rw && mkdir -p /rw/upper /rw/work &&
        mount -t overlay overlay -o lowerdir=/host,upperdir=/rw/upper,workdir=/rw/work "${rootmnt}" || panic "cannot make the overlay"
    # splashd.nohold on the kernel's command line: straight on (Tests/vm/power_on.py's boots).
    case " $(cat /proc/cmdline) " in *" splashd.nohold "*) return ;; esac
    stty -F /dev/ttyS1 raw -echo
    echo "initramfs: holding" >/dev/ttyS1
    read -r _ </dev/ttyS1
}
