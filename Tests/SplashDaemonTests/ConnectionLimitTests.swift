@testable import SplashDaemon
import Testing

/// How many clients the socket serves: `max_clients`, within the descriptor limit less a reserve.
@Suite struct ConnectionLimitTests {
    @Test func theCapIsMaxClientsWithinTheDescriptorLimitLessTheReserve() {
        // systemd's hard limit (524288), the shipped unit's (8192): max_clients decides.
        #expect(ConnectionLimit.capacity(maxClients: 1024, descriptorLimit: 524_288, steps: 4) == 1024)
        #expect(ConnectionLimit.capacity(maxClients: 1024, descriptorLimit: 8192, steps: 200) == 1024)
        // A hard limit of 1024: 64 kept for the daemon, 4 per step for plugins.
        #expect(ConnectionLimit.reserve(steps: 4) == 80)
        #expect(ConnectionLimit.capacity(maxClients: 1024, descriptorLimit: 1024, steps: 4) == 944)
        #expect(ConnectionLimit.capacity(maxClients: 10, descriptorLimit: 128, steps: 1) == 10)
        #expect(ConnectionLimit.capacity(maxClients: 1024, descriptorLimit: 128, steps: 1) == 60)
        // Never less than one client.
        #expect(ConnectionLimit.capacity(maxClients: 1024, descriptorLimit: 20, steps: 1) == 1)
        #expect(ConnectionLimit.capacity(maxClients: 1024, descriptorLimit: Int.max, steps: 1) == 1024)
    }

    @Test func admitsUpToTheCapacityAndAgainAfterARelease() {
        let limit = ConnectionLimit(capacity: 2)
        #expect(limit.admit())
        #expect(limit.admit())
        #expect(!limit.admit())
        #expect(limit.count == 2)
        limit.release()
        #expect(limit.admit())
        #expect(!limit.admit())
        #expect(limit.count == 2)
    }

    @Test func theBusyLineIsOneErrorMessage() {
        let line = BusyConnection.line(capacity: 3)
        #expect(line.last == 0x0A)
        #expect(
            String(decoding: line, as: UTF8.self)
                == #"{"type":"error","code":"busy","message":"splashd is serving its maximum of 3 clients; try again later"}"# + "\n"
        )
    }
}
