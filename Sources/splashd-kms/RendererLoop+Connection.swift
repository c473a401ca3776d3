import Logging
import Glibc
import SplashClient
import SplashCore
import SplashKMS
import SplashScene

/// What the loop does with splashd's socket: connecting (or watching for it), the states read.
extension RendererLoop {
    /// Connects and subscribes, once splashd's socket is there (else it is watched for).
    func connectNow() throws {
        if access(socketPath, F_OK) != 0 {
            if socketWatch == nil {
                logger.info("waiting for \(socketPath) to appear")
                socketWatch = try PathWatch(socketPath)
                try feed(.noSplashd)
            }
            guard try socketWatch?.exists() == true else { return }
            socketWatch = nil
        }
        do {
            guard let connection = try connect(socketPath) else {
                // SIGTERM came while splashd did not answer: the loop's next wait ends on it.
                connectWanted = true
                return
            }
            self.connection = connection
            // Without the 100 ms ticks splashd publishes while loading (they move only the clocks
            // and a time-tracked progress), unless the theme shows progress: the renderer then
            // sleeps until something it draws changes.
            switch try connection.request(painter.theme.showProgress ? .subscribe : .subscribeWithoutTicks) {
            case .ok: break
            case .error(let error): throw ClientError.rejected(error)
            default: throw ClientError.invalidMessage("unexpected reply to subscribe")
            }
            logger.info("connected to \(socketPath)")
            try feed(.connected)
        } catch let error as ClientError {
            try lost(error)
        }
    }

    /// Connects to splashd, however long it takes to answer: its socket is there early (systemd
    /// listens on it), and the daemon behind it may take longer than a connection's 5 s to start
    /// on a slow device (20 s in the emulated VM under systemd). The renderer keeps its frame and
    /// tries again, rather than exit and black the display while systemd restarts it; nil when
    /// SIGTERM or SIGINT came meanwhile (heard between two tries, at most 5 s late).
    private func connect(_ path: String) throws(ClientError) -> SplashConnection? {
        while true {
            do {
                return try SplashConnection(path: path)
            } catch .timedOut {
                var signal = pollfd(fd: signals, events: Int16(POLLIN), revents: 0)
                if poll(&signal, 1, 0) > 0 { return nil }
                logger.info("splashd has not answered on \(path) yet: still waiting")
            }
        }
    }

    /// splashd went away (a restart), or sent what this renderer cannot read (a line over the
    /// protocol's bound): the machine says when to connect again.
    func lost(_ error: ClientError) throws {
        connection?.close()
        connection = nil
        try feed(.connectionLost("\(error)"))
    }

    func receive(_ connection: SplashConnection) throws {
        do {
            // The newest state only: a flood (10,000 states a second) is read, not drawn state by
            // state, and the display shows the latest.
            guard let state = try connection.latestState() else { return }
            try feed(.state(state))
        } catch let error as ClientError {
            try lost(error)
        }
    }
}
