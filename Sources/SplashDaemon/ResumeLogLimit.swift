/// How many `resume`s are written to the journal in full (design §14): the first `burst` of each
/// `window`; the rest are counted and told in one record with the next resume logged. An app or
/// a wake hook that resumes in a loop (500 resumes were 1,500 records) would otherwise make
/// journald drop other records. What a resume changes (the splash back, a failed check) is always
/// logged.
struct ResumeLogLimit {
    static let burst = 5
    static let window = Duration.seconds(60)

    private var windowStart: Duration?
    private var inWindow = 0
    /// Resumes not logged since the last one that was.
    private(set) var suppressed = 0

    /// Whether the resume at `now` is logged in full; when it is, `folded` is how many were not
    /// before it (to be told with it).
    mutating func admit(at now: Duration) -> (logged: Bool, folded: Int) {
        if let start = windowStart, now - start < Self.window, inWindow >= Self.burst {
            suppressed += 1
            return (false, 0)
        }
        if windowStart.map({ now - $0 >= Self.window }) ?? true {
            windowStart = now
            inWindow = 0
        }
        inWindow += 1
        let folded = suppressed
        suppressed = 0
        return (true, folded)
    }
}
