import SplashCore
import SplashJSON

/// The variables an external plugin gets on top of the daemon's environment.
///
/// `SPLASHD_STEP`, `SPLASHD_LAUNCH`, `SPLASHD_ATTEMPT`, `SPLASHD_OPTIONS` (the step's options as
/// JSON), `SPLASHD_FACTS` (the dependencies' facts as a JSON object keyed by step id), and for
/// every top-level scalar option `SPLASHD_OPT_<KEY>` (key upper-cased, every character other than
/// an ASCII letter or digit replaced by `_`).
public enum PluginEnvironment {
    /// The service manager's variables meant for the daemon alone: a plugin that sent
    /// `READY=1` or pinged the watchdog, or took the listening socket, would lie to systemd.
    static let removed = [
        "NOTIFY_SOCKET", "WATCHDOG_USEC", "WATCHDOG_PID", "LISTEN_FDS", "LISTEN_PID", "LISTEN_FDNAMES",
    ]

    /// An environment to inherit, without `removed`, as `NAME=value` rows, each ending in the NUL
    /// that `posix_spawn` wants. Rows whose name starts with `SPLASHD_` are kept apart with their
    /// names, so that a variable set for the attempt replaces an inherited one.
    ///
    /// Made once from the daemon's environment (which the daemon reads once, at start, and never
    /// changes) and shared by every external plugin: rebuilding it at every spawn cost more than
    /// the rest of the spawn's set-up.
    public struct Inherited: Sendable {
        var rows: [[UInt8]] = []
        var splashd: [(name: String, row: [UInt8])] = []

        /// From the daemon's environment, by name.
        public init(_ environment: [String: String]) {
            self.init(entries: environment.sorted { $0.key < $1.key }.map { Array("\($0.key)=\($0.value)".utf8) })
        }

        /// From `NAME=value` entries; entries without a name are dropped.
        init(entries: some Sequence<some Collection<UInt8>>) {
            let removedNames = Set(PluginEnvironment.removed)
            for entry in entries {
                guard let equals = entry.firstIndex(of: UInt8(ascii: "=")), equals != entry.startIndex else { continue }
                let name = String(decoding: entry[..<equals], as: UTF8.self)
                guard !removedNames.contains(name) else { continue }
                let row = Array(entry) + [0]
                if name.utf8.starts(with: "SPLASHD_".utf8) {
                    splashd.append((name, row))
                } else {
                    rows.append(row)
                }
            }
        }
    }

    /// The whole environment of one attempt as `NAME=value\0` rows: `inherited` plus
    /// `variables(for:)` and the attempt's `token` (`SPLASHD_STEP_TOKEN`, see
    /// `PluginContainment`), which win over inherited variables of the same name.
    static func rows(for run: StepRun, inheriting inherited: Inherited, token: String? = nil) -> [[UInt8]] {
        var variables = variables(for: run)
        if let token { variables[PluginContainment.tokenVariable] = token }
        var rows = inherited.rows
        rows.reserveCapacity(rows.count + inherited.splashd.count + variables.count)
        for (name, row) in inherited.splashd where variables[name] == nil {
            rows.append(row)
        }
        for (name, value) in variables {
            var row = Array(name.utf8)
            row.append(UInt8(ascii: "="))
            row.append(contentsOf: value.utf8)
            row.append(0)
            rows.append(row)
        }
        return rows
    }

    /// The variables for one attempt, by name.
    static func variables(for run: StepRun) -> [String: String] {
        var variables: [String: String] = [
            "SPLASHD_STEP": run.step.id,
            "SPLASHD_LAUNCH": run.launch,
            "SPLASHD_ATTEMPT": String(run.attempt),
            "SPLASHD_OPTIONS": json(run.step.options),
            "SPLASHD_FACTS": json(run.dependencyFacts),
        ]
        // Sorted, so that when two keys map to the same name the outcome is stable.
        for key in run.step.options.keys.sorted() {
            guard let text = scalarText(run.step.options[key]!) else { continue }
            variables[optionVariableName(for: key)] = text
        }
        return variables
    }

    /// `SPLASHD_OPT_` plus the key, upper-cased, non-alphanumerics replaced by `_`.
    static func optionVariableName(for key: String) -> String {
        var name = "SPLASHD_OPT_"
        for scalar in key.unicodeScalars {
            switch scalar.value {
            case 0x30...0x39, 0x41...0x5A: name.unicodeScalars.append(scalar)
            case 0x61...0x7A: name.unicodeScalars.append(Unicode.Scalar(scalar.value - 0x20)!)
            default: name.append("_")
            }
        }
        return name
    }

    /// A string, number or boolean as shell text; nil for null, arrays and objects.
    static func scalarText(_ value: JSONValue) -> String? {
        switch value {
        case .string(let text): return text
        case .bool(let flag): return flag ? "true" : "false"
        case .number(let number):
            if number.rounded() == number, abs(number) < 1e15 {
                return String(Int64(number))
            }
            return String(number)
        case .largeInteger(let whole): return String(whole)
        case .largeUnsignedInteger(let whole): return String(whole)
        case .null, .array, .object: return nil
        }
    }

    /// The options as compact JSON with sorted keys.
    static func json(_ options: [String: JSONValue]) -> String {
        var writer = JSONWriter()
        writer.value(.object(options))
        return writer.string
    }

    /// The dependencies' facts as one compact JSON object, keyed by step id, keys sorted.
    static func json(_ facts: [String: Facts]) -> String {
        var writer = JSONWriter()
        writer.object { writer in
            for step in facts.keys.sorted() {
                writer.key(step)
                writer.value(.object(facts[step]!))
            }
        }
        return writer.string
    }
}
