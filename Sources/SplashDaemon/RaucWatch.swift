import CLibsystemd
import Logging
import SplashCore
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// RAUC's installer on the system bus (`[update] rauc = true`): its progress drives the update
/// view (`RaucInstaller` says how). Through the sd-bus splashd already loads for `[app]`; reading
/// needs no grant. The watch runs on a thread of its own, blocked in poll(2), and connects again
/// after the bus failed, as the app's watch does.
enum RaucWatch {
    /// Watches until the returned function is called, handing each input to `controller`.
    static func start<C: Clock>(controller: LaunchController<C>, logger: Logger) -> @Sendable () -> Void where C.Duration == Duration {
        let state = Mutex(RaucInstaller())
        return BusWatch.start(
            attempt: { stopFD, message in
                let sink = Unmanaged.passRetained(RaucSink { event in
                    let completed = event.kind == Int32(SPLASHD_RAUC_EVENT_COMPLETED.rawValue)
                    let properties = RaucSink.properties(event)
                    let inputs = state.withLock { installer in
                        completed ? installer.completed(event.result) : installer.changed(properties)
                    }
                    // Every step RAUC reports, in the journal (a state may carry only the last of
                    // a quick burst: renderers draw at most one a frame).
                    if completed {
                        logger.info("RAUC: Completed(\(event.result))")
                    } else if let progress = properties.progress, !inputs.isEmpty {
                        logger.info("RAUC: \(progress.percentage)% \(progress.message)")
                    }
                    for input in inputs { controller.updater(input, from: .rauc) }
                })
                defer { sink.release() }
                let result = splashd_bus_watch_rauc(nil, stopFD, { context, event in
                    guard let context, let event else { return }
                    Unmanaged<RaucSink>.fromOpaque(context).takeUnretainedValue().deliver(event.pointee)
                }, sink.toOpaque(), message, 512)
                return (result, sink.takeUnretainedValue().delivered.load(ordering: .relaxed))
            },
            onLost: { reason in logger.warning("RAUC's installer: the bus failed (\(reason)); connecting again") }
        )
    }
}

/// Hands the C watch's events to the installer's reading.
private final class RaucSink: Sendable {
    let onEvent: @Sendable (splashd_rauc_event) -> Void
    let delivered = Atomic<Bool>(false)

    init(_ onEvent: @escaping @Sendable (splashd_rauc_event) -> Void) { self.onEvent = onEvent }

    func deliver(_ event: splashd_rauc_event) {
        delivered.store(true, ordering: .relaxed)
        onEvent(event)
    }

    static func text<T>(_ field: T) -> String {
        withUnsafeBytes(of: field) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
    }

    static func properties(_ event: splashd_rauc_event) -> RaucInstaller.Properties {
        RaucInstaller.Properties(
            operation: event.has_operation != 0 ? text(event.operation) : nil,
            progress: event.has_progress != 0 ? (Int(event.percentage), text(event.message), Int(event.depth)) : nil,
            lastError: event.has_last_error != 0 ? text(event.last_error) : nil
        )
    }
}
