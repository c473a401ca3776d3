import SplashJournalWriter
import Testing

/// Metadata keys become journal field names journald keeps.
@Suite struct JournalFieldTests {
    @Test(arguments: [
        ("launch", "SPLASHD_LAUNCH"),
        ("step", "SPLASHD_STEP"),
        ("attempt", "SPLASHD_ATTEMPT"),
        ("phase", "SPLASHD_PHASE"),
        ("duration_ms", "SPLASHD_DURATION_MS"),
        ("event", "SPLASHD_EVENT"),
        ("plugin", "SPLASHD_PLUGIN"),
        ("stream", "SPLASHD_STREAM"),
        ("Mixed.Case-key", "SPLASHD_MIXED_CASE_KEY"),
        ("http.status code", "SPLASHD_HTTP_STATUS_CODE"),
        ("_private", "SPLASHD_PRIVATE"),
        ("__x", "SPLASHD_X"),
        ("-dash", "SPLASHD_DASH"),
        ("2fa", "SPLASHD_2FA"),
        ("ünïcode", "SPLASHD_N_CODE"),
        ("", "SPLASHD_KEY"),
        ("___", "SPLASHD_KEY"),
        ("=", "SPLASHD_KEY"),
        (String(repeating: "k", count: 100), "SPLASHD_" + String(repeating: "K", count: 56)),
    ])
    func metadataKeysBecomeValidNames(key: String, expected: String) {
        let name = JournalField.metadataName(for: key)
        #expect(name == expected)
        #expect(JournalField.isValidName(name))
    }

    @Test(arguments: [
        ("MESSAGE", true),
        ("SPLASHD_DURATION_MS", true),
        ("CODE_LINE", true),
        ("A", true),
        ("_PID", false),
        ("1ABC", false),
        ("lower", false),
        ("WITH-DASH", false),
        ("WITH=EQUALS", false),
        ("", false),
        (String(repeating: "A", count: 64), true),
        (String(repeating: "A", count: 65), false),
    ])
    func journaldNameRules(name: String, valid: Bool) {
        #expect(JournalField.isValidName(name) == valid)
    }
}
