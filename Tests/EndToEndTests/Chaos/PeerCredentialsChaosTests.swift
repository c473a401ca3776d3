import Foundation
import Testing
import TestSupport

/// Issue 48, item 5: control granted through PID reuse. A peer that may not send control
/// commands connects, forks a child that keeps the connection, and exits; once its PID belongs to
/// a member of the control group, the child sends `complete`. The daemon used to read the peer's
/// groups from `/proc/PID/status` at the first control command, so it read the member's.
///
/// The PID is reused for certain, not by chance: the daemon, the peer and the member run in a PID
/// namespace of their own (`unshare --pid --mount-proc`), where nothing else takes PIDs, and the
/// next PID is set with `/proc/sys/kernel/ns_last_pid`.
@MainActor @Suite struct PeerCredentialsChaosTests {
    static let unshare = "/usr/bin/unshare"
    static let setpriv = "/usr/bin/setpriv"
    static let python = "/usr/bin/python3"
    /// The script's exit status when the machine cannot set up the namespace.
    static let cannotSetUp: Int32 = 77

    /// Why this machine cannot run the test, or nil when it can.
    static func unavailableReason() -> String? {
        if geteuid() != 0 { return "needs root for a PID namespace and setpriv (running as uid \(geteuid()))" }
        for tool in [unshare, setpriv, python] where !FileManager.default.isExecutableFile(atPath: tool) {
            return "\(tool) is missing"
        }
        return nil
    }

    @Test func aReusedPIDGrantsNothing() throws {
        if let reason = Self.unavailableReason() {
            print("skipped: \(reason)")
            return
        }
        let group = "users"
        guard let entry = getgrnam(group) else {
            print("skipped: no group \(group)")
            return
        }
        let gid = entry.pointee.gr_gid
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        chmod(dir.path, 0o755)
        try FileManager.default.createDirectory(atPath: dir.file("state"), withIntermediateDirectories: false)
        _ = try dir.write("splashd.toml", ProtocolEndToEndTests.holdingConfig + """

            [socket]
            path = "\(dir.file("splashd.sock"))"
            mode = "0666"
            control_group = "\(group)"
            """)
        _ = try dir.write("peer.py", Self.peer)
        let script = try dir.write("reuse.sh", Self.script)
        let result = try ProcessRunner.run(
            "/usr/bin/timeout",
            ["-k", "5", "\(60 * Int(waitScale))", Self.unshare, "--pid", "--fork", "--mount-proc", "/bin/bash", script, dir.path, Binaries.splashd, "\(gid)"],
            timeout: .seconds(90) * waitScale
        )
        if result.status == Self.cannotSetUp {
            print("skipped: cannot set up the PID namespace: \(result.stderr)")
            return
        }
        let log = dir.read("splashd.log") ?? ""
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)\nsplashd's log:\n\(log)")
        // The PID that connected now names a member of the control group, as /proc shows it.
        #expect(result.stdout.contains("member: Groups:\t\(gid)"), "\(result.stdout)")
        let reply = result.stdout.split(separator: "\n").first { $0.hasPrefix("reply: ") }.map { String($0.dropFirst(7)) }
        #expect(reply?.contains(#""code":"permission-denied""#) == true, "the connection of a non-member was allowed: \(reply ?? result.stdout)")
        #expect(reply?.contains(#""type":"ok""#) == false)
    }

    /// The peer, as nobody with no groups: connects, waits for the daemon's hello (accepted), then
    /// forks a child that keeps the connection and exits. The child sends `complete` once told to.
    static let peer = #"""
        import os, socket, sys, time
        path, go = sys.argv[1], sys.argv[2]
        deadline = time.monotonic() + 60
        while True:
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            try:
                s.connect(path)
                break
            except OSError:
                s.close()
                if time.monotonic() > deadline:
                    sys.exit("splashd did not serve " + path)
                time.sleep(0.01)
        f = s.makefile("rb")
        f.readline()
        if os.fork() == 0:
            with open(go) as g:
                g.read()
            s.sendall(b'{"cmd":"complete","step":"hold","id":1}\n')
            sys.stdout.write("reply: " + f.readline().decode())
            sys.stdout.flush()
            os._exit(0)
        print("connected", flush=True)
        os._exit(0)
        """#

    /// PID 1 of the namespace: when it exits, the kernel ends every process in it.
    static let script = #"""
        #!/bin/bash
        set -uo pipefail
        work=$1 splashd=$2 gid=$3
        cannot() { echo "$*" >&2; exit 77; }
        [ -w /proc/sys/kernel/ns_last_pid ] || cannot "cannot set the next PID here"
        mkfifo -m 0600 "$work/out" "$work/ready" "$work/go" || cannot "cannot make FIFOs in $work"
        chmod 0666 "$work/go"
        "$splashd" --config "$work/splashd.toml" --state-dir "$work/state" --verbose </dev/null >"$work/splashd.log" 2>&1 &
        setpriv --reuid=65534 --regid=65534 --clear-groups -- /usr/bin/python3 "$work/peer.py" "$work/splashd.sock" "$work/go" \
            </dev/null >"$work/out" 2>"$work/peer.err" &
        peer=$!
        exec 4<"$work/out"
        IFS= read -r line <&4
        [ "$line" = connected ] || { echo "the peer did not connect: $line $(cat "$work/peer.err")"; exit 1; }
        # The process that connected has exited; its child holds the connection.
        wait "$peer"
        member=
        for attempt in 1 2 3 4 5; do
            echo $((peer - 1)) >/proc/sys/kernel/ns_last_pid
            setpriv --reuid=65534 --regid=65534 --groups="$gid" -- /bin/sh -c 'echo ready; exec sleep infinity' \
                </dev/null >"$work/ready" 2>/dev/null &
            if [ "$!" = "$peer" ]; then member=$!; break; fi
            kill "$!"; wait "$!" 2>/dev/null
        done
        [ -n "$member" ] || { echo "PID $peer was not reused"; exit 1; }
        IFS= read -r ready <"$work/ready"
        echo "member: $(grep '^Groups:' "/proc/$member/status")"
        echo go >"$work/go"
        IFS= read -r reply <&4
        echo "$reply"
        """#
}
