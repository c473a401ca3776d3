import Foundation

/// Writes external plugins (a manifest and a bash script) into a plugin directory for tests.
public struct ScriptPlugins {
    public let directory: String

    public init(in parent: TemporaryDirectory) throws {
        directory = parent.file("plugins")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    /// Plugin `name` running `body` under bash (`set -u`), with an optional default timeout.
    public func add(_ name: String, timeout: String? = nil, _ body: String) throws {
        let script = "\(directory)/\(name).sh"
        try writeClosingOnExec(script, "#!/bin/bash\nset -u\n" + body + "\n", mode: 0o755)
        var manifest = "exec = \"\(name).sh\"\ndescription = \"test plugin \(name)\"\n"
        if let timeout { manifest += "timeout = \"\(timeout)\"\n" }
        try writeClosingOnExec("\(directory)/\(name).toml", manifest)
    }
}
