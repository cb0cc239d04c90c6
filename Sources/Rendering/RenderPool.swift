import PhotodropSystem
import Dispatch
import Synchronization

/// A few render helpers shared by the threads that make pictures: each caller borrows one helper for one file, so
/// at most `size` files are decoded at once, each in its own process, and only as many as the process's
/// ``DecodeBudget`` admits by their estimated memory.
public final class RenderPool: Sendable {
    public let size: Int
    /// The memory budget the decodes are admitted against (shared by every pool of the process by default).
    public let budget: DecodeBudget
    private let idle: Mutex<[UnsafeHelper]>
    private let available: DispatchSemaphore

    /// A helper moved between threads under the pool's lock: only one thread uses it at a time.
    private struct UnsafeHelper: @unchecked Sendable {
        let helper: RenderHelper
    }

    public init(
        size: Int, executable: String = RenderHelper.defaultExecutable(), environment: [String: String] = [:],
        budget: DecodeBudget = .shared
    ) {
        self.size = max(1, size)
        self.budget = budget
        idle = Mutex(
            (0..<max(1, size)).map { _ in
                UnsafeHelper(helper: RenderHelper(executable: executable, environment: environment))
            })
        available = DispatchSemaphore(value: max(1, size))
    }

    /// What a decode is taken to cost when its caller gives no estimate.
    public static let defaultEstimate: Int64 = 96 << 20

    /// Renders with the first free helper, once the budget admits `memoryEstimate` bytes (waiting without holding a
    /// helper), and a helper is free.
    public func render(
        _ request: RenderRequest, descriptor: FileDescriptor, memoryEstimate: Int64? = nil, timeout: Duration = .seconds(120)
    ) throws(RenderError) -> (response: RenderResponse, pictures: [RenderedPicture]) {
        let grant = budget.admit(memoryEstimate ?? Self.defaultEstimate)
        defer { grant.release() }
        available.wait()
        let borrowed = idle.withLock { $0.removeLast() }
        defer {
            idle.withLock { $0.append(borrowed) }
            available.signal()
        }
        return try borrowed.helper.render(request, descriptor: descriptor, timeout: timeout)
    }

    /// How many helper processes were started so far (restarts included).
    public var starts: Int {
        idle.withLock { $0.reduce(0) { $0 + $1.helper.starts } }
    }

    /// The largest peak resident memory of a helper process that has ended (see ``stop()``), in bytes.
    public var peakResidentBytes: Int {
        idle.withLock { $0.map(\.helper.peakResidentBytes).max() ?? 0 }
    }

    /// Stops the idle helpers (a borrowed one stops when returned and the pool goes away).
    public func stop() {
        idle.withLock { helpers in for helper in helpers { helper.helper.stop() } }
    }
}
