import SplashCore

/// Reads the `[[step]]` entries of a config into `StepSpec`s.
enum StepReader {
    /// A step as read, with the reader of its table, to locate problems found later.
    struct Entry {
        var spec: StepSpec
        var reader: TableReader
    }

    static let keys: Set<String> = ["id", "plugin", "after", "critical", "timeout", "retry", "label", "options"]
    static let retryKeys: Set<String> = ["attempts", "backoff"]

    /// Reads the root's `step` value, which must be an array of tables, adding the problems of
    /// each step to `problems` (the first of each: a bad step does not stop the others).
    ///
    /// Returns the steps that could be read, and the ids of those that could not (as written), so
    /// that a dependency on one of them is not reported again.
    static func readAll(
        _ root: TableReader, catalog: PluginCatalog, problems: inout [ConfigError.Problem]
    ) -> (steps: [Entry], unread: Set<String>) {
        guard let value = root.table["step"] else { return ([], []) }
        guard let array = value.array else {
            if value.type == .table {
                problems += root.error(at: "step", "\"step\" must be an array of tables: write [[step]], not [step]").problems
            } else {
                problems += root.wrongType("step", value, expected: .array, of: .table).problems
            }
            return ([], [])
        }
        var steps: [Entry] = []
        var unread: Set<String> = []
        for (index, element) in array.enumerated() {
            guard let table = element.table else {
                problems += root.error(
                    at: "step", "wrong type for step #\(index + 1): expected a table, found \(element.type.withArticle)"
                ).problems
                continue
            }
            var reader = TableReader(table: table, file: root.file, line: table.line ?? root.lineOf("step"))
            if let spec = problems.collect(try read(&reader, number: index + 1, catalog: catalog)) {
                steps.append(Entry(spec: spec, reader: reader))
            } else if let id = table["id"]?.string {
                unread.insert(id)
            }
        }
        return (steps, unread)
    }

    /// Reads one step; `number` is its 1-based position, for messages before its id is known.
    static func read(_ reader: inout TableReader, number: Int, catalog: PluginCatalog) throws(ConfigError) -> StepSpec {
        if let id = reader.table["id"]?.string, !id.isEmpty {
            reader.prefix = "step \"\(id)\": "
        } else {
            reader.prefix = "step #\(number): "
        }
        try reader.checkKeys(keys)
        guard let id = try reader.string("id") else { throw reader.error(at: nil, "missing required key \"id\"") }
        guard !id.isEmpty else { throw reader.error(at: "id", "id must not be empty") }
        guard let plugin = try reader.string("plugin") else {
            throw reader.error(at: nil, "missing required key \"plugin\"")
        }
        var step = StepSpec(id: id, plugin: plugin)
        step.after = try reader.strings("after") ?? []
        step.critical = try reader.bool("critical") ?? true
        if let timeout = try reader.duration("timeout") {
            guard timeout > .zero else { throw reader.error(at: "timeout", "timeout must be greater than zero") }
            step.timeout = timeout
        } else {
            step.timeout = catalog.manifests[plugin]?.timeout ?? StepSpec.defaultTimeout
        }
        if let retry = try reader.table("retry", showKeyAsPrefix: true) {
            step.retry = try readRetry(retry)
        }
        step.label = try reader.string("label")
        let options = try reader.table("options")
        if let options { step.options = TOMLJSON.convert(options.table) }
        if let builtin = BuiltinPlugin(rawValue: plugin) {
            // Checked here, as the plugin would: `splashd check` rejects what a step would.
            do {
                step.builtin = try BuiltinOptions(plugin: builtin, options: step.options)
            } catch {
                throw (options ?? reader).error(at: options == nil ? nil : error.option, error.message)
            }
        }
        return step
    }

    /// Reads `retry = { attempts = 3, backoff = "200ms" }` or a `[step.retry]` table.
    private static func readRetry(_ reader: TableReader) throws(ConfigError) -> StepSpec.RetryPolicy {
        try reader.checkKeys(retryKeys)
        var policy = StepSpec.RetryPolicy()
        if let attempts = try reader.int("attempts") {
            guard attempts >= 1 else {
                throw reader.error(at: "attempts", "retry.attempts must be at least 1 (it counts the first try)")
            }
            policy.attempts = attempts
        }
        if let backoff = try reader.duration("backoff") { policy.backoff = backoff }
        return policy
    }
}
