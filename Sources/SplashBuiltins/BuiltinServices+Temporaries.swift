package import Logging
package import SplashCore
import SplashPlugins
import SplashSupport

extension BuiltinServices {
    /// Removes the temporaries of atomic writes (`.NAME.tmp-PID-RANDOM`) that a crash or a power
    /// cut left behind, before anything is written: every one in the state directory, and those of
    /// the built-in steps' own files (session, config cache and its ETag, launch counter) where
    /// `graph` puts them elsewhere. Returns the paths removed; each removal is logged.
    @discardableResult
    package func removeStaleTemporaries(graph: StepGraph, logger: Logger) -> [String] {
        var elsewhere: [String: Set<String>] = [:]
        for path in builtinFiles(graph) {
            let slash = path.lastIndex(of: "/")
            let directory = slash.map { String(path[..<$0]) } ?? "."
            guard directory != device.stateDirectory else { continue }
            elsewhere[directory, default: []].insert(slash.map { String(path[path.index(after: $0)...]) } ?? path)
        }
        var removed = AtomicFile.removeStaleTemporaries(in: device.stateDirectory).map { "\(device.stateDirectory)/\($0)" }
        for (directory, names) in elsewhere.sorted(by: { $0.key < $1.key }) {
            removed += AtomicFile.removeStaleTemporaries(in: directory, names: names).map { "\(directory)/\($0)" }
        }
        if !removed.isEmpty {
            logger.notice("removed \(removed.count) temporary file(s) left by an interrupted write: \(removed.joined(separator: ", "))")
        }
        return removed
    }

    /// The files the built-in steps of `graph` write atomically.
    private func builtinFiles(_ graph: StepGraph) -> [String] {
        var files: [String] = []
        for step in graph.steps {
            switch step.plugin {
            case BuiltinPlugin.authRefresh.name:
                if let options = try? step.builtinOptions(AuthRefreshOptions.self) {
                    files.append(AuthRefreshPlugin.sessionPath(options: options, device: device))
                }
            case BuiltinPlugin.configFetch.name:
                if let options = try? step.builtinOptions(ConfigFetchOptions.self) {
                    let cache = device.resolve(options.cache)
                    files += [cache, "\(cache).etag"]
                }
            case BuiltinPlugin.launchCounter.name:
                if let options = try? step.builtinOptions(LaunchCounterOptions.self) {
                    files.append(device.resolve(options.file))
                }
            default:
                break
            }
        }
        return files
    }
}
