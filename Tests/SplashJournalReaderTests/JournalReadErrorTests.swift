import Glibc
import SplashJournalReader
import Testing

/// The messages and exit statuses of `splashctl logs` failures.
@Suite struct JournalReadErrorTests {
    @Test func aMissingLaunchSaysSoAndExits1() {
        let error = JournalReadError.noSuchLaunch("6f1c", hint: nil)
        #expect(error.description == "no records of launch 6f1c in the journal")
        #expect(error.exitCode == 1)
        let hinted = JournalReadError.noSuchLaunch("6f1c", hint: JournalAccess.permissionNote)
        #expect(hinted.description.hasSuffix("(reading the system journal needs root or membership in group systemd-journal or adm)"))
    }

    @Test func aLaunchIdFromTheCommandLineIsEscapedInTheMessage() {
        #expect(JournalReadError.noSuchLaunch("x\u{1B}[2J", hint: nil).description == #"no records of launch x\x1b[2J in the journal"#)
    }

    @Test func permissionProblemsExit77WithTheNote() {
        let error = JournalReadError.cannotOpen(directory: nil, errno: EACCES)
        #expect(error.exitCode == 77)
        #expect(error.description.hasPrefix("cannot open the system journal: Permission denied"))
        #expect(error.description.contains(JournalAccess.permissionNote))
    }

    @Test func otherOpenFailuresExit74() {
        let error = JournalReadError.cannotOpen(directory: "/nowhere", errno: ENOENT)
        #expect(error.exitCode == 74)
        #expect(error.description == "cannot open the journal files in /nowhere: No such file or directory")
    }

    @Test func ambiguousPrefixesListTheLaunches() {
        let error = JournalReadError.ambiguousLaunch("6f", candidates: ["6f1c", "6f2d"])
        #expect(error.description == "more than one launch starts with 6f: 6f1c, 6f2d")
        #expect(error.exitCode == 1)
        #expect(JournalReadError.noLaunch(hint: nil).description == "no splashd launch in the journal")
    }
}
