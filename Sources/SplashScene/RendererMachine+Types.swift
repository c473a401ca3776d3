public import SplashProtocol
import SplashCore

extension RendererMachine {
    /// A connector's id: the output's identity on its device.
    public typealias OutputID = UInt32

    /// One output the renderer draws on.
    public struct Output: Sendable, Equatable, CustomStringConvertible {
        public var id: OutputID
        /// `Virtual-1`, `HDMI-A-1`: what the log, `--output` and `--touch` call it.
        public var name: String
        /// The buffer's size in pixels (the mode's, not turned).
        public var width: Int
        public var height: Int
        /// How far the picture is turned on it.
        public var rotation: SplashRotation
        /// The panel's physical size in millimetres, 0 when the connector does not say.
        public var widthMM: Int
        public var heightMM: Int

        public init(id: OutputID, name: String, width: Int, height: Int, rotation: SplashRotation = .none,
                    widthMM: Int = 0, heightMM: Int = 0) {
            self.id = id
            self.name = name
            self.width = width
            self.height = height
            self.rotation = rotation
            self.widthMM = widthMM
            self.heightMM = heightMM
        }

        /// `Virtual-1 (1280x800, turned 90°)`, as the log says it.
        public var description: String {
            "\(name) (\(width)x\(height)\(rotation == .none ? "" : ", turned \(rotation.rawValue)°"))"
        }
    }

    /// The stage's kind, without its data (what the loop and the tests ask).
    public enum Stage: Sendable, Equatable {
        case noDevice, showing, handingOff, away, waitingForMaster
    }

    /// The stage with exactly the data valid in it.
    public enum State: Sendable, Equatable {
        /// No device open (at start, or after it went away).
        case noDevice
        case showing(Showing)
        case handingOff(HandingOff)
        /// The app has the display: nothing held, drawn or timed.
        case away
        case waitingForMaster(WaitingForMaster)
    }

    /// DRM master, the splash on every output.
    public struct Showing: Sendable, Equatable {
        /// Per output: a flip asked for at this instant and not done yet.
        var pending: [OutputID: Duration] = [:]
        /// Outputs whose picture changed since they were last drawn.
        var dirty: Set<OutputID> = []
        /// Outputs whose last frame was drawn mid-animation: once it is over, one more frame shows
        /// its end (a slow display may not have drawn one near it).
        var drawnMoving: Set<OutputID> = []
        /// Outputs a frame could not be shown on, and when to try again.
        var staleUntil: [OutputID: Duration] = [:]
        /// Outputs plugged in, and when udev said so (logged with their first frame).
        var pluggedAt: [OutputID: Duration] = [:]
        /// A state asked for the hand-off while a flip was pending: it happens once the flips are done.
        var handOffWanted = false
        /// Master was gained for the first time: the entry animation's clock starts when the
        /// outputs are read, with the first frame (reading them and making their buffers takes a
        /// while on a slow device, and the first frame is then still the entry's first, the
        /// background alone, which needs no text stack).
        var entryClockPending = false
        /// The first-frame cache was asked (`loadCachedFrames`): nothing is drawn until it answers.
        var awaitingCache = false
        /// Outputs whose next frame is the cache's picture (`CachedFrames.loaded`).
        var cachedNext: Set<OutputID> = []
        /// Outputs that show a picture with the logo (the cache's) while its raster is not in yet:
        /// not drawn over until it is (a frame without the logo would take it away).
        var showsLogo: Set<OutputID> = []
    }

    /// The display given to the app; its outputs looked at until the app shows on them.
    public struct HandingOff: Sendable, Equatable {
        var since: Duration
        /// When the outputs are looked at next (nil: `checkOutputs` asked, not answered yet).
        var nextCheck: Duration?
        /// `dismissed` was sent for the launch handed over.
        var dismissedSent = false
    }

    /// A launch wants the splash while another process is master.
    public struct WaitingForMaster: Sendable, Equatable {
        /// When the display was wanted (logged once it is ours).
        var wantedSince: Duration
        /// When master is asked for next (nil: `takeMaster` asked, not answered yet).
        var nextTry: Duration?
        /// The wait for another process's master was logged (once per launch that waits).
        var toldWaiting = false
    }

    /// splashd's connection, as far as the machine decides on it.
    enum Link: Sendable, Equatable {
        /// Before the first connection.
        case notYet
        /// splashd's socket is not there yet (the renderer started before splashd, or in the
        /// initramfs): the entry plays out, and the still view is given back as a first state's.
        case absent
        /// Connected (and subscribed), with this many states received on it.
        case connected(states: Int)
        /// Lost: connected again at this instant (nil: `connect` asked, not answered yet).
        case lost(retryAt: Duration?)
    }

    /// What the first-frame cache answered for the start's first outputs (`loadCachedFrames`).
    public enum CachedFrames: Sendable, Equatable {
        /// Not every output has a picture: the entry plays on all of them alike.
        case none
        /// Every output's picture is read: their first frames (`draw`) are the cache's pictures.
        case loaded
        /// `splashd-kms-first-frame`'s pictures are on every output already: the first frames
        /// are the still view drawn afresh over them.
        case onScreen
    }

    /// What happened.
    public enum Input: Sendable {
        /// The device was opened (at start, or after it came back): whether this process became its
        /// master (no one else was), and whether the kernel has `CLOSEFB`.
        case deviceOpened(master: Bool, closesFramebuffers: Bool)
        /// The device went away (its driver unbound).
        case deviceRemoved
        /// The connected outputs (those `--output` allows), read after `readOutputs`.
        case outputs([Output])
        /// udev said the device's connectors changed.
        case hotplug
        case state(StateMessage)
        /// A frame was put on the output: by a mode set (nothing pending) or a page flip (pending
        /// until `flipped`).
        case presented(OutputID, flipPending: Bool)
        /// A frame could not be shown: tried again a little later.
        case presentFailed(OutputID)
        case flipped(OutputID)
        case input(InputEvent)
        /// The answer to `takeMaster`.
        case master(gained: Bool)
        /// The answer to `checkOutputs`: the outputs that still scan out one of this renderer's
        /// frames.
        case outputsChecked(showingOurs: Set<OutputID>)
        /// Time passed (the loop woke at `nextWake`).
        case tick
        /// The answer to `loadCachedFrames`.
        case cachedFrames(CachedFrames)
        /// The logo's raster came (or its drawing failed): frames from now on show it.
        case logoReady
        /// splashd's socket is not there yet, at start: the loop waits for it to appear.
        case noSplashd
        /// Connected to splashd and subscribed (the answer to `connect`, or the start's).
        case connected
        /// The connection to splashd failed or ended, for this reason.
        case connectionLost(String)
    }

    /// What the renderer's loop is to do, in order.
    public enum Action: Sendable, Equatable {
        /// Take the display lock (`splashd-kms wait` waits for it) / let it go.
        case takeLock, releaseLock
        /// Become DRM master (answer with `master(gained:)`).
        case takeMaster
        case dropMaster
        /// Master was regained after another process had it: the outputs' next frames set their
        /// modes again.
        case modesLost
        /// Read the connected outputs (answer with `outputs`); buffers are made for new ones.
        case readOutputs
        /// Look up the first-frame cache for the outputs read (answer with `cachedFrames`).
        case loadCachedFrames
        /// Draw `view` at `times(at: now)` with `focusRing` on this output and present it (the
        /// cache's picture instead, for an output's first frame after `cachedFrames(.loaded)`).
        case draw(OutputID)
        /// Look which outputs still show one of this renderer's frames (answer with
        /// `outputsChecked`).
        case checkOutputs
        /// Let every framebuffer go: one no longer on screen is removed; one still on screen is
        /// closed with `CLOSEFB` (it stays on screen), or kept where the kernel lacks it.
        case releaseFramebuffers
        /// The splash stands still: the theme's still view of these outputs drawn afresh and
        /// written to the first-frame cache where it differs (then its index).
        case storeFirstFrames(Set<OutputID>)
        /// The splash stands still on this renderer's frames: `splashd-kms-first-frame`'s
        /// framebuffers that no output shows any more are removed.
        case releaseHelperFrames
        /// The splash stands still: the memory its start and drawing used goes back to the system.
        case giveBackMemory
        /// Send splashd a command: `dismissed`, `retry`, `continue-offline`.
        case send(Request.Command)
        /// Connect to splashd again (answer with `connected` or `connectionLost`).
        case connect
        /// Close the device and wait for its node to come back (answer with `deviceOpened`).
        case waitForDevice
        /// Stop reading the input devices (while the app has the display) / read them again.
        case suspendInput, resumeInput
        /// A line for the log.
        case log(String)
        /// A warning for the log.
        case warn(String)

        /// Whether the loop answers it with an input (nothing stands still before the answer).
        var awaitsAnswer: Bool {
            switch self {
            case .takeMaster, .readOutputs, .loadCachedFrames, .draw, .checkOutputs: true
            default: false
            }
        }
    }
}
