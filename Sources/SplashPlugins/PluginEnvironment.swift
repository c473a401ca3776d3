#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import SplashCore

/// The variables an external plugin gets on top of the daemon's environment.
///
/// `SPLASHD_STEP`, `SPLASHD_LAUNCH`, `SPLASHD_ATTEMPT`, `SPLASHD_OPTIONS` (the step's options as
/// JSON), `SPLASHD_FACTS` (the dependencies' facts as a JSON object keyed by step id), and for
/// every top-level scalar option `SPLASHD_OPT_<KEY>` (key upper-cased, every character other than
/// an ASCII letter or digit replaced by `_`).
enum PluginEnvironment {
    /// The service manager's variables meant for the daemon alone: a plugin that sent
    /// `READY=1` or pinged the watchdog, or took the listening socket, would lie to systemd.
    static let removed = [
        "NOTIFY_SOCKET", "WATCHDOG_USEC", "WATCHDOG_PID", "LISTEN_FDS", "LISTEN_PID", "LISTEN_FDNAMES",
    ]

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
        case .null, .array, .object: return nil
        }
    }

    /// Compact JSON with sorted keys ("{}" if encoding fails, which plain JSON values cannot).
    static func json<Value: Encodable>(_ value: Value) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(value) else { return "{}" }
        return String(decoding: data, as: UTF8.self)
    }
}
