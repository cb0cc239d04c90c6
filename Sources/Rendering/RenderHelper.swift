import FoundationEssentials
import PhotodropSystem
import Synchronization

/// One render helper process (`photodrop render-helper`: photodrop itself in its worker mode) and the socket to it: started when
/// first needed, asked for one file at a time, and started again after it died. The decoders (libvips, libheif,
/// libavcodec) run only there, so a decoder crashing on a hostile file ends the helper, never `watch` or `serve`; the
/// file it was working on gets ``RenderError/crashed(signal:status:)``.
///
/// Not for concurrent use: ``RenderPool`` hands each helper to one caller at a time.
public final class RenderHelper {
    /// The photodrop executable that runs as the helper (`photodrop render-helper`): `$PHOTODROP_EXECUTABLE`, else
    /// `photodrop` in the running executable's folder, which is the running executable itself for every photodrop
    /// command (and the built photodrop beside a test bundle).
    public static func defaultExecutable() -> String {
        if let path = ProcessInfo.processInfo.environment["PHOTODROP_EXECUTABLE"], !path.isEmpty { return path }
        if let path = runningPhotodrop { return path }
        let me = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        return Path.join(Path.parent(of: me), "photodrop")
    }

    /// Set by photodrop's `main` to its own executable: photodrop is its own helper, whatever its file is called.
    nonisolated(unsafe) public static var runningPhotodrop: String?

    public let executable: String
    /// Variables added to the helper's environment (tests use them; photodrop itself adds none).
    public let environment: [String: String]
    private var process: ChildProcess?
    private var channel: RenderChannel?
    private var nextID: UInt64 = 1
    /// How many times a helper was started (for tests and the log).
    public private(set) var starts = 0
    /// The largest peak resident memory of the helper processes that have ended, in bytes (`wait4`'s `ru_maxrss`).
    public private(set) var peakResidentBytes = 0

    public init(executable: String = RenderHelper.defaultExecutable(), environment: [String: String] = [:]) {
        self.executable = executable
        self.environment = environment
    }

    deinit { stop() }

    /// The helper's process ID while it runs (tests stop it by PID).
    public var processID: Int32? { process?.id }

    /// Renders the file open at `descriptor` (which stays the caller's) as `request` asks, waiting at most `timeout`.
    public func render(_ request: RenderRequest, descriptor: FileDescriptor, timeout: Duration = .seconds(120))
        throws(RenderError) -> (response: RenderResponse, pictures: [RenderedPicture])
    {
        let channel = try started()
        var request = request
        request.id = nextID
        nextID += 1
        let header: Data
        do { header = try JSONEncoder().encode(request) } catch {
            throw .unavailable("could not encode a render request: \(error)")
        }
        let message: RenderChannel.Message
        do {
            try channel.send(header: header, descriptor: descriptor)
            message = try channel.receive(until: .now + timeout)
        } catch .timedOut {
            _ = end(signal: .kill)
            throw .timedOut(seconds: Double(timeout.components.seconds))
        } catch .closed {
            let (signal, status) = end(signal: nil)
            throw .crashed(signal: signal, status: status)
        } catch {
            _ = end(signal: .kill)
            throw .unavailable("the render helper '\(executable)' broke the protocol (\(error)); it was restarted")
        }
        guard let response = try? JSONDecoder().decode(RenderResponse.self, from: message.header),
            response.id == request.id, response.pictures.count == message.parts.count
        else {
            _ = end(signal: .kill)
            throw .unavailable("the render helper '\(executable)' sent a reply that does not match its request")
        }
        if let failure = response.failure { throw .undecodable(failure) }
        let pictures = zip(response.pictures, message.parts).map { picture, data in
            RenderedPicture(mimeType: picture.mimeType, width: picture.width, height: picture.height, data: data)
        }
        return (response, pictures)
    }

    /// Stops the helper (it ends when its socket closes); the next request starts it again.
    public func stop() {
        guard process != nil else { return }
        _ = end(signal: nil)
    }

    // MARK: Process

    private func started() throws(RenderError) -> RenderChannel {
        if let channel { return channel }
        let ours: FileDescriptor
        let theirs: FileDescriptor
        do throws(SystemError) { (ours, theirs) = try FileDescriptor.socketPair() } catch {
            throw .unavailable("could not make the render helper's socket: \(error)")
        }
        var variables = ProcessInfo.processInfo.environment
        // A crashing decoder is expected here: the helper ends at once instead of having Swift's runtime print a
        // backtrace of it into photodrop's log; photodrop reports the crash with the file.
        variables["SWIFT_BACKTRACE"] = "enable=no"
        // libheif decodes on several threads, and glibc gives each its own malloc arena: with two arenas a helper
        // making HEIC thumbnails peaks far lower (BENCHMARKS.md, "Thumbnails and previews").
        if variables["MALLOC_ARENA_MAX"] == nil { variables["MALLOC_ARENA_MAX"] = "2" }
        for (name, value) in environment { variables[name] = value }
        do throws(SystemError) {
            process = try ChildProcess.spawn(
                executable, arguments: [executable, "render-helper", "--socket", "3"], environment: variables,
                handOver: theirs)
        } catch {
            throw .unavailable(
                "could not start the render helper '\(executable)': \(error.code). It is photodrop itself in its "
                    + "worker mode; set PHOTODROP_EXECUTABLE to photodrop's path if it is not 'photodrop' in the "
                    + "folder of the running program")
        }
        starts += 1
        let channel = RenderChannel(socket: ours)
        self.channel = channel
        return channel
    }

    /// Closes the socket (and sends `signal` first, if any), then reaps the helper: how it ended.
    private func end(signal: Signal?) -> (signal: Int32?, status: Int32?) {
        let child = process
        process = nil
        channel = nil  // closes the socket
        guard let child else { return (nil, nil) }
        if let signal { child.send(signal) }
        // A helper ends at once when its socket closes; one that does not within two seconds is killed.
        guard let ended = child.waitForExit(graceSeconds: 2) else { return (nil, nil) }
        peakResidentBytes = max(peakResidentBytes, ended.peakResidentBytes)
        return (ended.signal, ended.status)
    }
}
