import SplashCore
import SplashJSON

/// What the launch counter keeps on disk, in one small JSON file written atomically.
///
/// ```json
/// {"format":1,"count":7,"last_counted_launch":"6f1c…","prompted_versions":["1.4.2"],"prompted_launch":"6f1c…"}
/// ```
///
/// The count, the prompted versions and the launch ids change together in one write, so a crash
/// leaves either the old or the new record. `last_counted_launch` makes counting idempotent per
/// launch (a retried attempt does not count twice); `prompted_launch` lets that retry report the
/// same `review_prompt` again.
package struct LaunchCounterRecord: Sendable, Equatable {
    /// Launches counted so far.
    var count = 0
    /// App versions that were prompted for a review, sorted.
    var promptedVersions: [String] = []
    /// The id of the launch counted last.
    var lastCountedLaunch: String?
    /// The id of the launch that got the last review prompt.
    var promptedLaunch: String?

    /// Why a file is not a record.
    package struct Corrupt: Error, CustomStringConvertible {
        package var description: String
    }

    init() {}

    /// Parses a record; throws `Corrupt` for anything but a well-formed one.
    package init(bytes: [UInt8]) throws(Corrupt) {
        guard let value = try? JSONReader.value(of: bytes) else {
            throw Corrupt(description: "not JSON")
        }
        guard let object = value.objectValue else { throw Corrupt(description: "not a JSON object") }
        guard object["format"]?.numberValue == 1 else { throw Corrupt(description: "unknown format") }
        guard let count = object["count"]?.numberValue, count >= 0, count.rounded() == count, count < 1e15 else {
            throw Corrupt(description: "'count' is not a whole number ≥ 0")
        }
        self.count = Int(count)
        switch object["prompted_versions"] {
        case nil: break
        case .array(let items)?:
            promptedVersions = try items.map { item throws(Corrupt) in
                guard let version = item.stringValue else { throw Corrupt(description: "'prompted_versions' holds a non-string") }
                return version
            }.sorted()
        default: throw Corrupt(description: "'prompted_versions' is not a list")
        }
        lastCountedLaunch = try Self.optionalString(object, "last_counted_launch")
        promptedLaunch = try Self.optionalString(object, "prompted_launch")
    }

    /// The record as one line of JSON with a trailing newline.
    package var bytes: [UInt8] {
        var writer = JSONWriter()
        writer.object { w in
            w.key("format")
            w.int(1)
            w.key("count")
            w.int(Int64(count))
            w.key("last_counted_launch")
            w.string(lastCountedLaunch)
            w.key("prompted_versions")
            w.array { a in for version in promptedVersions { a.string(version) } }
            w.key("prompted_launch")
            w.string(promptedLaunch)
        }
        return writer.bytes + [0x0A]
    }

    /// Records that `version` was prompted during `launch`.
    mutating func markPrompted(version: String, launch: String) {
        if !promptedVersions.contains(version) {
            promptedVersions.append(version)
            promptedVersions.sort()
        }
        promptedLaunch = launch
    }

    private static func optionalString(_ object: [String: JSONValue], _ key: String) throws(Corrupt) -> String? {
        switch object[key] {
        case nil, .null?: return nil
        case .string(let value)?: return value
        default: throw Corrupt(description: "'\(key)' is not a string")
        }
    }
}
