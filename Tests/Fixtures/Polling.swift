import Foundation

/// Polls `condition` every 20 ms until it holds or `timeout` seconds pass; returns whether it held.
///
/// Async, so that a waiting test does not hold one of Swift's cooperative threads (there are as many as cores), which
/// the tasks being waited for need.
@discardableResult
public func eventually(timeout: TimeInterval = 30, _ condition: () async throws -> Bool) async rethrows -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    repeat {
        if try await condition() { return true }
        try? await Task.sleep(for: .milliseconds(20))
    } while Date() < deadline
    return try await condition()
}

/// ``eventually(timeout:_:)`` for synchronous code (a plain thread, not a task): polls every 10 ms.
@discardableResult
public func eventuallyBlocking(timeout: TimeInterval = 10, _ condition: () throws -> Bool) rethrows -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
        if try condition() { return true }
        usleep(10_000)
    }
    return try condition()
}
