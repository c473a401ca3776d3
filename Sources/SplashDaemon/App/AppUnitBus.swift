import CLibsystemd
public import SplashCore
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Something that happened to the watch of the app's unit.
public enum AppUnitEvent: Sendable, Equatable {
    /// The unit's state: the current one when the watch (re)connects, then every change, with
    /// the values systemd's signal carried.
    case state(AppWatch.UnitState)
    /// systemd's `JobRemoved` for a job of the unit: its id and result (`done`, `canceled`, …).
    case jobEnded(job: UInt32, result: String)
    /// The launch's `app` step queued a start or restart: systemd's job id (0: unknown). Not
    /// from the bus's watch but from the step, through the same queue (`AppLink.queued`).
    case startQueued(job: UInt32)
    /// The connection to the bus failed; the watch connects again after a pause.
    case lost(String)
    /// A signal in systemd's name from `sender`, which does not own the name: not taken (design
    /// §18), only logged.
    case refused(sender: String)
}

/// A call about the app's unit that systemd refused or could not be made.
public struct AppUnitError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A negative errno (e.g. `-EACCES` when polkit said no).
    public var code: Int32
    public var message: String

    public init(code: Int32, message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}

/// The app's unit as the daemon reaches it: its states, and the three calls it makes. Behind a
/// protocol so the controller is tested with a fake bus; `SystemdAppBus` is systemd's D-Bus API.
public protocol AppUnitBus: Sendable {
    /// Calls `onEvent` with the unit's state, the current one first, then each change, until the
    /// returned function is called.
    func watch(_ unit: String, onEvent: @escaping @Sendable (AppUnitEvent) -> Void) -> @Sendable () -> Void
    /// Queues a start (`restart` false: a no-op when running) or a restart of `unit`; returns
    /// systemd's id of the job (0 when its answer named none).
    func start(_ unit: String, restart: Bool) async throws(AppUnitError) -> UInt32
    /// Sends SIGKILL to every process of `unit`.
    func kill(_ unit: String) async throws(AppUnitError)
}

/// `AppUnitBus` over systemd's D-Bus API with libsystemd's sd-bus (loaded on first use).
///
/// The watch runs on a thread of its own, blocked in poll(2) on the bus and a stop pipe: no
/// wake-up while nothing changes. Calls also run on a short-lived thread each, so a slow bus
/// never holds one of the few cooperative threads.
public struct SystemdAppBus: AppUnitBus {
    /// The D-Bus address of the bus systemd is on; nil: the system bus (`DBUS_SYSTEM_BUS_ADDRESS`
    /// or its default). Tests give a private bus with a fake systemd on it.
    public let address: String?

    public init(address: String? = nil) {
        self.address = address
    }

    public func watch(_ unit: String, onEvent: @escaping @Sendable (AppUnitEvent) -> Void) -> @Sendable () -> Void {
        let address = address
        return BusWatch.start(
            attempt: { stopFD, message in
                let box = Unmanaged.passRetained(WatchSink(onEvent))
                defer { box.release() }
                let result = splashd_bus_watch_unit(address, unit, stopFD, { context, event in
                    guard let context, let event else { return }
                    let sink = Unmanaged<WatchSink>.fromOpaque(context).takeUnretainedValue()
                    sink.deliver(event.pointee)
                }, box.toOpaque(), message, 512)
                return (result, box.takeUnretainedValue().delivered.load(ordering: .relaxed))
            },
            onLost: { onEvent(.lost($0)) }
        )
    }

    public func start(_ unit: String, restart: Bool) async throws(AppUnitError) -> UInt32 {
        try await call(restart ? Int32(SPLASHD_UNIT_RESTART.rawValue) : Int32(SPLASHD_UNIT_START.rawValue), unit)
    }

    public func kill(_ unit: String) async throws(AppUnitError) {
        _ = try await call(Int32(SPLASHD_UNIT_KILL.rawValue), unit)
    }

    /// The call's job id.
    private func call(_ method: Int32, _ unit: String) async throws(AppUnitError) -> UInt32 {
        let address = address
        let outcome: Result<UInt32, AppUnitError> = await withCheckedContinuation { reply in
            BlockingThread.start {
                var message = [CChar](repeating: 0, count: 512)
                var job: UInt32 = 0
                let result = splashd_bus_unit_call(address, method, unit, &job, &message, message.count)
                if result == 0 {
                    reply.resume(returning: .success(job))
                } else {
                    let text = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
                    reply.resume(returning: .failure(AppUnitError(code: result, message: text)))
                }
            }
        }
        return try outcome.get()
    }
}

/// Hands the C watch's states to the stream.
private final class WatchSink: Sendable {
    let onEvent: @Sendable (AppUnitEvent) -> Void
    let delivered = Atomic<Bool>(false)

    init(_ onEvent: @escaping @Sendable (AppUnitEvent) -> Void) {
        self.onEvent = onEvent
    }

    func deliver(_ event: splashd_unit_event) {
        delivered.store(true, ordering: .relaxed)
        let result = withUnsafeBytes(of: event.result) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        if event.kind == Int32(SPLASHD_UNIT_EVENT_JOB_REMOVED.rawValue) {
            onEvent(.jobEnded(job: event.job, result: result))
            return
        }
        if event.kind == Int32(SPLASHD_UNIT_EVENT_REFUSED.rawValue) {
            onEvent(.refused(sender: withUnsafeBytes(of: event.sender) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }))
            return
        }
        let active = withUnsafeBytes(of: event.active_state) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        let sub = withUnsafeBytes(of: event.sub_state) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        onEvent(.state(AppWatch.UnitState(activeState: active, subState: sub, job: event.job, mainPID: event.main_pid, result: result)))
    }
}

/// A detached POSIX thread for work that blocks (poll, a D-Bus call).
enum BlockingThread {
    private final class Body: Sendable {
        let run: @Sendable () -> Void
        init(_ run: @escaping @Sendable () -> Void) { self.run = run }
    }

    static func start(_ body: @escaping @Sendable () -> Void) {
        let context = Unmanaged.passRetained(Body(body)).toOpaque()
        var thread = pthread_t()
        let result = pthread_create(&thread, nil, { context in
            let body = Unmanaged<Body>.fromOpaque(context!).takeRetainedValue()
            body.run()
            return nil
        }, context)
        if result == 0 {
            pthread_detach(thread)
        } else {
            // No thread: run it here rather than lose it.
            Unmanaged<Body>.fromOpaque(context).takeRetainedValue().run()
        }
    }
}
