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
